import { notFound } from "../errors/domain-errors";
import type { ProjectSql } from "../db/project-sql";
import { MEMORY_COLUMNS, serializeMemory, type MemoryRow } from "./memory-row";
import type { Memory } from "./schemas";

/** A memory by id, or a 404; `forUpdate` locks the row inside a transaction. */
export async function requireMemory(sql: ProjectSql, id: string, opts: { forUpdate?: boolean } = {}): Promise<Memory> {
  const [row] = await sql.query<MemoryRow>(
    `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.id = $1 AND m.project_id = $2 ${opts.forUpdate ? "FOR UPDATE" : ""}`,
    [id, sql.projectId],
  );
  if (!row) throw notFound("Memory", id);
  return serializeMemory(row);
}

export async function loadMemories(sql: ProjectSql, ids: string[]): Promise<Map<string, Memory>> {
  if (!ids.length) return new Map();
  const rows = await sql.query<MemoryRow>(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.id = ANY($1::uuid[]) AND m.project_id = $2`, [ids, sql.projectId]);
  return new Map(rows.map((r) => [r.id, serializeMemory(r)]));
}
