-- Memory, history, relation, retrieval, review item and offloaded content ids are unique per
-- project, not across projects, as conversation and message ids already are (migration
-- 20261125000000_project_scoped_ids). A client picks these ids (POST /users/import keeps an
-- export's ids): while they were unique across projects, an id another project held answered
-- 409 "already exists", telling the caller that some other project had it (issue 39). Now
-- every key of these tables, and of the rows that reference them, leads with project_id, and
-- foreign keys carry project_id, so a row can only point at a row of its own project.
-- Existing rows keep their ids and projects (ids were unique, so they stay unique per project).

-- A vector's, relation's and hit's project is its memory's or retrieval's: every writer wrote
-- them so; this makes sure before the keys rely on it (ids are still unique here).
UPDATE "memory_embeddings" e SET "project_id" = m."project_id"
  FROM "memories" m WHERE m."id" = e."memory_id" AND e."project_id" <> m."project_id";
UPDATE "memory_relations" r SET "project_id" = m."project_id"
  FROM "memories" m WHERE m."id" = r."source_id" AND r."project_id" <> m."project_id";
UPDATE "memory_retrieval_hits" h SET "project_id" = r."project_id"
  FROM "memory_retrievals" r WHERE r."id" = h."retrieval_id" AND h."project_id" <> r."project_id";

-- Foreign keys on the bare ids go first (they depend on the primary keys being replaced).
ALTER TABLE "memory_embeddings" DROP CONSTRAINT "memory_embeddings_memory_id_fkey";
ALTER TABLE "memory_relations" DROP CONSTRAINT "memory_relations_source_id_fkey";
ALTER TABLE "memory_relations" DROP CONSTRAINT "memory_relations_target_id_fkey";
ALTER TABLE "memory_retrieval_hits" DROP CONSTRAINT "memory_retrieval_hits_retrieval_id_fkey";

ALTER TABLE "memories" DROP CONSTRAINT "memories_pkey";
ALTER TABLE "memories" ADD CONSTRAINT "memories_pkey" PRIMARY KEY ("project_id", "id");
ALTER TABLE "memory_events" DROP CONSTRAINT "memory_events_pkey";
ALTER TABLE "memory_events" ADD CONSTRAINT "memory_events_pkey" PRIMARY KEY ("project_id", "id");
ALTER TABLE "memory_relations" DROP CONSTRAINT "memory_relations_pkey";
ALTER TABLE "memory_relations" ADD CONSTRAINT "memory_relations_pkey" PRIMARY KEY ("project_id", "id");
ALTER TABLE "memory_retrievals" DROP CONSTRAINT "memory_retrievals_pkey";
ALTER TABLE "memory_retrievals" ADD CONSTRAINT "memory_retrievals_pkey" PRIMARY KEY ("project_id", "id");
ALTER TABLE "memory_review_items" DROP CONSTRAINT "memory_review_items_pkey";
ALTER TABLE "memory_review_items" ADD CONSTRAINT "memory_review_items_pkey" PRIMARY KEY ("project_id", "id");
ALTER TABLE "offloaded_contents" DROP CONSTRAINT "offloaded_contents_pkey";
ALTER TABLE "offloaded_contents" ADD CONSTRAINT "offloaded_contents_pkey" PRIMARY KEY ("project_id", "ref");
-- A memory's vector per model, and a retrieval's hit per rank, within the project.
ALTER TABLE "memory_embeddings" DROP CONSTRAINT "memory_embeddings_pkey";
ALTER TABLE "memory_embeddings" ADD CONSTRAINT "memory_embeddings_pkey" PRIMARY KEY ("project_id", "model", "memory_id");
ALTER TABLE "memory_retrieval_hits" DROP CONSTRAINT "memory_retrieval_hits_pkey";
ALTER TABLE "memory_retrieval_hits" ADD CONSTRAINT "memory_retrieval_hits_pkey" PRIMARY KEY ("project_id", "retrieval_id", "rank");

ALTER TABLE "memory_embeddings" ADD CONSTRAINT "memory_embeddings_project_id_memory_id_fkey"
  FOREIGN KEY ("project_id", "memory_id") REFERENCES "memories" ("project_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "memory_relations" ADD CONSTRAINT "memory_relations_project_id_source_id_fkey"
  FOREIGN KEY ("project_id", "source_id") REFERENCES "memories" ("project_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "memory_relations" ADD CONSTRAINT "memory_relations_project_id_target_id_fkey"
  FOREIGN KEY ("project_id", "target_id") REFERENCES "memories" ("project_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "memory_retrieval_hits" ADD CONSTRAINT "memory_retrieval_hits_project_id_retrieval_id_fkey"
  FOREIGN KEY ("project_id", "retrieval_id") REFERENCES "memory_retrievals" ("project_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The history chain's updates found events by id alone: with ids per project they name the
-- project too (migration 20261126140000_memory_events_superseded_at).
CREATE OR REPLACE FUNCTION "memory_events_rechain"(p TEXT, m UUID) RETURNS void LANGUAGE sql AS $$
  WITH c AS (
    SELECT x."id", CASE WHEN x.chg THEN lead(x."created_at") OVER (PARTITION BY x.chg ORDER BY x."created_at", x.k, x."id") ELSE x."created_at" END AS s
      FROM (SELECT e."id", e."created_at", "memory_event_is_change"(e) AS chg,
                   COALESCE((e."after"->>'version')::int, (e."before"->>'version')::int + 1, 0) AS k
              FROM "memory_events" e WHERE e."project_id" = p AND e."memory_id" = m) x
  )
  UPDATE "memory_events" e SET "superseded_at" = c.s FROM c
   WHERE e."project_id" = p AND e."id" = c."id" AND e."superseded_at" IS DISTINCT FROM c.s
$$;

CREATE OR REPLACE FUNCTION "memory_events_chain_predecessor"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE k int := COALESCE((NEW."after"->>'version')::int, (NEW."before"->>'version')::int + 1, 0);
BEGIN
  IF "memory_event_is_change"(NEW) THEN
    UPDATE "memory_events" p SET "superseded_at" = NEW."created_at"
     WHERE p."project_id" = NEW."project_id" AND p."id" = (
       SELECT q."id" FROM "memory_events" q
        WHERE q."project_id" = NEW."project_id" AND q."memory_id" = NEW."memory_id" AND q."created_at" <= NEW."created_at"
          AND "memory_event_is_change"(q) AND q."event_type" <> 'relate'
          AND (q."created_at", COALESCE((q."after"->>'version')::int, (q."before"->>'version')::int + 1, 0), q."id") < (NEW."created_at", k, NEW."id")
        ORDER BY q."created_at" DESC, COALESCE((q."after"->>'version')::int, (q."before"->>'version')::int + 1, 0) DESC, q."id" DESC
        LIMIT 1)
       AND p."superseded_at" IS DISTINCT FROM NEW."created_at";
  END IF;
  RETURN NULL;
END
$$;
