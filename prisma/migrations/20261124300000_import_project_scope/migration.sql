-- Imports per project: a source's ids and an incremental source's cursor belong to the
-- project that imported them, so the same file imported into another project imports
-- afresh there (and a re-run in the same project still duplicates nothing). Rows from
-- before are in project `default`. A job records who started it.

ALTER TABLE "import_external_ids" ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "import_external_ids" DROP CONSTRAINT "import_external_ids_pkey";
ALTER TABLE "import_external_ids" ADD CONSTRAINT "import_external_ids_pkey" PRIMARY KEY ("project_id", "source", "kind", "external_id");

ALTER TABLE "import_cursors" ADD COLUMN "project_id" TEXT NOT NULL DEFAULT 'default';
ALTER TABLE "import_cursors" DROP CONSTRAINT "import_cursors_pkey";
ALTER TABLE "import_cursors" ADD CONSTRAINT "import_cursors_pkey" PRIMARY KEY ("project_id", "source_key");

-- The account's email or the API key's name (access.actor.label).
ALTER TABLE "import_jobs" ADD COLUMN "actor" TEXT;
