-- Erasure of one end user's data (lib/privacy, GDPR article 17).
--
-- 1. History events name their memory's user: the column, its backfill and the trigger that
--    fills it on insert come from 20261126000000_memory_as_of (history by user and time).
--    Erasure needs the same column to find the history of long-deleted memories; events of
--    memories deleted before that migration and never retrieved may still be named by a
--    review item.
UPDATE "memory_events" e SET "user_id" = i."user_id"
  FROM "memory_review_items" i
 WHERE e."user_id" IS NULL AND e."memory_id" IN (i."memory_id", i."other_memory_id") AND i."project_id" = e."project_id";

-- 2. Offloaded contents name whose conversation they were cut from (null: a pasted history).
ALTER TABLE "offloaded_contents" ADD COLUMN "user_id" TEXT;
ALTER TABLE "offloaded_contents" ADD COLUMN "conversation_id" UUID;
CREATE INDEX "offloaded_contents_project_id_user_id_idx" ON "offloaded_contents" ("project_id", "user_id");

-- An erasure finds a user's conversations without knowing the app.
CREATE INDEX "conversations_project_id_end_user_id_idx" ON "conversations" ("project_id", "end_user_id");

-- 3. Erasures under way: one row per (project, user) from the start of an erasure to its end.
--    While it exists, writes for that user fail (below); a crash leaves it, so the user stays
--    frozen until the erasure is run again and finishes. `counts` adds up each committed batch.
CREATE TABLE "privacy_erasures" (
    "project_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "id" UUID NOT NULL,
    "actor" TEXT,
    "counts" JSONB NOT NULL DEFAULT '{}',
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "privacy_erasures_pkey" PRIMARY KEY ("project_id", "user_id")
);

-- 4. The write guard: after each statement writing rows of users, every writer takes a shared
--    advisory lock (727279, transaction-scoped) and fails if one of those users is being erased.
--    An erasure sets its row under the exclusive lock, so it waits for every transaction that
--    already wrote without seeing the row; such writes are committed before its first batch
--    and erased with the rest. Statement-level with transition tables: one check per statement.
CREATE FUNCTION "privacy_guard_fail"() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'memscope: this user is being erased' USING ERRCODE = 'MSE01';
END
$$;

CREATE FUNCTION "privacy_guard_user_id"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(727279);
  IF EXISTS (SELECT 1 FROM new_rows n JOIN "privacy_erasures" e ON e."project_id" = n."project_id" AND e."user_id" = n."user_id") THEN
    PERFORM "privacy_guard_fail"();
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION "privacy_guard_end_user_id"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(727279);
  IF EXISTS (SELECT 1 FROM new_rows n JOIN "privacy_erasures" e ON e."project_id" = n."project_id" AND e."user_id" = n."end_user_id") THEN
    PERFORM "privacy_guard_fail"();
  END IF;
  RETURN NULL;
END
$$;

-- Rows keyed by conversation (uuid): turns, node memory.
CREATE FUNCTION "privacy_guard_conversation"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(727279);
  IF EXISTS (SELECT 1 FROM "privacy_erasures" LIMIT 1) AND EXISTS (
      SELECT 1 FROM (SELECT DISTINCT "project_id", "conversation_id" FROM new_rows) n
        JOIN "conversations" c ON c."project_id" = n."project_id" AND c."id" = n."conversation_id"
        JOIN "privacy_erasures" e ON e."project_id" = c."project_id" AND e."user_id" = c."end_user_id") THEN
    PERFORM "privacy_guard_fail"();
  END IF;
  RETURN NULL;
END
$$;

-- agentscope_summaries.conversation_id is text ('' for a pasted history).
CREATE FUNCTION "privacy_guard_conversation_text"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(727279);
  IF EXISTS (SELECT 1 FROM "privacy_erasures" LIMIT 1) AND EXISTS (
      SELECT 1 FROM (SELECT DISTINCT "project_id", "conversation_id" FROM new_rows WHERE "conversation_id" <> '') n
        JOIN "conversations" c ON c."project_id" = n."project_id" AND c."id"::text = n."conversation_id"
        JOIN "privacy_erasures" e ON e."project_id" = c."project_id" AND e."user_id" = c."end_user_id") THEN
    PERFORM "privacy_guard_fail"();
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "privacy_guard_insert" AFTER INSERT ON "memories" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "privacy_guard_user_id"();
CREATE TRIGGER "privacy_guard_update" AFTER UPDATE ON "memories" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "privacy_guard_user_id"();
CREATE TRIGGER "privacy_guard_insert" AFTER INSERT ON "memory_embeddings" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "privacy_guard_user_id"();
CREATE TRIGGER "privacy_guard_insert" AFTER INSERT ON "memory_events" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "privacy_guard_user_id"();
CREATE TRIGGER "privacy_guard_insert" AFTER INSERT ON "memory_retrievals" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "privacy_guard_user_id"();
CREATE TRIGGER "privacy_guard_insert" AFTER INSERT ON "memory_review_items" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "privacy_guard_user_id"();
CREATE TRIGGER "privacy_guard_update" AFTER UPDATE ON "memory_review_items" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "privacy_guard_user_id"();
CREATE TRIGGER "privacy_guard_insert" AFTER INSERT ON "offloaded_contents" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "privacy_guard_user_id"();
CREATE TRIGGER "privacy_guard_insert" AFTER INSERT ON "conversations" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "privacy_guard_end_user_id"();
CREATE TRIGGER "privacy_guard_update" AFTER UPDATE ON "conversations" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "privacy_guard_end_user_id"();
CREATE TRIGGER "privacy_guard_insert" AFTER INSERT ON "messages" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "privacy_guard_conversation"();
CREATE TRIGGER "privacy_guard_insert" AFTER INSERT ON "node_memories" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "privacy_guard_conversation"();
CREATE TRIGGER "privacy_guard_update" AFTER UPDATE ON "node_memories" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "privacy_guard_conversation"();
CREATE TRIGGER "privacy_guard_insert" AFTER INSERT ON "agentscope_summaries" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "privacy_guard_conversation_text"();
