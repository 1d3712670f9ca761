import "server-only";
import type { ProjectSql } from "../../db/project-sql";
import type { Relation } from "../schemas";

// Relations alive at T: made at or before T and not removed by then. A permanently deleted
// memory takes its relations with it (foreign keys cascade); its delete event keeps them
// (since issue 22), so they are read back from there.

type RelationRow = Omit<Relation, "created_at" | "removed_at" | "strength"> & {
  strength: number | string;
  created_at: Date | string;
  removed_at: Date | string | null;
};

const iso = (d: Date | string | null) => (d === null || d === undefined ? null : new Date(d).toISOString());

function aliveAt(r: RelationRow, t: number): boolean {
  return new Date(r.created_at).getTime() <= t && (r.removed_at === null || r.removed_at === undefined || new Date(r.removed_at).getTime() > t);
}

/** By memory id: the relations from and to each of `ids` alive at `asOf`, oldest first, as at that instant (removed_at null). */
export async function relationsAsOf(sql: ProjectSql, ids: string[], asOf: string, userIds: string[]): Promise<Map<string, Relation[]>> {
  const out = new Map<string, Relation[]>(ids.map((id) => [id, []]));
  if (!ids.length) return out;
  const t = new Date(asOf).getTime();
  const rows = await sql.query<RelationRow>(
    `SELECT id, source_id, target_id, relation_type, strength, note, created_by, created_at, removed_at FROM memory_relations
      WHERE project_id = $1 AND (source_id = ANY($2::uuid[]) OR target_id = ANY($2::uuid[]))
        AND created_at <= $3::timestamptz AND (removed_at IS NULL OR removed_at > $3::timestamptz)`,
    [sql.projectId, ids, asOf],
  );
  const kept = await sql.query<{ relations: RelationRow[] | null }>(
    `SELECT before->'relations' AS relations FROM memory_events
      WHERE project_id = $1 AND user_id = ANY($2::text[]) AND event_type = 'delete' AND created_at > $3::timestamptz AND before ? 'relations'`,
    [sql.projectId, userIds, asOf],
  );
  const seen = new Set<string>();
  const wanted = new Set(ids);
  const all = [...rows, ...kept.flatMap((k) => k.relations ?? [])].filter((r) => {
    if (seen.has(r.id) || !aliveAt(r, t) || (!wanted.has(r.source_id) && !wanted.has(r.target_id))) return false;
    seen.add(r.id);
    return true;
  });
  all.sort((a, b) => new Date(a.created_at).getTime() - new Date(b.created_at).getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const r of all) {
    const rel: Relation = { ...r, strength: Number(r.strength), created_at: iso(r.created_at)!, removed_at: null };
    out.get(r.source_id)?.push(rel);
    if (r.target_id !== r.source_id) out.get(r.target_id)?.push(rel);
  }
  return out;
}
