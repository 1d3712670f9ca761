import "server-only";
import type { ProjectSql } from "../../db/project-sql";
import { MEMORY_COLUMNS, serializeMemory, type MemoryRow } from "../memory-row";
import type { MemoryProbe, ProbeEvent, Snapshot } from "./rebuild-state";
import { COUNTED, PREV_SQL, VERSION_AFTER } from "./state-sql";
import { parsePgTimestamp } from "../../db/parse-timestamp";

// Reads, for each memory of a user (or for some ids), what rebuildAt needs about T: the row
// now, its delete snapshot, the last change at or before T and the first event after it
// (two index probes per memory on memory_events (memory_id, created_at)), and its accesses
// from the retrieval log. Cost grows with the user's memories, not with their history.

export type ProbeScope = { userId: string } | { ids: string[] };

type DeleteRow = { memory_id: string; user_id: string | null; before: Snapshot | null };
type EdgeRow = {
  id: string;
  p_type: string | null;
  p_after: Snapshot | null;
  p_made: boolean | null;
  p_at: Date | string | null;
  n_type: string | null;
  n_before: Snapshot | null;
  n_at: Date | string | null;
};
type AccessRow = { memory_id: string; n: string | number; last: Date | string | null; total: string | number; total_last: Date | string | null };

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

const LIGHT_COLUMNS = `m.id, m.app_id, m.user_id, m.memory_type, '' AS content, NULL::jsonb AS structured_data, m.source_session_id,
  m.importance_score, m.access_count, m.last_accessed_at, m.status, m.confidence, m.version, m.created_at, m.updated_at`;

/**
 * The cheap probe of every memory of a user, for sorting and filtering a whole list: a row
 * not changed since T (updated_at <= T: every writer that moves a version sets updated_at
 * to its event's time) is its own state at T and needs no history; a row made after T is
 * absent. Only rows changed since T, and memories deleted since, probe their last change
 * at or before T. `next` is left out: whether the history is complete (rebuildAt's checks)
 * is decided by probeMemories, for the rows a page or a search actually answers.
 */
export async function probeUserFast(
  sql: ProjectSql,
  asOf: string,
  userId: string,
  opts: { light?: boolean; ids?: string[] } = {},
): Promise<(MemoryProbe & { fast: boolean })[]> {
  // Light: what sorting and filtering a list reads (no content, no structured data): 10 000
  // rows of text cost more to transfer than to rebuild. The rows answered are read in full.
  const columns = opts.light ? LIGHT_COLUMNS : MEMORY_COLUMNS;
  // Some ids only (a search's candidates): the same probe, restricted to them.
  const only = opts.ids ? ` AND m.id = ANY($4::uuid[])` : "";
  const onlyEvents = opts.ids ? ` AND memory_id = ANY($4::uuid[])` : "";
  const params = opts.ids ? [sql.projectId, userId, asOf, opts.ids] : [sql.projectId, userId, asOf];
  // Some ids (a search's candidates, a replay's): rows, deletes and accesses in one statement.
  if (opts.ids && !opts.light) return assembleFast(sql, asOf, await readIdsPacked(sql, asOf, userId, opts.ids), false);
  const rows = await sql.query<MemoryRow>(
    `SELECT ${columns} FROM memories m WHERE m.project_id = $1 AND m.user_id = $2 AND m.created_at <= $3::timestamptz${only}`,
    params,
  );
  const deleted = await sql.query<DeleteRow>(
    `SELECT memory_id, user_id, before FROM memory_events
      WHERE project_id = $1 AND user_id = $2 AND event_type = 'delete' AND created_at > $3::timestamptz${onlyEvents}
      ORDER BY created_at`,
    params,
  );
  const access = await userAccess(sql, userId, asOf, opts.ids);
  return assembleFast(sql, asOf, { rows, deleted, access }, opts.light ?? false);
}

type FastReads = { rows: MemoryRow[]; deleted: DeleteRow[]; access: Map<string, AccessRow> };

const ts = (v: string | null) => (v === null ? null : parsePgTimestamp(v, true));

