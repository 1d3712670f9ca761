import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { NotFoundError, ValidationError } from "../errors/domain-errors";
import { loadThreadIds } from "../threads/load-thread";
import { UUID_NIL } from "../threads/uuid-nil";

/** A turn to replay with the conversation it belongs to and where its history ends. */
export type ReplayTurn = {
  conversationId: string;
  appId: string;
  endUserId: string | null;
  messageId: string;
  query: string;
  /** Exact ISO time of the turn (millisecond precision, as stored). */
  createdAt: string;
  /**
   * The last turn of the thread before this one, by Dify's thread rule (the parent, or the
   * row just before it when the parent is UUID_NIL); null when the turn starts its thread.
   */
  leafId: string | null;
  /** Turns before it in its thread. */
  index: number;
};

/**
 * Reads a turn of a conversation of the caller's project. An unknown conversation, a
 * conversation of another project and a message of another conversation all answer 404.
 */
export async function loadReplayTurn(sql: ProjectSql, conversationId: string, messageId: string): Promise<ReplayTurn> {
  const [conv] = await sql.query<{ app_id: string; end_user_id: string | null }>(
    `SELECT app_id, end_user_id FROM conversations WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL`,
    [conversationId, sql.projectId],
  );
  if (!conv) throw new NotFoundError("Conversation", conversationId, "conversation_id");
  const [msg] = await sql.query<{ query: string; parent_message_id: string | null; created_at: Date | string; at: string; seq: number }>(
    `SELECT query, parent_message_id, created_at, created_at::text AS at, seq FROM messages WHERE conversation_id = $1 AND id = $2 AND project_id = $3`,
    [conversationId, messageId, sql.projectId],
  );
  if (!msg) throw new NotFoundError("Message", messageId, "message_id");
  if (!msg.query.trim()) {
    throw new ValidationError(`Message ${messageId} has no query to replay`, [{ field: "message_id", message: "the turn has an empty query" }]);
  }
  const leafId = await historyLeaf(sql, conversationId, msg);
  const index = leafId ? (await loadThreadIds(sql, conversationId, leafId)).length : 0;
  return {
    conversationId,
    appId: conv.app_id,
    endUserId: conv.end_user_id,
    messageId,
    query: msg.query,
    createdAt: new Date(msg.created_at).toISOString(),
    leafId,
    index,
  };
}

async function historyLeaf(sql: ProjectSql, conversationId: string, msg: { parent_message_id: string | null; at: string; seq: number }): Promise<string | null> {
  const parent = msg.parent_message_id;
  if (!parent) return null;
  if (parent === UUID_NIL) {
    // Dify: a UUID_NIL parent follows the row just before (legacy linear threads).
    const [prev] = await sql.query<{ id: string }>(
      `SELECT id FROM messages WHERE conversation_id = $1 AND project_id = $2 AND (created_at, seq) < ($3::timestamptz, $4::int)
        ORDER BY created_at DESC, seq DESC LIMIT 1`,
      [conversationId, sql.projectId, msg.at, msg.seq],
    );
    return prev?.id ?? null;
  }
  // A parent that is no row of this conversation ends the thread at the turn (Dify's walk finds nothing older).
  const [found] = await sql.query<{ id: string }>(`SELECT id FROM messages WHERE conversation_id = $1 AND id = $2 AND project_id = $3`, [
    conversationId,
    parent,
    sql.projectId,
  ]);
  return found ? parent : null;
}
