import "server-only";
import { notFound } from "../errors/domain-errors";
import type { ProjectSql } from "../db/project-sql";
import { ThreadWalker, type ThreadRow } from "./extract-thread";

const PAGE = 2000;

export type Anchor = { id: string; created_at: string; seq: number };

/** The (created_at, seq) position of a message, or a 404 naming the field. */
export async function findAnchor(sql: ProjectSql, conversationId: string, messageId: string, field = "leaf_message_id"): Promise<Anchor> {
  const [row] = await sql.query<{ id: string; created_at: string; seq: number }>(
    // Text timestamps keep microseconds exact for the keyset comparison.
    `SELECT id, created_at::text AS created_at, seq FROM messages WHERE conversation_id = $1 AND id = $2 AND project_id = $3`,
    [conversationId, messageId, sql.projectId],
  );
  if (!row) {
    const e = notFound("Message", messageId);
    e.details[0].field = field;
    throw e;
  }
  return row;
}

/**
 * Where a conversation's thread ends when the caller names no leaf: the active leaf its
 * source recorded (model_config.active_leaf_message_id: ChatGPT's current_node, Claude.ai's
 * newest message; lib/imports), when that turn is stored, else the newest row (Dify's rule).
 * In Dify's model a new query is a child of the leaf the client continues from, and a ChatGPT
 * user continues from current_node, which need not be the newest leaf: so the default thread,
 * window and context follow it.
 *
 * A condition on the readers' `(created_at, seq)` rather than a query of its own: the bound is
 * computed once by the database in the same statement (no round trip), and without a recorded
 * leaf it lets every row through. `conv` and `project` are the statement's parameters
 * ("$1", "$3"); a pointer that is not a UUID is ignored rather than failing the cast.
 */
export function activeLeafBound(conv: string, project: string): string {
  const leaf = (col: string) =>
    `(SELECT m.${col} FROM conversations c JOIN messages m ON m.project_id = c.project_id AND m.conversation_id = c.id
         AND m.id = ${activeLeafId("c")}
       WHERE c.id = ${conv} AND c.project_id = ${project})`;
  return `AND (created_at, seq) <= (COALESCE(${leaf("created_at")}, 'infinity'::timestamptz), COALESCE(${leaf("seq")}, 2147483647))`;
}

/** SQL: the active leaf recorded in conversation `c`'s model_config as a uuid, null when absent or not a UUID (no failing cast). */
export function activeLeafId(c: string): string {
  return `CASE WHEN ${c}.model_config->>'active_leaf_message_id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
               THEN (${c}.model_config->>'active_leaf_message_id')::uuid END`;
}

/**
 * The thread by Dify's rules over every row of the conversation (no limit), ending at
 * `leafId`, else at the active leaf (activeLeafBound), else at the newest row. Reads newest-first pages and stops once the walk ends.
 * Returns ids newest first.
 */
export async function loadThreadIds(sql: ProjectSql, conversationId: string, leafId?: string): Promise<string[]> {
  let anchor: Pick<Anchor, "created_at" | "seq"> | null = leafId ? await findAnchor(sql, conversationId, leafId) : null;
  const walker = new ThreadWalker<ThreadRow & { created_at: string; seq: number }>();
  let inclusive = true;
  while (!walker.done) {
    const rows = await sql.query<{ id: string; parentMessageId: string | null; created_at: string; seq: number }>(
      // ORDER BY the column (messages.created_at), not the text alias of the same name: sorting
      // the text read every row of the conversation and sorted them instead of the index scan.
      `SELECT id, parent_message_id AS "parentMessageId", created_at::text AS created_at, seq
         FROM messages
        WHERE conversation_id = $1 AND project_id = $2 ${anchor ? `AND (created_at, seq) ${inclusive ? "<=" : "<"} ($3::timestamptz, $4::int)` : activeLeafBound("$1", "$2")}
        ORDER BY messages.created_at DESC, messages.seq DESC
        LIMIT ${PAGE}`,
      anchor ? [conversationId, sql.projectId, anchor.created_at, anchor.seq] : [conversationId, sql.projectId],
    );
    for (const r of rows) if (!walker.push(r)) break;
    if (rows.length < PAGE) break;
    anchor = rows[rows.length - 1];
    inclusive = false;
  }
  return walker.thread.map((r) => r.id);
}
