-- Stored vectors per user and model, kept by statement-level triggers (as memory_user_counts
-- keeps memories per user and status). An as-of search (lib/memories/as-of/search-as-of.ts)
-- must score the memories that have no vector of the model of then on their content; when
-- this count equals the user's memories, every memory has one, and the search skips the
-- anti-join over all of the user's memories that would find none.
CREATE TABLE "memory_embedding_counts" (
    "project_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "n" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "memory_embedding_counts_pkey" PRIMARY KEY ("project_id", "user_id", "model")
);

INSERT INTO "memory_embedding_counts" ("project_id", "user_id", "model", "n")
SELECT "project_id", "user_id", "model", count(*) FROM "memory_embeddings" GROUP BY 1, 2, 3;

CREATE FUNCTION "memory_embedding_counts_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "memory_embedding_counts" AS c ("project_id", "user_id", "model", "n")
    SELECT "project_id", "user_id", "model", -count(*) FROM old_rows GROUP BY 1, 2, 3
    ON CONFLICT ("project_id", "user_id", "model") DO UPDATE SET "n" = c."n" + EXCLUDED."n";
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO "memory_embedding_counts" AS c ("project_id", "user_id", "model", "n")
    SELECT "project_id", "user_id", "model", count(*) FROM new_rows GROUP BY 1, 2, 3
    ON CONFLICT ("project_id", "user_id", "model") DO UPDATE SET "n" = c."n" + EXCLUDED."n";
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "memory_embedding_counts_insert" AFTER INSERT ON "memory_embeddings"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "memory_embedding_counts_apply"();
CREATE TRIGGER "memory_embedding_counts_update" AFTER UPDATE ON "memory_embeddings"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "memory_embedding_counts_apply"();
CREATE TRIGGER "memory_embedding_counts_delete" AFTER DELETE ON "memory_embeddings"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "memory_embedding_counts_apply"();
