import "server-only";
import { notFound } from "../errors/domain-errors";
import type { ProjectSql } from "../db/project-sql";

/** Whose text was offloaded: an erasure of that user removes it (lib/privacy). Absent for a pasted history. */
export type OffloadOwner = { userId: string; conversationId: string | null };

export async function storeOffloads(sql: ProjectSql, offloads: { ref: string; content: string; tokens: number }[], owner?: OffloadOwner): Promise<void> {
  if (!offloads.length) return;
  await sql.query(
    `INSERT INTO offloaded_contents (ref, content, tokens, project_id, user_id, conversation_id)
     SELECT *, $4, $5, $6::uuid FROM unnest($1::uuid[], $2::text[], $3::int[])`,
    [offloads.map((o) => o.ref), offloads.map((o) => o.content), offloads.map((o) => o.tokens), sql.projectId, owner?.userId ?? null, owner?.conversationId ?? null],
  );
}

export async function readOffload(sql: ProjectSql, ref: string) {
  const [row] = await sql.query<{ ref: string; content: string; tokens: number; created_at: Date | string }>(
    `SELECT ref, content, tokens, created_at FROM offloaded_contents WHERE ref = $1 AND project_id = $2`,
    [ref, sql.projectId],
  );
  if (!row) throw notFound("Offloaded content", ref);
  return { ...row, created_at: new Date(row.created_at).toISOString() };
}