/**
 * probeUserFast's three reads for some ids (rows in full, deletes since T, accesses) as one
 * statement of packed JSON: a replay asks this for its ~100 candidates at every scrubber step,
 * and PGlite decodes a row set column by column in JS (15 columns of 100 rows cost more than
 * the statement itself) and charges each statement a fixed cost besides. The rows are the
 * very ones the three statements read (tests/api/replay-probe-packed.test.ts compares them).
 */
async function readIdsPacked(sql: ProjectSql, asOf: string, userId: string, ids: string[]): Promise<FastReads> {
  const [r] = await sql.query<{ rows: string | null; deleted: string | null; access: string | null }>(
    `SELECT
       (SELECT json_agg(json_build_array(m.id, m.app_id, m.user_id, m.memory_type, m.content, m.structured_data, m.source_session_id,
                                         m.importance_score, m.access_count, m.last_accessed_at, m.status, m.confidence, m.version, m.created_at, m.updated_at))::text
          FROM memories m WHERE m.project_id = $1 AND m.user_id = $2 AND m.created_at <= $3::timestamptz AND m.id = ANY($4::uuid[])) AS rows,
       (SELECT json_agg(json_build_array(d.memory_id, d.user_id, d.before) ORDER BY d.created_at)::text
          FROM memory_events d
         WHERE d.project_id = $1 AND d.user_id = $2 AND d.event_type = 'delete' AND d.created_at > $3::timestamptz AND d.memory_id = ANY($4::uuid[])) AS deleted,
       (SELECT json_agg(json_build_array(a.memory_id, a.n, a.last, a.total, a.total_last))::text
          FROM (SELECT h.memory_id, count(*) FILTER (WHERE r.created_at <= $3::timestamptz) AS n, max(r.created_at) FILTER (WHERE r.created_at <= $3::timestamptz) AS last,
                       count(*) AS total, max(r.created_at) AS total_last
                  FROM memory_retrievals r JOIN memory_retrieval_hits h ON h.retrieval_id = r.id AND h.project_id = r.project_id
                 WHERE r.project_id = $1 AND r.user_id = $2 AND ${COUNTED} AND h.memory_id = ANY($4::uuid[])
                 GROUP BY h.memory_id) a) AS access`,
    [sql.projectId, userId, asOf, ids],
  );
  type RowPacked = [string, string | null, string, MemoryRow["memory_type"], string, MemoryRow["structured_data"], string | null, number, number, string | null, MemoryRow["status"], number, number, string, string];
  const rows = (JSON.parse(r.rows ?? "[]") as RowPacked[]).map(
    ([id, app_id, user_id, memory_type, content, structured_data, source_session_id, importance_score, access_count, last_accessed_at, status, confidence, version, created_at, updated_at]): MemoryRow => ({
      id,
      app_id,
      user_id,
      memory_type,
      content,
      structured_data,
      source_session_id,
      importance_score,
      access_count,
      last_accessed_at: ts(last_accessed_at),
      status,
      confidence,
      version,
      created_at: ts(created_at)!,
      updated_at: ts(updated_at)!,
    }),
  );
  const deleted = (JSON.parse(r.deleted ?? "[]") as [string, string | null, Snapshot | null][]).map(([memory_id, user_id, before]) => ({ memory_id, user_id, before }));
  const access = new Map(
    (JSON.parse(r.access ?? "[]") as [string, number, string | null, number, string | null][]).map(([memory_id, n, last, total, total_last]) => [
      memory_id,
      { memory_id, n, last: ts(last), total, total_last: ts(total_last) },
    ]),
  );
  return { rows, deleted, access };
}

