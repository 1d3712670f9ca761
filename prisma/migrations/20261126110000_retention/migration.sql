-- Retention rules (lib/retention, issue 24 part 4): per project, what to delete, erase or
-- archive once it is older than `days`. Each rule runs daily on one instance at a time: the
-- run claims the rule by moving `next_run_at` a day on (under an advisory lock), so a second
-- instance finds it no longer due. Runs are recorded in the audit log ("retention.run").
CREATE TABLE "retention_rules" (
    "project_id" TEXT NOT NULL,
    "id" UUID NOT NULL,
    -- delete_conversations | erase_inactive_users | archive_memories
    "kind" TEXT NOT NULL,
    "days" INTEGER NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "next_run_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_run_at" TIMESTAMPTZ(3),

    CONSTRAINT "retention_rules_pkey" PRIMARY KEY ("project_id", "id"),
    CONSTRAINT "retention_rules_kind_check" CHECK ("kind" IN ('delete_conversations', 'erase_inactive_users', 'archive_memories')),
    CONSTRAINT "retention_rules_days_check" CHECK ("days" BETWEEN 1 AND 36500)
);

-- The scheduler's one query when idle: enabled rules that are due, across projects.
CREATE INDEX "retention_rules_due_idx" ON "retention_rules" ("next_run_at") WHERE "enabled";

-- A rule's last runs (the settings page): audit events by target.
CREATE INDEX "audit_events_project_id_action_target_idx" ON "audit_events" ("project_id", "action", "target", "created_at" DESC);

-- "Archive memories not accessed for N days" finds candidates by status and time.
CREATE INDEX "memories_project_id_status_last_used_idx" ON "memories" ("project_id", "status", (coalesce("last_accessed_at", "created_at")));
