-- Imports (issue 10): jobs with progress, the source ids of what they wrote (so a re-run
-- duplicates nothing), and a cursor per incremental source (Dify's database).

CREATE TABLE "import_jobs" (
  "id" UUID PRIMARY KEY,
  -- the project that started it: another project's caller gets a 404
  "project_id" TEXT NOT NULL DEFAULT 'default',
  -- dify-api | dify-db | mem0 | openai
  "format" TEXT NOT NULL,
  -- what was imported, for people: a file name, "dify-db app <id>"
  "label" TEXT NOT NULL DEFAULT '',
  "dry_run" BOOLEAN NOT NULL DEFAULT false,
  -- pending | running | done | failed
  "status" TEXT NOT NULL DEFAULT 'pending',
  -- records (conversations + memories) to go and gone through
  "total" INTEGER NOT NULL DEFAULT 0,
  "processed" INTEGER NOT NULL DEFAULT 0,
  "conversations" INTEGER NOT NULL DEFAULT 0,
  "turns" INTEGER NOT NULL DEFAULT 0,
  "memories" INTEGER NOT NULL DEFAULT 0,
  "skipped" INTEGER NOT NULL DEFAULT 0,
  "failed" INTEGER NOT NULL DEFAULT 0,
  -- the first problems: [{record, field?, message}]
  "problems" JSONB NOT NULL DEFAULT '[]',
  "error" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "finished_at" TIMESTAMPTZ(3)
);
CREATE INDEX "import_jobs_project_id_created_at_idx" ON "import_jobs" ("project_id", "created_at" DESC, "id" DESC);

-- One row per imported record: (source, kind, source id) -> the local row.
CREATE TABLE "import_external_ids" (
  "source" TEXT NOT NULL,
  -- conversation | memory
  "kind" TEXT NOT NULL,
  "external_id" TEXT NOT NULL,
  "local_id" UUID NOT NULL,
  "job_id" UUID,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("source", "kind", "external_id")
);
CREATE INDEX "import_external_ids_local_idx" ON "import_external_ids" ("local_id");

-- Where an incremental source stopped: {"created_at": "...", "id": "..."} of the last row read.
CREATE TABLE "import_cursors" (
  "source_key" TEXT PRIMARY KEY,
  "cursor" JSONB NOT NULL,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
