-- Every stored row belongs to a project. Rows written before projects existed go to
-- project `default` (created in 20261123200000_auth) and keep their ids. Adding a
-- column with a constant default rewrites no rows, so this is quick on large tables.

ALTER TABLE "conversations"         ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "messages"              ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "message_files"         ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "node_memories"         ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "memories"              ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "memory_embeddings"     ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "memory_relations"      ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "memory_events"         ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "memory_retrievals"     ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "memory_retrieval_hits" ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "memory_review_items"   ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "embedding_jobs"        ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "app_settings"          ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "offloaded_contents"    ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "memory_user_counts"    ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';

-- Lists and pickers filter by project first.
CREATE INDEX "conversations_project_id_updated_at_id_idx" ON "conversations" ("project_id", "updated_at" DESC, "id" DESC);
CREATE INDEX "conversations_project_id_app_id_end_user_id_updated_at_idx" ON "conversations" ("project_id", "app_id", "end_user_id", "updated_at" DESC);
CREATE INDEX "memories_project_id_user_id_status_updated_at_id_idx" ON "memories" ("project_id", "user_id", "status", "updated_at" DESC, "id" DESC);
CREATE INDEX "memory_review_items_project_id_user_id_status_created_at_idx" ON "memory_review_items" ("project_id", "user_id", "status", "created_at" DESC);
CREATE INDEX "memory_retrievals_project_id_user_id_created_at_idx" ON "memory_retrievals" ("project_id", "user_id", "created_at" DESC);
CREATE INDEX "embedding_jobs_project_id_created_at_idx" ON "embedding_jobs" ("project_id", "created_at" DESC);
