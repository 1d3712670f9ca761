import "server-only";

// The state at T of every memory of one user, computed in SQL (issue 22, performance): what
// a list sorts, filters and pages on and what a search picks its candidates from, so only
// the rows an answer holds leave the database and are rebuilt in JavaScript (rebuildAt,
// with every check). The rules are rebuildAt's / fastStateAt's, field for field:
// - a row not changed since T (updated_at <= T) is its own state;
// - a row changed since T, and a memory deleted since T (its delete event's snapshot), is
//   the after-snapshot of its last change at or before T (fields the snapshot lacks come
//   from the row or the delete snapshot); none: a row shows itself, updated then created;
//   a deleted one is absent. A last change that is a delete: absent.
// Parameters: $1 project, $2 user, $3 T (ISO). The CTEs end in `state`.

/** The order of changes inside one transaction (same created_at): a delete comes after the last change. */
export const versionAfter = (e: string) => `COALESCE((${e}.after->>'version')::int, (${e}.before->>'version')::int + 1, 0)`;
export const VERSION_AFTER = versionAfter("e");

/** An event that changed the memory's state: a version moved, or it was made or deleted (relations change none). */
export const isChange = (e: string) =>
  `${e}.event_type <> 'relate' AND (${e}.before IS NULL OR ${e}.after IS NULL OR ${e}.before->'version' IS DISTINCT FROM ${e}.after->'version')`;

/**
 * Whether event `e` (at or before T) was still its memory's state at T: no change followed it
 * up to T (superseded_at, kept by triggers: migration 20261126140000_memory_events_superseded_at;
 * an event that changed nothing has its own time there, so it never is). Spelled as the key
 * of memory_events_user_time_idx, so the test runs on the index entry.
 */
export const CURRENT_AT_T = (e: string) => `COALESCE(${e}.superseded_at, 'infinity'::timestamptz) > $3::timestamptz`;

/**
 * The last event at or before T that changed memory x.id (a version moved, or it was made or
 * deleted). Served by memory_events_changes_idx (migration 20261126090000_as_of_indexes):
 * its key is this ORDER BY, its predicate the event_type test, so the probe reads one index
 * entry and one row (no-op events, rare, are skipped on the row).
 */
export const PREV_SQL = `
  SELECT e.event_type, e.after, e.before, e.created_at FROM memory_events e
   WHERE e.project_id = $1 AND e.memory_id = x.id AND e.created_at <= $3::timestamptz AND ${isChange("e")}
   ORDER BY e.created_at DESC, ${VERSION_AFTER} DESC
   LIMIT 1`;

/** A field of the state: the snapshot's when it has it, else the base's (row or delete snapshot). */
export const field = (name: string, base: string, cast = "", p = "p") =>
  `CASE WHEN ${p}.after ? '${name}' THEN (${p}.after->>'${name}')${cast} ELSE ${base} END`;

/**
 * The CTEs ending in `state` (id, memory_type, status, importance_score, content, same_content,
 * created_at, updated_at). Without `content` (a list not filtered by text), content is read as
 * null and same_content as false: 10 000 texts cost more to carry than the rest of the state.
 */
export function stateCtes(opts: { content: boolean; changedOnly?: boolean }): string {
  const content = (col: string) => (opts.content ? col : "NULL::text");
  // changedOnly: only the memories changed since T and those deleted since (an as-of search
  // finds the unchanged ones as a live search does). Every status spelled out, so the
  // (user_id, status, updated_at) index serves the range.
  const changed = opts.changedOnly ? ` AND m.updated_at > $3::timestamptz AND m.status = ANY(enum_range(NULL::memory_status))` : "";
  return `
  live AS (
    SELECT m.id, m.memory_type::text AS memory_type, m.status::text AS status, m.importance_score, ${content("m.content")} AS content, m.created_at, m.updated_at
      FROM memories m
     WHERE m.project_id = $1 AND m.user_id = $2 AND m.created_at <= $3::timestamptz${changed}
  ),
  tomb AS (
    SELECT DISTINCT ON (d.memory_id) d.memory_id AS id, d.before
      FROM memory_events d
     WHERE d.project_id = $1 AND d.user_id = $2 AND d.event_type = 'delete' AND d.created_at > $3::timestamptz
       AND NOT EXISTS (SELECT 1 FROM live l WHERE l.id = d.memory_id)
     ORDER BY d.memory_id, d.created_at DESC
  ),
  moved AS (
    SELECT l.id, true AS is_live, l.memory_type, l.status, l.importance_score, l.content, l.created_at
      FROM live l WHERE l.updated_at > $3::timestamptz
    UNION ALL
    SELECT t.id, false, t.before->>'memory_type', t.before->>'status', (t.before->>'importance_score')::float8, ${content("t.before->>'content'")},
           (t.before->>'created_at')::timestamptz
      FROM tomb t
  ),
  state AS (
    SELECT l.id, l.memory_type, l.status, l.importance_score, l.content, ${opts.content} AS same_content, l.created_at, l.updated_at
      FROM live l WHERE l.updated_at <= $3::timestamptz
    UNION ALL
    SELECT x.id, ${field("memory_type", "x.memory_type")}, ${field("status", "x.status")}, ${field("importance_score", "x.importance_score", "::float8")},
           ${opts.content ? field("content", "x.content") : "NULL::text"},
           ${opts.content ? `COALESCE(x.is_live AND ${field("content", "x.content")} = x.content, false)` : "false"},
           COALESCE(x.created_at, p.created_at), COALESCE(p.created_at, x.created_at)
      FROM moved x LEFT JOIN LATERAL (${PREV_SQL}) p ON true
     WHERE p.event_type IS DISTINCT FROM 'delete' AND (p.event_type IS NOT NULL OR x.is_live)
  )`;
}

// Which retrievals counted as accesses: those that say so, and (logged before the column
// existed) those that were no dry run.
export const COUNTED = `COALESCE(r.access_recorded, NOT r.dry_run)`;

/** Accesses up to T of the user's memories, from the retrieval log ($1 project, $2 user, $3 T). */
export const ACCESS_CTE = `
  acc AS (
    SELECT h.memory_id AS id, count(*)::int AS n, max(r.created_at) AS last
      FROM memory_retrievals r JOIN memory_retrieval_hits h ON h.retrieval_id = r.id AND h.project_id = r.project_id
     WHERE r.project_id = $1 AND r.user_id = $2 AND r.created_at <= $3::timestamptz AND ${COUNTED}
     GROUP BY h.memory_id
  )`;
