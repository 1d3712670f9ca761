-- Memories per user and status, kept by statement-level triggers, so the user picker
-- reads a few rows instead of counting every memory (140-190 ms at 100 000 memories).
CREATE TABLE "memory_user_counts" (
    "user_id" TEXT NOT NULL,
    "status" "memory_status" NOT NULL,
    "n" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "memory_user_counts_pkey" PRIMARY KEY ("user_id", "status")
);

INSERT INTO "memory_user_counts" ("user_id", "status", "n")
SELECT "user_id", "status", count(*) FROM "memories" GROUP BY 1, 2;

-- One upsert per (user, status) group of the statement's rows: old rows count -1, new
-- rows +1. Transition tables make a 2 000-row bulk insert one grouped upsert.
CREATE FUNCTION "memory_user_counts_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "memory_user_counts" AS c ("user_id", "status", "n")
    SELECT "user_id", "status", -count(*) FROM old_rows GROUP BY 1, 2
    ON CONFLICT ("user_id", "status") DO UPDATE SET "n" = c."n" + EXCLUDED."n";
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO "memory_user_counts" AS c ("user_id", "status", "n")
    SELECT "user_id", "status", count(*) FROM new_rows GROUP BY 1, 2
    ON CONFLICT ("user_id", "status") DO UPDATE SET "n" = c."n" + EXCLUDED."n";
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "memory_user_counts_insert" AFTER INSERT ON "memories"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "memory_user_counts_apply"();
CREATE TRIGGER "memory_user_counts_update" AFTER UPDATE ON "memories"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "memory_user_counts_apply"();
CREATE TRIGGER "memory_user_counts_delete" AFTER DELETE ON "memories"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "memory_user_counts_apply"();
