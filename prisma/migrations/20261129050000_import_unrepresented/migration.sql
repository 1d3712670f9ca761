-- Issue 36: what an import's source holds that Memscope keeps only in a turn's metadata or
-- leaves out (a Letta image's bytes, a ChatGPT citation, ...), counted by named reason, so
-- nothing is lost without the job's summary saying so. {"letta_image": 2, ...}
ALTER TABLE "import_jobs" ADD COLUMN "unrepresented" JSONB NOT NULL DEFAULT '{}';