async function assembleFast(sql: ProjectSql, asOf: string, { rows, deleted, access }: FastReads, light: boolean): Promise<(MemoryProbe & { fast: boolean })[]> {
  const t = new Date(asOf).getTime();
  const live = rows.map(serializeMemory);
  const changed = live.filter((m) => new Date(m.updated_at).getTime() > t).map((m) => m.id);
  const liveIds = new Set(live.map((m) => m.id));
  const tombs = new Map(deleted.filter((d) => !liveIds.has(d.memory_id)).map((d) => [d.memory_id, d]));
  const probed = await lastChanges(sql, [...changed, ...tombs.keys()], asOf, light);
  const out: (MemoryProbe & { fast: boolean })[] = [];
  const accessOf = (id: string) => {
    const a = access.get(id);
    return { count: Number(a?.n ?? 0), last: iso(a?.last ?? null), total: Number(a?.total ?? 0), totalLast: iso(a?.total_last ?? null) };
  };
  for (const m of live) {
    // A row changed since T with no change recorded up to T is no state of T either:
    // rebuildAt decides (its creation, flagged), as for the rows answered.
    const fast = new Date(m.updated_at).getTime() <= t;
    out.push({ id: m.id, user_id: m.user_id, live: m, tombstone: null, prev: probed.get(m.id) ?? null, next: null, access: accessOf(m.id), fast });
  }
  for (const [id, d] of tombs) {
    out.push({ id, user_id: d.user_id ?? "", live: null, tombstone: d.before, prev: probed.get(id) ?? null, next: null, access: accessOf(id), fast: false });
  }
  return out;
}

/** The last change at or before T of each memory (see MemoryProbe.prev). */
async function lastChanges(sql: ProjectSql, ids: string[], asOf: string, light: boolean): Promise<Map<string, ProbeEvent>> {
  if (!ids.length) return new Map();
  // Light: the snapshot without its text (content, structured data read as empty).
  const after = light ? `p.after - 'content' - 'structured_data' || jsonb_build_object('content', '', 'structured_data', NULL)` : "p.after";
  const rows = await sql.query<Pick<EdgeRow, "id" | "p_type" | "p_after" | "p_made" | "p_at">>(
    `SELECT x.id, p.event_type AS p_type, CASE WHEN p.after ? 'content' THEN ${after} ELSE p.after END AS p_after, p.before IS NULL AS p_made, p.created_at AS p_at
       FROM unnest($2::uuid[]) AS x(id)
       JOIN LATERAL (${PREV_SQL}) p ON true`,
    [sql.projectId, ids, asOf],
  );
  return new Map(rows.map((e) => [e.id, { event_type: e.p_type!, before: e.p_made ? null : {}, after: e.p_after, created_at: iso(e.p_at)! }]));
}

async function userAccess(sql: ProjectSql, userId: string, asOf: string, ids?: string[]): Promise<Map<string, AccessRow>> {
  const rows = await sql.query<AccessRow>(
    `SELECT h.memory_id, count(*) FILTER (WHERE r.created_at <= $3::timestamptz) AS n, max(r.created_at) FILTER (WHERE r.created_at <= $3::timestamptz) AS last,
            count(*) AS total, max(r.created_at) AS total_last
       FROM memory_retrievals r JOIN memory_retrieval_hits h ON h.retrieval_id = r.id AND h.project_id = r.project_id
      WHERE r.project_id = $1 AND r.user_id = $2 AND ${COUNTED}${ids ? " AND h.memory_id = ANY($4::uuid[])" : ""}
      GROUP BY h.memory_id`,
    ids ? [sql.projectId, userId, asOf, ids] : [sql.projectId, userId, asOf],
  );
  return new Map(rows.map((a) => [a.memory_id, a]));
}

