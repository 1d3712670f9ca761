-- Memory incidents (issue 38): turns where memory failed, found by the rules of lib/incidents
-- (docs/incidents.md). One row per (turn, kind, subject): the subject is the memory the rule is
-- about (missed, restated, stale) or the turn it is about (dropped_reference: the dropped turn;
-- over_context_window: the turn itself), so a scan run twice finds the same rows again.
-- Rows go with their turn (the foreign key cascades): deleting a conversation, retention and
-- an end user's erasure remove them with it.
CREATE TABLE "incidents" (
    "project_id" TEXT NOT NULL,
    "id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "subject" TEXT NOT NULL,
    "conversation_id" UUID NOT NULL,
    "message_id" UUID NOT NULL,
    "app_id" TEXT,
    "user_id" TEXT,
    "memory_ids" UUID[] NOT NULL DEFAULT '{}',
    "summary" TEXT NOT NULL,
    "evidence" JSONB NOT NULL,
    "turn_at" TIMESTAMPTZ(3) NOT NULL,
    "detected_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "note" TEXT,
    "status_changed_by" TEXT,
    "status_changed_at" TIMESTAMPTZ(3),

    CONSTRAINT "incidents_pkey" PRIMARY KEY ("project_id", "id"),
    CONSTRAINT "incidents_message_fkey" FOREIGN KEY ("project_id", "message_id")
        REFERENCES "messages" ("project_id", "id") ON DELETE CASCADE,
    CONSTRAINT "incidents_kind_check" CHECK ("kind" IN ('missed_memory', 'restated_memory', 'stale_memory', 'dropped_reference', 'over_context_window')),
    CONSTRAINT "incidents_severity_check" CHECK ("severity" IN ('high', 'medium', 'low')),
    CONSTRAINT "incidents_status_check" CHECK ("status" IN ('open', 'acknowledged', 'resolved', 'false_positive'))
);

-- A rescan finds the row it made before (ON CONFLICT DO NOTHING keeps its status and note).
CREATE UNIQUE INDEX "incidents_project_id_message_id_kind_subject_key" ON "incidents" ("project_id", "message_id", "kind", "subject");
-- The inbox: newest first, by cursor.
CREATE INDEX "incidents_project_id_detected_at_id_idx" ON "incidents" ("project_id", "detected_at" DESC, "id" DESC);
-- The navigation badge: open high-severity incidents.
CREATE INDEX "incidents_project_id_open_high_idx" ON "incidents" ("project_id") WHERE "status" = 'open' AND "severity" = 'high';
-- A conversation's incidents (its page marks turns), and a user's (erasure, export).
CREATE INDEX "incidents_project_id_conversation_id_idx" ON "incidents" ("project_id", "conversation_id");
CREATE INDEX "incidents_project_id_user_id_idx" ON "incidents" ("project_id", "user_id");
-- The chart: counts per kind per day of the turn.
CREATE INDEX "incidents_project_id_turn_at_idx" ON "incidents" ("project_id", "turn_at");

-- Feedback (issue 38 part 5): an incident marked false_positive suppresses its rule for that
-- memory and that end user; the rules skip a suppressed pair.
CREATE TABLE "incident_suppressions" (
    "project_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "memory_id" UUID NOT NULL,
    "incident_id" UUID NOT NULL,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "incident_suppressions_pkey" PRIMARY KEY ("project_id", "user_id", "kind", "memory_id")
);

-- Backfill scans (POST /incidents/scan): one job per scope at a time. scope: the
-- conversation id, or '*' for the whole project. The partial unique index is the lock that
-- answers 409 naming the running job, across instances.
CREATE TABLE "incident_scans" (
    "project_id" TEXT NOT NULL,
    "id" UUID NOT NULL,
    "scope" TEXT NOT NULL,
    "conversation_id" UUID,
    "since" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL DEFAULT 'running',
    "conversations_total" INTEGER NOT NULL DEFAULT 0,
    "conversations_done" INTEGER NOT NULL DEFAULT 0,
    "turns_scanned" INTEGER NOT NULL DEFAULT 0,
    "incidents_found" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "created_by" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "incident_scans_pkey" PRIMARY KEY ("project_id", "id"),
    CONSTRAINT "incident_scans_status_check" CHECK ("status" IN ('running', 'done', 'failed'))
);

CREATE UNIQUE INDEX "incident_scans_running_scope_key" ON "incident_scans" ("project_id", "scope") WHERE "status" = 'running';
