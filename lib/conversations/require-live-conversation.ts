import "server-only";
import { notFound } from "../errors/domain-errors";
import type { ProjectSql } from "../db/project-sql";

/** A 404 unless the conversation exists and is not deleted: one indexed lookup, for hot paths. */
export async function requireLiveConversation(sql: ProjectSql, id: string): Promise<void> {
  const rows = await sql.query(`SELECT 1 FROM conversations WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL`, [id, sql.projectId]);
  if (!rows.length) throw notFound("Conversation", id);
}