/** Everything rebuildAt needs, for a few memories (a page, a search's hits, one memory). */
export async function probeMemories(sql: ProjectSql, asOf: string, scope: ProbeScope): Promise<MemoryProbe[]> {
  const byUser = "userId" in scope;
  const liveRows = byUser
    ? await sql.query<MemoryRow>(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.project_id = $1 AND m.user_id = $2`, [sql.projectId, scope.userId])
    : await sql.query<MemoryRow>(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.project_id = $1 AND m.id = ANY($2::uuid[])`, [sql.projectId, scope.ids]);
  // Memories deleted after T were alive then (those deleted before are gone at T anyway).
  const deleted = byUser
    ? await sql.query<DeleteRow>(
        `SELECT memory_id, user_id, before FROM memory_events
          WHERE project_id = $1 AND user_id = $2 AND event_type = 'delete' AND created_at > $3::timestamptz
          ORDER BY created_at`,
        [sql.projectId, scope.userId, asOf],
      )
    : await sql.query<DeleteRow>(
        `SELECT memory_id, user_id, before FROM memory_events
          WHERE project_id = $1 AND memory_id = ANY($2::uuid[]) AND event_type = 'delete' AND created_at > $3::timestamptz
          ORDER BY created_at`,
        [sql.projectId, scope.ids, asOf],
      );
  const live = new Map(liveRows.map((r) => [r.id, serializeMemory(r)]));
  const tombs = new Map(deleted.filter((d) => !live.has(d.memory_id)).map((d) => [d.memory_id, d]));
  const ids = [...live.keys(), ...tombs.keys()];
  if (!ids.length) return [];

  const edges = await sql.query<EdgeRow>(
    `SELECT x.id, p.event_type AS p_type, p.after AS p_after, p.before IS NULL AS p_made, p.created_at AS p_at,
            n.event_type AS n_type, n.before AS n_before, n.created_at AS n_at
       FROM unnest($2::uuid[]) AS x(id)
       LEFT JOIN LATERAL (${PREV_SQL}) p ON true
       LEFT JOIN LATERAL (
         SELECT e.event_type, e.before, e.created_at FROM memory_events e
          WHERE e.project_id = $1 AND e.memory_id = x.id AND e.created_at > $3::timestamptz AND e.event_type <> 'relate'
          ORDER BY e.created_at ASC, ${VERSION_AFTER} ASC
          LIMIT 1) n ON true`,
    [sql.projectId, ids, asOf],
  );

  const accessRows = byUser
    ? await sql.query<AccessRow>(
        `SELECT h.memory_id, count(*) FILTER (WHERE r.created_at <= $3::timestamptz) AS n, max(r.created_at) FILTER (WHERE r.created_at <= $3::timestamptz) AS last,
                count(*) AS total, max(r.created_at) AS total_last
           FROM memory_retrievals r JOIN memory_retrieval_hits h ON h.retrieval_id = r.id AND h.project_id = r.project_id
          WHERE r.project_id = $1 AND r.user_id = $2 AND ${COUNTED}
          GROUP BY h.memory_id`,
        [sql.projectId, scope.userId, asOf],
      )
    : await sql.query<AccessRow>(
        `SELECT h.memory_id, count(*) FILTER (WHERE r.created_at <= $3::timestamptz) AS n, max(r.created_at) FILTER (WHERE r.created_at <= $3::timestamptz) AS last,
                count(*) AS total, max(r.created_at) AS total_last
           FROM memory_retrieval_hits h JOIN memory_retrievals r ON r.id = h.retrieval_id AND r.project_id = h.project_id
          WHERE h.project_id = $1 AND h.memory_id = ANY($2::uuid[]) AND ${COUNTED}
          GROUP BY h.memory_id`,
        [sql.projectId, ids, asOf],
      );
  const access = new Map(accessRows.map((a) => [a.memory_id, a]));

  return edges.map((e) => {
    const row = live.get(e.id) ?? null;
    const tomb = tombs.get(e.id);
    const a = access.get(e.id);
    const prev: ProbeEvent | null = e.p_type
      ? { event_type: e.p_type, before: e.p_made ? null : {}, after: e.p_after, created_at: iso(e.p_at)! }
      : null;
    const next: ProbeEvent | null = e.n_type ? { event_type: e.n_type, before: e.n_before, after: null, created_at: iso(e.n_at)! } : null;
    return {
      id: e.id,
      user_id: row?.user_id ?? tomb?.user_id ?? "",
      live: row,
      tombstone: tomb?.before ?? null,
      prev,
      next,
      access: { count: Number(a?.n ?? 0), last: iso(a?.last ?? null), total: Number(a?.total ?? 0), totalLast: iso(a?.total_last ?? null) },
    };
  });
}
