-- Memory as of an instant, in SQL (issue 22, performance): see docs/architecture.md,
-- "Memory as of an instant". The state at T of a memory changed since T is the after-snapshot
-- of its last change at or before T. This index is that probe's order (time, then the
-- version within one transaction), without relation events (which change no state), so the
-- probe reads one entry and one row instead of sorting every event of the memory up to T.
-- It serves the first event after T too (the same key read forwards).
CREATE INDEX "memory_events_changes_idx" ON "memory_events" (
  "project_id", "memory_id", "created_at" DESC,
  (COALESCE(("after"->>'version')::int, ("before"->>'version')::int + 1, 0)) DESC
) WHERE "event_type" <> 'relate';


-- The default as-of list reads three index scans that stop at the page (lib/memories/as-of/
-- newest-first-sql.ts); the third, rows changed since T that have no history up to T, is
-- keyed by creation time.
CREATE INDEX "memories_project_id_user_id_created_at_id_idx" ON "memories" ("project_id", "user_id", "created_at" DESC, "id" DESC);
