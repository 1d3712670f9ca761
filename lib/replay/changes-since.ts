import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { parsePgTimestamp } from "../db/parse-timestamp";
import { canonical, type Snapshot } from "../memories/as-of/rebuild-state";
import type { ChangeSince, ReplayResult } from "./schemas";

// What happened to a user's memories after a replayed instant: the replay UI marks its
// memory list "created later", "edited since", "archived since" with it. A row whose
// updated_at is after T changed since (every writer that moves a version sets updated_at
// to its event's time); its state at T is the before-state of its first event after T.

/** Rows answered besides the replay's own memories: the newest changes first. */
export const CHANGES_SINCE_LIMIT = 200;

const EDIT_FIELDS = ["content", "memory_type", "importance_score", "confidence", "structured_data"] as const;

type Row = {
  kind: "newest" | "asked" | "deleted";
  id: string;
  memory_type: ChangeSince["memory_type"];
  content: string;
  status: "active" | "archived";
  structured_data: unknown;
  importance_score: number;
  confidence: number;
  created_at: Date | string;
  updated_at: Date | string;
  then_state: Snapshot | null;
};

const iso = (d: Date | string) => new Date(d).toISOString();
// Times in the packed JSON: PostgreSQL's text, read as the database driver reads it (null stays null).
const ts = (v: string | null) => (v === null ? (null as unknown as Date) : parsePgTimestamp(v, true));

function kindsOf(r: Row, at: string): ChangeSince["changes"] {
  // Made after the turn: nothing of it existed then, so no "content then" and no edit; it may
  // have been archived since all the same, which is said too.
  if (iso(r.created_at) > at) return r.status === "archived" ? ["created_later", "archived_since"] : ["created_later"];
  const then = r.then_state;
  // Changed outside Memscope's writers (no event after T): it changed, the history cannot say how.
  if (!then) return ["edited_since"];
  const out: ChangeSince["changes"] = [];
  const now: Record<string, unknown> = { ...r, importance_score: Number(r.importance_score), confidence: Number(r.confidence) };
  if (EDIT_FIELDS.some((f) => canonical(then[f] ?? null) !== canonical(now[f] ?? null))) out.push("edited_since");
  if (then.status === "active" && r.status === "archived") out.push("archived_since");
  if (then.status === "archived" && r.status === "active") out.push("restored_since");
  return out;
}

/**
 * The user's memories changed after `at`: the newest CHANGES_SINCE_LIMIT, and always those
 * of `ids` (the replay's ranked and explained memories), so each of them is marked.
 */
export async function changesSince(sql: ProjectSql, userId: string, at: string, ids: string[]): Promise<ReplayResult["changes_since"]> {
  // One statement (a scrubber step replays a turn after another): the newest changed rows,
  // those of `ids` past them, and the memories deleted since, told apart by `kind`.
  const cols = `m.id, m.memory_type, m.content, m.status, m.structured_data, m.importance_score, m.confidence, m.created_at, m.updated_at,
    (SELECT e.before FROM memory_events e
      WHERE e.memory_id = m.id AND e.project_id = m.project_id AND e.created_at > $3::timestamptz
        AND e.event_type <> 'relate' AND e.before IS NOT NULL
      ORDER BY e.created_at, (e.before->>'version')::int LIMIT 1) AS then_state`;
  const where = `m.project_id = $1 AND m.user_id = $2 AND m.updated_at > $3::timestamptz`;
  // Packed as one JSON text: up to 400 rows of ten columns, which PGlite would decode column
  // by column in JS (a scrubber step onto an early turn reads the 201 newest changes).
  const [{ rows: packed }] = await sql.query<{ rows: string | null }>(
    `WITH newest AS (SELECT m.id, m.updated_at FROM memories m WHERE ${where} ORDER BY m.updated_at DESC, m.id LIMIT ${CHANGES_SINCE_LIMIT + 1})
     , changed AS (
     (SELECT 'newest' AS kind, ${cols} FROM memories m JOIN newest n ON n.id = m.id AND m.project_id = $1 ORDER BY n.updated_at DESC, n.id)
     UNION ALL
     (SELECT 'asked', ${cols} FROM memories m
       WHERE ${where} AND m.id = ANY($4::uuid[])
         AND m.id NOT IN (SELECT n.id FROM newest n ORDER BY n.updated_at DESC, n.id LIMIT ${CHANGES_SINCE_LIMIT}))
     UNION ALL
     (SELECT 'deleted', d.memory_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, d.created_at, d.before FROM memory_events d
       WHERE d.project_id = $1 AND d.user_id = $2 AND d.event_type = 'delete' AND d.created_at > $3::timestamptz
         AND (d.before->>'created_at' IS NULL OR (d.before->>'created_at')::timestamptz <= $3::timestamptz)
       ORDER BY d.created_at DESC LIMIT ${CHANGES_SINCE_LIMIT}))
     SELECT json_agg(json_build_array(kind, id, memory_type, content, status, structured_data, importance_score, confidence, created_at, updated_at, then_state))::text AS rows FROM changed`,
    [sql.projectId, userId, at, ids],
  );
  type Packed = [Row["kind"], string, Row["memory_type"], string, Row["status"], unknown, number, number, string, string, Snapshot | null];
  const all = (JSON.parse(packed ?? "[]") as Packed[]).map(
    ([kind, id, memory_type, content, status, structured_data, importance_score, confidence, created_at, updated_at, then_state]): Row => ({
      kind,
      id,
      memory_type,
      content,
      status,
      structured_data,
      importance_score,
      confidence,
      created_at: ts(created_at),
      updated_at: ts(updated_at),
      then_state,
    }),
  );
  // Newest change first, then the smaller id (an order a UNION does not keep by itself).
  const at_ = (r: Row) => new Date(r.updated_at).getTime();
  const newest = all.filter((r) => r.kind === "newest").sort((x, y) => at_(y) - at_(x) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  const truncated = newest.length > CHANGES_SINCE_LIMIT;
  const rows = [...newest.slice(0, CHANGES_SINCE_LIMIT), ...all.filter((r) => r.kind === "asked")];
  const deleted = all
    .filter((r) => r.kind === "deleted")
    .sort((x, y) => at_(y) - at_(x))
    .map((r) => ({ memory_id: r.id, before: r.then_state, created_at: r.updated_at }));
  const changed = rows
    .map((r): ChangeSince => ({
      memory_id: r.id,
      changes: kindsOf(r, at),
      memory_type: r.memory_type,
      content: r.content,
      content_then:
        iso(r.created_at) <= at && r.then_state && typeof r.then_state.content === "string" && r.then_state.content !== r.content ? r.then_state.content : null,
      status: r.status,
      created_at: iso(r.created_at),
      changed_at: iso(r.updated_at),
    }))
    // Archived and restored again, or a version moved with nothing visible: the same as then.
    .filter((c) => c.changes.length > 0);
  const gone = deleted.map((d): ChangeSince => {
    const b = d.before ?? {};
    return {
      memory_id: d.memory_id,
      changes: ["deleted_since"],
      memory_type: (typeof b.memory_type === "string" ? b.memory_type : "fact") as ChangeSince["memory_type"],
      content: typeof b.content === "string" ? b.content : "",
      content_then: null,
      status: null,
      created_at: typeof b.created_at === "string" ? iso(b.created_at) : null,
      changed_at: iso(d.created_at),
    };
  });
  return { memories: [...changed, ...gone], truncated: truncated || deleted.length >= CHANGES_SINCE_LIMIT };
}
