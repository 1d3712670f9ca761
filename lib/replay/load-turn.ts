import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { NotFoundError, ValidationError } from "../errors/domain-errors";
import { ThreadWalker } from "../threads/extract-thread";
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
  /** Exact ISO time of the leaf (null without one). */
  leafCreatedAt: string | null;
  /** Turns before it in its thread. */
  index: number;
};

/** Thread rows read with the turn; a longer thread is walked by loadThreadIds, page by page. */
const THREAD_PAGE = 2000;

/**
 * Reads a turn of a conversation of the caller's project. An unknown conversation, a
 * conversation of another project and a message of another conversation all answer 404.
 *
 * One statement: the conversation, the turn, its history leaf and the thread up to that leaf
 * (ids and parents, packed as one JSON text: PGlite decodes rows column by column in JS).
 * It replaced five (conversation, turn, parent, the leaf's position, the thread's pages), and
 * the leaf's time it returns spares findLoggedRetrieval a sixth.
 */
export async function loadReplayTurn(sql: ProjectSql, conversationId: string, messageId: string): Promise<ReplayTurn> {
  const [row] = await sql.query<{
    app_id: string;
    end_user_id: string | null;
    found: boolean;
    query: string | null;
    created_at: Date | string | null;
    leaf_id: string | null;
    leaf_created_at: Date | string | null;
    thread: string | null;
  }>(
    `WITH t AS (SELECT query, parent_message_id, created_at, seq FROM messages WHERE conversation_id = $1 AND id = $2 AND project_id = $3),
     leaf AS (
       -- The parent, when it is a row of this conversation (else the thread ends at the turn)...
       SELECT p.id, p.created_at, p.seq FROM t JOIN messages p ON p.conversation_id = $1 AND p.project_id = $3 AND p.id = t.parent_message_id
        WHERE t.parent_message_id <> $4::uuid
       UNION ALL
       -- ...or, for a UUID_NIL parent, the row just before the turn (Dify: legacy linear threads).
       (SELECT p.id, p.created_at, p.seq FROM t JOIN messages p ON p.conversation_id = $1 AND p.project_id = $3 AND (p.created_at, p.seq) < (t.created_at, t.seq)
         WHERE t.parent_message_id = $4::uuid
         ORDER BY p.created_at DESC, p.seq DESC LIMIT 1))
     SELECT c.app_id, c.end_user_id, t.created_at IS NOT NULL AS found, t.query, t.created_at, leaf.id AS leaf_id, leaf.created_at AS leaf_created_at,
            (SELECT json_agg(json_build_array(r.id, r.parent_message_id) ORDER BY r.created_at DESC, r.seq DESC)::text
               FROM (SELECT m.id, m.parent_message_id, m.created_at, m.seq FROM messages m
                      WHERE m.conversation_id = $1 AND m.project_id = $3 AND (m.created_at, m.seq) <= (leaf.created_at, leaf.seq)
                      ORDER BY m.created_at DESC, m.seq DESC LIMIT ${THREAD_PAGE}) r) AS thread
       FROM conversations c LEFT JOIN t ON true LEFT JOIN leaf ON true
      WHERE c.id = $1 AND c.project_id = $3 AND c.deleted_at IS NULL`,
    [conversationId, messageId, sql.projectId, UUID_NIL],
  );
  if (!row) throw new NotFoundError("Conversation", conversationId, "conversation_id");
  if (!row.found) throw new NotFoundError("Message", messageId, "message_id");
  if (!row.query!.trim()) {
    throw new ValidationError(`Message ${messageId} has no query to replay`, [{ field: "message_id", message: "the turn has an empty query" }]);
  }
  const leafId = row.leaf_id;
  return {
    conversationId,
    appId: row.app_id,
    endUserId: row.end_user_id,
    messageId,
    query: row.query!,
    createdAt: new Date(row.created_at!).toISOString(),
    leafId,
    leafCreatedAt: row.leaf_created_at === null ? null : new Date(row.leaf_created_at).toISOString(),
    index: leafId ? await threadLength(sql, conversationId, leafId, row.thread) : 0,
  };
}

/** Turns of the thread ending at the leaf: walked on the rows read with the turn, else (a longer thread) page by page. */
async function threadLength(sql: ProjectSql, conversationId: string, leafId: string, packed: string | null): Promise<number> {
  const rows = JSON.parse(packed ?? "[]") as [string, string | null][];
  const walker = new ThreadWalker();
  for (const [id, parentMessageId] of rows) if (!walker.push({ id, parentMessageId })) break;
  if (walker.done || rows.length < THREAD_PAGE) return walker.thread.length;
  return (await loadThreadIds(sql, conversationId, leafId)).length;
}
