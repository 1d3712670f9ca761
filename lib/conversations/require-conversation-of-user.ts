import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { NotFoundError, ValidationError } from "../errors/domain-errors";

/**
 * Refuses a conversation of another end user where a request names both a user and a
 * conversation (context, search, memory create, extract): one person's history must not be
 * mixed with, logged against or turned into another's memories. A conversation without an
 * end user (imports, tests) can be used for anyone.
 *
 * `missing`: whether an unknown conversation is the request's main resource (404) or a
 * field that refers to nothing (422).
 */
export async function requireConversationOfUser(
  sql: ProjectSql,
  conversationId: string,
  userId: string,
  opts: { field: string; missing: "not_found" | "invalid" },
): Promise<void> {
  const [conv] = await sql.query<{ end_user_id: string | null }>(
    `SELECT end_user_id FROM conversations WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL`,
    [conversationId, sql.projectId],
  );
  if (!conv) {
    if (opts.missing === "not_found") throw new NotFoundError("Conversation", conversationId, opts.field);
    throw new ValidationError(`Conversation ${conversationId} does not exist`, [{ field: opts.field, message: "unknown conversation" }]);
  }
  if (conv.end_user_id !== null && conv.end_user_id !== userId) {
    throw new ValidationError(`Conversation ${conversationId} belongs to end user ${conv.end_user_id}, not ${userId}`, [
      { field: opts.field, message: `belongs to end user ${conv.end_user_id}` },
    ]);
  }
}
