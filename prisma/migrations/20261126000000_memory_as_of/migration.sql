-- Memory as of any instant (issue 22, part 1). The state of a memory at T is rebuilt from
-- its history (memory_events' before/after snapshots) and the retrieval log; see
-- docs/architecture.md, "Memory as of an instant".

-- History by user and time: an as-of list reads the events of one user around T.
-- A trigger fills user_id from the memory row (every writer records its event while the
-- row exists: a create after the insert, a delete before the delete), so no writer can
-- forget it.
ALTER TABLE "memory_events" ADD COLUMN "user_id" TEXT;

UPDATE "memory_events" e SET "user_id" = m."user_id"
  FROM "memories" m WHERE m."id" = e."memory_id" AND m."project_id" = e."project_id";
-- A memory deleted before this migration has no row left: its user is the one its
-- retrievals were made for, when it was ever retrieved.
UPDATE "memory_events" e SET "user_id" = x."user_id"
  FROM (SELECT DISTINCT ON (h."project_id", h."memory_id") h."project_id", h."memory_id", r."user_id"
          FROM "memory_retrieval_hits" h JOIN "memory_retrievals" r ON r."id" = h."retrieval_id"
         ORDER BY h."project_id", h."memory_id", r."created_at") x
 WHERE e."user_id" IS NULL AND x."memory_id" = e."memory_id" AND x."project_id" = e."project_id";

CREATE FUNCTION "memory_events_user_id"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."user_id" IS NULL THEN
    SELECT m."user_id" INTO NEW."user_id" FROM "memories" m WHERE m."id" = NEW."memory_id" AND m."project_id" = NEW."project_id";
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER "memory_events_user_id" BEFORE INSERT ON "memory_events"
  FOR EACH ROW EXECUTE FUNCTION "memory_events_user_id"();

CREATE INDEX "memory_events_project_id_user_id_created_at_idx" ON "memory_events" ("project_id", "user_id", "created_at");
-- The memories of a user deleted after T (alive at T, gone from memories): a few rows,
-- not every event after T.
CREATE INDEX "memory_events_deletes_idx" ON "memory_events" ("project_id", "user_id", "created_at") WHERE "event_type" = 'delete';

-- Whether a retrieval marked its hits accessed (the caller held write and it was no dry
-- run). NULL for retrievals logged before this column: then "not a dry run" is all that
-- is known, and a read-only caller's search may have been counted.
ALTER TABLE "memory_retrievals" ADD COLUMN "access_recorded" BOOLEAN;

-- The embedding model retrieval used, and since when (app_settings keeps only the current
-- one). The model active when this migration runs is taken as active from the start: a
-- switch made before it is not known.
CREATE TABLE "embedding_model_changes" (
    "project_id" TEXT NOT NULL,
    "active_from" TIMESTAMPTZ(3) NOT NULL,
    "model" TEXT NOT NULL,
    "dimensions" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,

    CONSTRAINT "embedding_model_changes_pkey" PRIMARY KEY ("project_id", "active_from")
);

INSERT INTO "embedding_model_changes" ("project_id", "active_from", "model", "dimensions", "kind")
SELECT "project_id", 'epoch'::timestamptz, "value"->>'model', ("value"->>'dimensions')::int, "value"->>'kind'
  FROM "app_settings" WHERE "key" = 'embeddings.active';

-- Vectors of texts that are no memory's current content (content of the past, queries of
-- a replay), by model and content hash: an as-of search calls no provider twice for one text.
CREATE TABLE "embedding_cache" (
    "project_id" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "dimensions" INTEGER NOT NULL,
    "embedding" vector NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "embedding_cache_pkey" PRIMARY KEY ("project_id", "model", "content_hash")
);
