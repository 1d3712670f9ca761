import "server-only";
import type { ProjectSql } from "../db/project-sql";
import type { ConversationCreate } from "./schemas";

/**
 * A conversation stored as createConversation stores it (same columns and defaults), through a
 * transaction's own connection: a writer that adds turns in the same transaction cannot go
 * through the ORM, whose connection would wait for that transaction's locks.
 */
export async function insertConversationRow(sql: ProjectSql, c: ConversationCreate): Promise<void> {
  await sql.query(
    `INSERT INTO conversations (id, project_id, app_id, end_user_id, name, mode, model_config, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, COALESCE($9::timestamptz, now()), COALESCE($9::timestamptz, now()))`,
    [c.id, sql.projectId, c.app_id, c.end_user_id ?? null, c.name, c.mode, c.model_config == null ? null : JSON.stringify(c.model_config), c.status, c.created_at ?? null],
  );
}
