-- Long-term semantic memories: store, embeddings per model, relations, history,
-- retrieval log, review queue, re-embedding jobs.

-- CreateEnum
CREATE TYPE "memory_type" AS ENUM ('preference', 'fact', 'pattern', 'skill');

-- CreateEnum
CREATE TYPE "memory_status" AS ENUM ('active', 'archived');

-- CreateEnum
CREATE TYPE "memory_relation_type" AS ENUM ('supports', 'contradicts', 'refines', 'merged_into', 'derived_from');

-- CreateEnum
CREATE TYPE "actor" AS ENUM ('ui', 'api', 'system');

-- CreateTable
CREATE TABLE "memories" (
    "id" UUID NOT NULL,
    "app_id" TEXT,
    "user_id" TEXT NOT NULL,
    "memory_type" "memory_type" NOT NULL,
    "content" TEXT NOT NULL,
    "structured_data" JSONB,
    "source_session_id" UUID,
    "importance_score" DOUBLE PRECISION NOT NULL DEFAULT 0.5,
    "access_count" INTEGER NOT NULL DEFAULT 0,
    "last_accessed_at" TIMESTAMPTZ(3),
    "status" "memory_status" NOT NULL DEFAULT 'active',
    "confidence" DOUBLE PRECISION NOT NULL DEFAULT 0.8,
    "version" INTEGER NOT NULL DEFAULT 1,
    "content_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memories_pkey" PRIMARY KEY ("id")
);

-- Full-text search over content (candidates besides the vector index). Not in the
-- Prisma schema: generated columns are managed here.
ALTER TABLE "memories" ADD COLUMN "search_tsv" tsvector GENERATED ALWAYS AS (to_tsvector('simple', "content")) STORED;

-- CreateTable
CREATE TABLE "memory_embeddings" (
    "memory_id" UUID NOT NULL,
    "model" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "dimensions" INTEGER NOT NULL,
    "embedding" vector NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memory_embeddings_pkey" PRIMARY KEY ("model", "memory_id")
);

-- CreateTable
CREATE TABLE "memory_relations" (
    "id" UUID NOT NULL,
    "source_id" UUID NOT NULL,
    "target_id" UUID NOT NULL,
    "relation_type" "memory_relation_type" NOT NULL,
    "strength" DOUBLE PRECISION NOT NULL DEFAULT 0.5,
    "note" TEXT,
    "created_by" "actor" NOT NULL DEFAULT 'api',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "removed_at" TIMESTAMPTZ(3),

    CONSTRAINT "memory_relations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memory_events" (
    "id" UUID NOT NULL,
    "memory_id" UUID NOT NULL,
    "event_type" TEXT NOT NULL,
    "actor" "actor" NOT NULL,
    "before" JSONB,
    "after" JSONB,
    "reason" TEXT,
    "batch_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memory_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memory_retrievals" (
    "id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "conversation_id" UUID,
    "embedding_model" TEXT NOT NULL,
    "k" INTEGER NOT NULL,
    "weights" JSONB NOT NULL,
    "dry_run" BOOLEAN NOT NULL DEFAULT false,
    "latency_ms" DOUBLE PRECISION NOT NULL,
    "result_count" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memory_retrievals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memory_retrieval_hits" (
    "retrieval_id" UUID NOT NULL,
    "rank" INTEGER NOT NULL,
    "memory_id" UUID NOT NULL,
    "score" DOUBLE PRECISION NOT NULL,
    "cosine" DOUBLE PRECISION NOT NULL,
    "time_decay" DOUBLE PRECISION NOT NULL,
    "importance" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "memory_retrieval_hits_pkey" PRIMARY KEY ("retrieval_id", "rank")
);

-- CreateTable
CREATE TABLE "memory_review_items" (
    "id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "memory_id" UUID,
    "other_memory_id" UUID,
    "candidate" JSONB,
    "similarity" DOUBLE PRECISION,
    "reason" TEXT,
    "source_session_id" UUID,
    "resolution" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "memory_review_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "embedding_jobs" (
    "id" UUID NOT NULL,
    "provider" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "dimensions" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "total" INTEGER NOT NULL DEFAULT 0,
    "done" INTEGER NOT NULL DEFAULT 0,
    "last_memory_id" UUID,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "embedding_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "app_settings" (
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "app_settings_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "memories_user_id_status_updated_at_id_idx" ON "memories"("user_id", "status", "updated_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "memories_user_id_memory_type_status_idx" ON "memories"("user_id", "memory_type", "status");

-- CreateIndex
CREATE INDEX "memories_user_id_content_key_idx" ON "memories"("user_id", "content_key");

-- CreateIndex
CREATE INDEX "memories_user_id_importance_score_idx" ON "memories"("user_id", "importance_score" DESC);

-- Full-text candidates.
CREATE INDEX "memories_search_tsv_idx" ON "memories" USING GIN ("search_tsv");

-- CreateIndex
CREATE INDEX "memory_embeddings_memory_id_idx" ON "memory_embeddings"("memory_id");

-- HNSW (cosine) for the default local lexical embedder. Indexes for other models are
-- created when a model is first used (lib/embeddings/ensure-vector-index.ts): pgvector
-- needs fixed dimensions, hence one partial expression index per model.
CREATE INDEX "memory_embeddings_hnsw_lexical_hash_v1" ON "memory_embeddings"
  USING hnsw (("embedding"::vector(256)) vector_cosine_ops) WHERE "model" = 'lexical-hash-v1';

-- CreateIndex
CREATE INDEX "memory_relations_source_id_idx" ON "memory_relations"("source_id");

-- CreateIndex
CREATE INDEX "memory_relations_target_id_idx" ON "memory_relations"("target_id");

-- CreateIndex
CREATE INDEX "memory_events_memory_id_created_at_idx" ON "memory_events"("memory_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "memory_events_batch_id_idx" ON "memory_events"("batch_id");

-- CreateIndex
CREATE INDEX "memory_retrievals_user_id_created_at_idx" ON "memory_retrievals"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "memory_retrieval_hits_memory_id_idx" ON "memory_retrieval_hits"("memory_id");

-- CreateIndex
CREATE INDEX "memory_review_items_user_id_status_created_at_idx" ON "memory_review_items"("user_id", "status", "created_at" DESC);

-- AddForeignKey
ALTER TABLE "memory_embeddings" ADD CONSTRAINT "memory_embeddings_memory_id_fkey" FOREIGN KEY ("memory_id") REFERENCES "memories"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memory_relations" ADD CONSTRAINT "memory_relations_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "memories"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memory_relations" ADD CONSTRAINT "memory_relations_target_id_fkey" FOREIGN KEY ("target_id") REFERENCES "memories"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memory_retrieval_hits" ADD CONSTRAINT "memory_retrieval_hits_retrieval_id_fkey" FOREIGN KEY ("retrieval_id") REFERENCES "memory_retrievals"("id") ON DELETE CASCADE ON UPDATE CASCADE;
