-- Memory evals (issue 23): sets of questions with known right answers, runs of a set under a
-- retrieval configuration, and each case's result in a run. Every table carries project_id
-- and every key starts with it: a set, case or run of another project is simply not found.

CREATE TABLE "eval_sets" (
    "project_id" TEXT NOT NULL,
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "eval_sets_pkey" PRIMARY KEY ("project_id", "id")
);
-- The CLI names a set: one name per project.
CREATE UNIQUE INDEX "eval_sets_project_id_name_key" ON "eval_sets" ("project_id", "name");

-- A question for one end user and what a right answer is: memory ids, evidence turns
-- ({conversation_id, message_id}: a memory counts when its source turn is one of them) or
-- texts (a memory containing one). `expected` holds the three lists (lib/evals/schemas.ts).
CREATE TABLE "eval_cases" (
    "project_id" TEXT NOT NULL,
    "id" UUID NOT NULL,
    "set_id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "expected" JSONB NOT NULL,
    "category" TEXT,
    "tags" TEXT[] NOT NULL DEFAULT '{}',
    "external_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "eval_cases_pkey" PRIMARY KEY ("project_id", "id"),
    CONSTRAINT "eval_cases_set_fkey" FOREIGN KEY ("project_id", "set_id") REFERENCES "eval_sets" ("project_id", "id") ON DELETE CASCADE
);
CREATE INDEX "eval_cases_project_id_set_id_created_at_idx" ON "eval_cases" ("project_id", "set_id", "created_at", "id");
-- A re-import of a benchmark file skips the questions it already holds.
CREATE UNIQUE INDEX "eval_cases_project_id_set_id_external_id_key" ON "eval_cases" ("project_id", "set_id", "external_id");

-- One evaluation of a set: the configuration, and the metrics per set and per category
-- (each with its bootstrap interval), computed once when the run ends.
CREATE TABLE "eval_runs" (
    "project_id" TEXT NOT NULL,
    "id" UUID NOT NULL,
    "set_id" UUID NOT NULL,
    "label" TEXT,
    "config" JSONB NOT NULL,
    "metrics" JSONB NOT NULL,
    "case_count" INTEGER NOT NULL,
    "duration_ms" DOUBLE PRECISION NOT NULL,
    "embedding_model" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "eval_runs_pkey" PRIMARY KEY ("project_id", "id"),
    CONSTRAINT "eval_runs_set_fkey" FOREIGN KEY ("project_id", "set_id") REFERENCES "eval_sets" ("project_id", "id") ON DELETE CASCADE
);
CREATE INDEX "eval_runs_project_id_set_id_created_at_idx" ON "eval_runs" ("project_id", "set_id", "created_at");

-- A case's result in a run: its metrics, the rank of each expected item, and the retrieval
-- with its score parts (`retrieved`), so a drill-down shows what the run saw.
CREATE TABLE "eval_run_cases" (
    "project_id" TEXT NOT NULL,
    "run_id" UUID NOT NULL,
    "case_id" UUID NOT NULL,
    "category" TEXT,
    "hit" BOOLEAN,
    "scores" JSONB NOT NULL,
    "expected_ranks" JSONB NOT NULL,
    "retrieved" JSONB NOT NULL,
    "latency_ms" DOUBLE PRECISION NOT NULL,
    "tokens" INTEGER NOT NULL,

    CONSTRAINT "eval_run_cases_pkey" PRIMARY KEY ("project_id", "run_id", "case_id"),
    CONSTRAINT "eval_run_cases_run_fkey" FOREIGN KEY ("project_id", "run_id") REFERENCES "eval_runs" ("project_id", "id") ON DELETE CASCADE
);
