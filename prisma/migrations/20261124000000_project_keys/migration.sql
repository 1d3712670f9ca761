-- Queries now filter by project, so keys that were global become per project:
-- settings (the active embedding model, model presets) and the per-user memory counts.
-- History events name who made them (an account's email or an API key's name).

ALTER TABLE "app_settings" DROP CONSTRAINT "app_settings_pkey";
ALTER TABLE "app_settings" ADD CONSTRAINT "app_settings_pkey" PRIMARY KEY ("project_id", "key");

ALTER TABLE "memory_user_counts" DROP CONSTRAINT "memory_user_counts_pkey";
ALTER TABLE "memory_user_counts" ADD CONSTRAINT "memory_user_counts_pkey" PRIMARY KEY ("project_id", "user_id", "status");

CREATE OR REPLACE FUNCTION "memory_user_counts_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "memory_user_counts" AS c ("project_id", "user_id", "status", "n")
    SELECT "project_id", "user_id", "status", -count(*) FROM old_rows GROUP BY 1, 2, 3
    ON CONFLICT ("project_id", "user_id", "status") DO UPDATE SET "n" = c."n" + EXCLUDED."n";
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO "memory_user_counts" AS c ("project_id", "user_id", "status", "n")
    SELECT "project_id", "user_id", "status", count(*) FROM new_rows GROUP BY 1, 2, 3
    ON CONFLICT ("project_id", "user_id", "status") DO UPDATE SET "n" = c."n" + EXCLUDED."n";
  END IF;
  RETURN NULL;
END
$$;

-- Dedupe looks up a user's memories by normalized text within the project.
DROP INDEX IF EXISTS "memories_user_id_content_key_idx";
CREATE INDEX "memories_project_id_user_id_content_key_idx" ON "memories" ("project_id", "user_id", "content_key");

ALTER TABLE "memory_events" ADD COLUMN "actor_label" TEXT;
