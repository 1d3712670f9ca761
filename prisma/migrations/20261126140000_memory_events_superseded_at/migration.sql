-- Memory as of an instant (issue 22, performance): when each history event stopped being
-- its memory's state. See docs/architecture.md, "Memory as of an instant".
--
-- superseded_at is the time of the memory's next change (the next event, in the order of
-- lib/memories/as-of/state-sql.ts: time, then the version after it, then id, that moved a
-- version, made or deleted the memory); NULL for its newest change. An event that changed
-- nothing (a relation, an unmerge of an already restored source) was never the state: its
-- superseded_at is its own created_at. So the state of a memory at T is the one event with
--   created_at <= T AND (superseded_at IS NULL OR superseded_at > T)
-- and "the memories changed since T, in their state of T" is a scan of the user's events
-- before T that stops after a page (lib/memories/as-of/newest-first-sql.ts).
-- Triggers keep it, so no writer can forget it: an insert takes its successor's time and
-- gives its own to its predecessor (also for history written out of order, as imports do);
-- an update that moves an event, and a delete, chain the memory's events again.

ALTER TABLE "memory_events" ADD COLUMN "superseded_at" TIMESTAMPTZ(3);

-- Whether an event changed its memory's state (state-sql.ts isChange), and its place among
-- the changes of one instant (state-sql.ts VERSION_AFTER).
CREATE FUNCTION "memory_event_is_change"(e "memory_events") RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT e."event_type" <> 'relate' AND (e."before" IS NULL OR e."after" IS NULL OR e."before"->'version' IS DISTINCT FROM e."after"->'version')
$$;

-- The memory's events chained again from scratch (an event moved or removed).
CREATE FUNCTION "memory_events_rechain"(p TEXT, m UUID) RETURNS void LANGUAGE sql AS $$
  WITH c AS (
    SELECT x."id", CASE WHEN x.chg THEN lead(x."created_at") OVER (PARTITION BY x.chg ORDER BY x."created_at", x.k, x."id") ELSE x."created_at" END AS s
      FROM (SELECT e."id", e."created_at", "memory_event_is_change"(e) AS chg,
                   COALESCE((e."after"->>'version')::int, (e."before"->>'version')::int + 1, 0) AS k
              FROM "memory_events" e WHERE e."project_id" = p AND e."memory_id" = m) x
  )
  UPDATE "memory_events" e SET "superseded_at" = c.s FROM c
   WHERE e."id" = c."id" AND e."superseded_at" IS DISTINCT FROM c.s
$$;

-- Existing history: every memory chained once.
WITH c AS (
  SELECT x."id", CASE WHEN x.chg THEN lead(x."created_at") OVER (PARTITION BY x."project_id", x."memory_id", x.chg ORDER BY x."created_at", x.k, x."id") ELSE x."created_at" END AS s
    FROM (SELECT e."id", e."project_id", e."memory_id", e."created_at", "memory_event_is_change"(e) AS chg,
                 COALESCE((e."after"->>'version')::int, (e."before"->>'version')::int + 1, 0) AS k
            FROM "memory_events" e) x
)
UPDATE "memory_events" e SET "superseded_at" = c.s FROM c WHERE e."id" = c."id" AND c.s IS NOT NULL;

-- An insert: its own superseded_at is its successor's time (none: NULL), unless the writer
-- gave one (bulk loads that chain their rows themselves); a change event given as
-- never-current is corrected too. Rows inserted earlier by the same statement are seen.
CREATE FUNCTION "memory_events_chain_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE k int := COALESCE((NEW."after"->>'version')::int, (NEW."before"->>'version')::int + 1, 0);
BEGIN
  IF NOT "memory_event_is_change"(NEW) THEN
    NEW."superseded_at" := NEW."created_at";
  ELSIF NEW."superseded_at" IS NULL THEN
    SELECT n."created_at" INTO NEW."superseded_at" FROM "memory_events" n
     WHERE n."project_id" = NEW."project_id" AND n."memory_id" = NEW."memory_id" AND n."created_at" >= NEW."created_at"
       AND "memory_event_is_change"(n) AND n."event_type" <> 'relate'
       AND (n."created_at", COALESCE((n."after"->>'version')::int, (n."before"->>'version')::int + 1, 0), n."id") > (NEW."created_at", k, NEW."id")
     ORDER BY n."created_at", COALESCE((n."after"->>'version')::int, (n."before"->>'version')::int + 1, 0), n."id"
     LIMIT 1;
  END IF;
  RETURN NEW;
