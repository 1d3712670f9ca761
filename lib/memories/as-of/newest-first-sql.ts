import "server-only";
import type { ProjectSql } from "../../db/project-sql";
import { CURRENT_AT_T, field, isChange } from "./state-sql";

// The default as-of list (newest change first) without computing the state of every memory:
// a page read off three index scans that stop early, merged. Same rows and order as
// stateCtes() + ORDER BY updated_at DESC, id DESC, for any T:
// - a: rows unchanged since T (updated_at <= T), their own state, newest first through
//   memories (project_id, user_id, status, updated_at DESC, id DESC);
// - b: rows changed since T and memories deleted since: the state is their event current
//   at T (superseded_at after T), read backwards from T through memory_events (project_id,
//   user_id, created_at, superseded_at), only down to the page's last key in `a`, stopping
//   at the page;
// - c: rows changed since T with no change recorded up to T (written before history was
//   kept): shown as created, keyed by created_at (memories (project_id, user_id, created_at)),
//   only down to the page's last key in a and b.
// Three statements rather than one: each plans in a few milliseconds and keeps its plan
// (one with all three took longer to plan than to run, and sorted every event before T).

export type StateFilter = { status?: string; memory_type?: string; min_importance?: number; max_importance?: number };
type Fields = { status: string; memory_type: string; importance_score: string };
type Row = { id: string; k: Date | string };

const T = "$3::timestamptz";

export async function newestFirstIds(
  sql: ProjectSql,
  o: { userId: string; at: string; filter: StateFilter; cursor: { key: string; id: string } | null; n: number },
): Promise<Row[]> {
  const query = (text: (x: { where: (f: Fields, key: string, id: string) => string; floor: string }) => string, floor: string | null, more: unknown[] = []) => {
    const params: unknown[] = [sql.projectId, o.userId, o.at, o.n, ...more];
    const p = (v: unknown) => (params.push(v), `$${params.length}`);
    const where = (f: Fields, key: string, id: string) => {
      const c: string[] = [];
      if (o.filter.status !== undefined) c.push(`${f.status} = ${p(o.filter.status)}`);
      if (o.filter.memory_type !== undefined) c.push(`${f.memory_type} = ${p(o.filter.memory_type)}`);
      if (o.filter.min_importance !== undefined) c.push(`${f.importance_score} >= ${p(o.filter.min_importance)}`);
      if (o.filter.max_importance !== undefined) c.push(`${f.importance_score} <= ${p(o.filter.max_importance)}`);
      if (o.cursor) c.push(`(${key}, ${id}) < (${p(o.cursor.key)}::timestamptz, ${p(o.cursor.id)}::uuid)`);
      return c.map((x) => ` AND ${x}`).join("");
    };
    const text_ = text({ where, floor: floor === null ? "" : ` AND k_floor >= ${p(floor)}::timestamptz` });
    return sql.query<Row>(text_, params);
  };
  // The columns themselves (enums), so memories (project_id, user_id, status, updated_at DESC, id DESC) serves `a`.
  const row: Fields = { status: "m.status", memory_type: "m.memory_type", importance_score: "m.importance_score" };
  const a = await query(
    ({ where }) => `SELECT m.id, m.updated_at AS k FROM memories m
      WHERE m.project_id = $1 AND m.user_id = $2 AND m.updated_at <= ${T} AND m.created_at <= ${T}${where(row, "m.updated_at", "m.id")}
      ORDER BY m.updated_at DESC, m.id DESC LIMIT $4`,
    null,
  );
  // A field of the state: the snapshot's, else (a snapshot lacking it) the row's or the delete's.
  const tomb = (name: string) =>
    `(SELECT d.before->>'${name}' FROM memory_events d WHERE d.project_id = $1 AND d.memory_id = e.memory_id AND d.event_type = 'delete' AND d.created_at > ${T} ORDER BY d.created_at DESC LIMIT 1)`;
  const snap: Fields = {
    status: field("status", `COALESCE(r.status::text, ${tomb("status")})`, "", "e"),
    memory_type: field("memory_type", `COALESCE(r.memory_type::text, ${tomb("memory_type")})`, "", "e"),
    importance_score: field("importance_score", `COALESCE(r.importance_score, ${tomb("importance_score")}::float8)`, "::float8", "e"),
  };
  // b: the user's events current at T (superseded_at after T, or never: migration
  // 20261126140000_memory_events_superseded_at) read backwards from T through
  // memory_events_user_time_idx, whose key holds superseded_at, so the events superseded
  // before T are skipped on the index; kept when their memory changed since T or was
  // deleted since. Only down to the page's last key in `a`, and only until the page is full.
  const bFloor = a.length >= o.n ? iso(a[a.length - 1].k) : null;
  const b = await query(
    ({ where, floor }) => `SELECT e.memory_id AS id, e.created_at AS k FROM memory_events e
        LEFT JOIN LATERAL (SELECT r.id, r.updated_at, r.status, r.memory_type, r.importance_score FROM memories r
                            WHERE r.project_id = $1 AND r.id = e.memory_id AND r.user_id = $2 AND r.created_at <= ${T} LIMIT 1) r ON true
      WHERE e.project_id = $1 AND e.user_id = $2 AND e.created_at <= ${T} AND ${CURRENT_AT_T("e")}${floor.replace("k_floor", "e.created_at")}
        AND e.event_type <> 'delete'
        AND (r.updated_at > ${T}
             OR (r.id IS NULL AND EXISTS (SELECT 1 FROM memory_events d WHERE d.project_id = $1 AND d.user_id = $2 AND d.memory_id = e.memory_id
                                            AND d.event_type = 'delete' AND d.created_at > ${T})))${where(snap, "e.created_at", "e.memory_id")}
      ORDER BY e.created_at DESC, e.memory_id DESC LIMIT $4`,
    bFloor,
  );
  const ab = merge([...a, ...b]);
  const c = await query(
    ({ where, floor }) => `SELECT m.id, m.created_at AS k FROM memories m
      WHERE m.project_id = $1 AND m.user_id = $2 AND m.created_at <= ${T} AND m.updated_at > ${T}${floor.replace("k_floor", "m.created_at")}
        AND NOT EXISTS (SELECT 1 FROM memory_events l WHERE l.project_id = $1 AND l.memory_id = m.id AND l.created_at <= ${T} AND ${isChange("l")})
        ${where(row, "m.created_at", "m.id")}
      ORDER BY m.created_at DESC, m.id DESC LIMIT $4`,
    ab.length >= o.n ? iso(ab[o.n - 1].k) : null,
  );
  return merge([...ab, ...c]).slice(0, o.n);
}

const iso = (k: Date | string) => new Date(k).toISOString();

/** Newest first, then the greater id (uuid order is the order of their lowercase text). */
function merge(rows: Row[]): Row[] {
  const ms = new Map(rows.map((r) => [r, new Date(r.k).getTime()]));
  return rows.sort((x, y) => ms.get(y)! - ms.get(x)! || (x.id < y.id ? 1 : x.id > y.id ? -1 : 0));
}
