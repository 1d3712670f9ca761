import "server-only";
import { randomUUID } from "node:crypto";
import { notFound, unprocessable } from "../errors/domain-errors";
import type { ProjectSql } from "../db/project-sql";
import { requireMemory } from "./load-memory";
import { recordEvent } from "./record-event";
import type { Actor } from "./schemas";

type RelationRow = {
  id: string;
  source_id: string;
  target_id: string;
  relation_type: string;
  strength: number;
  note: string | null;
  created_by: Actor;
  created_at: Date | string;
  removed_at: Date | string | null;
};

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);
const serialize = (r: RelationRow) => ({ ...r, strength: Number(r.strength), created_at: iso(r.created_at)!, removed_at: iso(r.removed_at) });

export async function listRelations(sql: ProjectSql, memoryId: string, opts: { includeRemoved?: boolean } = {}) {
  await requireMemory(sql, memoryId);
  const rows = await sql.query<RelationRow>(
    `SELECT id, source_id, target_id, relation_type, strength, note, created_by, created_at, removed_at
       FROM memory_relations WHERE (source_id = $1 OR target_id = $1) AND project_id = $2 ${opts.includeRemoved ? "" : "AND removed_at IS NULL"}
      ORDER BY created_at`,
    [memoryId, sql.projectId],
  );
  return rows.map(serialize);
}

export async function createRelation(
  sql: ProjectSql,
  sourceId: string,
  input: { target_id: string; relation_type: string; strength: number; note?: string; actor?: Actor },
) {
  if (sourceId === input.target_id) throw unprocessable("A memory cannot relate to itself", [{ field: "target_id", message: "same as source" }]);
  return sql.transaction(async (tx) => {
    const source = await requireMemory(tx, sourceId);
    const [target] = await tx.query<{ user_id: string }>(`SELECT user_id FROM memories WHERE id = $1 AND project_id = $2`, [input.target_id, tx.projectId]);
    if (!target) throw unprocessable(`Memory ${input.target_id} does not exist`, [{ field: "target_id", message: "unknown memory" }]);
    if (target.user_id !== source.user_id) throw unprocessable("Relations join memories of one user", [{ field: "target_id", message: "another user's memory" }]);
    const [row] = await tx.query<RelationRow>(
      `INSERT INTO memory_relations (id, source_id, target_id, relation_type, strength, note, created_by, project_id)
       VALUES ($1, $2, $3, $4::memory_relation_type, $5, $6, $7::actor, $8)
       RETURNING id, source_id, target_id, relation_type, strength, note, created_by, created_at, removed_at`,
      [randomUUID(), sourceId, input.target_id, input.relation_type, input.strength, input.note ?? null, input.actor ?? "api", tx.projectId],
    );
    await recordEvent(tx, {
      memoryId: sourceId,
      type: "relate",
      actor: input.actor ?? "api",
      after: { relation: input.relation_type, target_id: input.target_id, strength: input.strength },
      reason: input.note ?? null,
    });
    return serialize(row);
  });
}

/** Soft removal: the relation stays in the table with removed_at set. */
export async function removeRelation(sql: ProjectSql, memoryId: string, relationId: string, actor: Actor = "api") {
  return sql.transaction(async (tx) => {
    const [row] = await tx.query<RelationRow>(
      `UPDATE memory_relations SET removed_at = now()
        WHERE id = $1 AND (source_id = $2 OR target_id = $2) AND project_id = $3 AND removed_at IS NULL
        RETURNING id, source_id, target_id, relation_type, strength, note, created_by, created_at, removed_at`,
      [relationId, memoryId, tx.projectId],
    );
    if (!row) throw notFound("Relation", relationId);
    await recordEvent(tx, { memoryId, type: "relate", actor, before: { relation: row.relation_type, target_id: row.target_id }, reason: "relation removed" });
    return serialize(row);
  });
}