END
$$;

-- After an insert (every row of the statement in place): its predecessor stops at its time.
CREATE FUNCTION "memory_events_chain_predecessor"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE k int := COALESCE((NEW."after"->>'version')::int, (NEW."before"->>'version')::int + 1, 0);
BEGIN
  IF "memory_event_is_change"(NEW) THEN
    UPDATE "memory_events" p SET "superseded_at" = NEW."created_at"
     WHERE p."id" = (
       SELECT q."id" FROM "memory_events" q
        WHERE q."project_id" = NEW."project_id" AND q."memory_id" = NEW."memory_id" AND q."created_at" <= NEW."created_at"
          AND "memory_event_is_change"(q) AND q."event_type" <> 'relate'
          AND (q."created_at", COALESCE((q."after"->>'version')::int, (q."before"->>'version')::int + 1, 0), q."id") < (NEW."created_at", k, NEW."id")
        ORDER BY q."created_at" DESC, COALESCE((q."after"->>'version')::int, (q."before"->>'version')::int + 1, 0) DESC, q."id" DESC
        LIMIT 1)
       AND p."superseded_at" IS DISTINCT FROM NEW."created_at";
  END IF;
  RETURN NULL;
END
$$;

-- An event moved (its time, memory or snapshots changed): both memories chained again.
CREATE FUNCTION "memory_events_chain_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "memory_events_rechain"(OLD."project_id", OLD."memory_id");
  IF (NEW."project_id", NEW."memory_id") IS DISTINCT FROM (OLD."project_id", OLD."memory_id") THEN
    PERFORM "memory_events_rechain"(NEW."project_id", NEW."memory_id");
  END IF;
  RETURN NULL;
END
$$;

-- Events removed: each memory that still has events chained again (an erasure removes them all).
CREATE FUNCTION "memory_events_chain_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT DISTINCT g."project_id", g."memory_id" FROM gone g
            WHERE EXISTS (SELECT 1 FROM "memory_events" e WHERE e."project_id" = g."project_id" AND e."memory_id" = g."memory_id") LOOP
    PERFORM "memory_events_rechain"(r."project_id", r."memory_id");
  END LOOP;
  RETURN NULL;
END
$$;

CREATE TRIGGER "memory_events_chain_insert" BEFORE INSERT ON "memory_events"
  FOR EACH ROW EXECUTE FUNCTION "memory_events_chain_insert"();
CREATE TRIGGER "memory_events_chain_predecessor" AFTER INSERT ON "memory_events"
  FOR EACH ROW EXECUTE FUNCTION "memory_events_chain_predecessor"();
CREATE TRIGGER "memory_events_chain_update" AFTER UPDATE OF "created_at", "memory_id", "project_id", "event_type", "before", "after" ON "memory_events"
  FOR EACH ROW WHEN (OLD."created_at" IS DISTINCT FROM NEW."created_at" OR OLD."memory_id" IS DISTINCT FROM NEW."memory_id"
                     OR OLD."project_id" IS DISTINCT FROM NEW."project_id" OR OLD."event_type" IS DISTINCT FROM NEW."event_type"
                     OR OLD."before"->'version' IS DISTINCT FROM NEW."before"->'version' OR OLD."after"->'version' IS DISTINCT FROM NEW."after"->'version'
                     OR (OLD."before" IS NULL) <> (NEW."before" IS NULL) OR (OLD."after" IS NULL) <> (NEW."after" IS NULL))
  EXECUTE FUNCTION "memory_events_chain_update"();
CREATE TRIGGER "memory_events_chain_delete" AFTER DELETE ON "memory_events"
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION "memory_events_chain_delete"();

-- History by user and time (it replaces the index of 20261126000000_memory_as_of, whose key
-- is this one's prefix), with when each event stopped being current: the scan of a user's
-- events before T tests "still current at T" on the index entry, so the events that were
-- superseded before T (most of a long history) cost no row fetch.
DROP INDEX "memory_events_project_id_user_id_created_at_idx";
CREATE INDEX "memory_events_user_time_idx" ON "memory_events" ("project_id", "user_id", "created_at", (COALESCE("superseded_at", 'infinity'::timestamptz)));
