-- pgvector: bundled with PGlite (pglite-pgvector) and required on any PostgreSQL server.
CREATE EXTENSION IF NOT EXISTS vector;

-- CreateEnum
CREATE TYPE "conversation_status" AS ENUM ('active', 'archived');

-- CreateTable
CREATE TABLE "conversations" (
    "id" UUID NOT NULL,
    "app_id" TEXT NOT NULL,
    "end_user_id" TEXT,
    "name" TEXT NOT NULL DEFAULT '',
    "mode" TEXT NOT NULL DEFAULT 'chat',
    "model_config" JSONB,
    "status" "conversation_status" NOT NULL DEFAULT 'active',
    "turn_count" INTEGER NOT NULL DEFAULT 0,
    "leaf_count" INTEGER NOT NULL DEFAULT 0,
    "token_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "conversations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "messages" (
    "id" UUID NOT NULL,
    "conversation_id" UUID NOT NULL,
    "parent_message_id" UUID,
    "tree_parent_id" UUID,
    "query" TEXT NOT NULL DEFAULT '',
    "answer" TEXT NOT NULL DEFAULT '',
    "answer_tokens" INTEGER NOT NULL DEFAULT 0,
    "query_tokens_o200k" INTEGER NOT NULL DEFAULT 0,
    "answer_tokens_o200k" INTEGER NOT NULL DEFAULT 0,
    "query_tokens_cl100k" INTEGER NOT NULL DEFAULT 0,
    "answer_tokens_cl100k" INTEGER NOT NULL DEFAULT 0,
    "file_count" INTEGER NOT NULL DEFAULT 0,
    "metadata" JSONB,
    "seq" SERIAL NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "message_files" (
    "id" UUID NOT NULL,
    "message_id" UUID NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'image',
    "transfer_method" TEXT NOT NULL,
    "url" TEXT,
    "upload_file_id" TEXT,
    "belongs_to" TEXT NOT NULL DEFAULT 'user',
    "position" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "message_files_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "conversations_app_id_end_user_id_updated_at_idx" ON "conversations"("app_id", "end_user_id", "updated_at" DESC);

-- CreateIndex
CREATE INDEX "conversations_updated_at_id_idx" ON "conversations"("updated_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "messages_conversation_id_created_at_seq_idx" ON "messages"("conversation_id", "created_at" DESC, "seq" DESC);

-- CreateIndex
CREATE INDEX "messages_conversation_id_tree_parent_id_idx" ON "messages"("conversation_id", "tree_parent_id");

-- CreateIndex
CREATE INDEX "message_files_message_id_position_idx" ON "message_files"("message_id", "position");

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "message_files" ADD CONSTRAINT "message_files_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
