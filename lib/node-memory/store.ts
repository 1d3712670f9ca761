import "server-only";
import { randomUUID } from "node:crypto";
import { ConflictError, DomainError, ValidationError, conflict, notFound } from "../errors/domain-errors";
import type { ProjectSql } from "../db/project-sql";
import { resolveTokenizer } from "../tokens/registry";
import {
  appendMessages,
  buildTurnMessages,
  documentTokens,
  documentTurns,
  duplicateIds,
  emptyDocument,
  nodeThread,
  nodeWindow,
  parseDocument,
} from "./document";
import type {
  AddTurnInput,
  AddTurnResponse,
  NodeHistoryQuery,
  NodeHistoryResponse,
  NodeList,
  NodeMemory,
  NodeMemoryDocument,
  NodeSummary,
} from "./schemas";

// Node memory in Postgres: one row per (conversation_id, node_id) holding the v1 JSON
// document. Writes are optimistic: read (version, document), append in memory, then
// UPDATE ... WHERE version = <read> (or INSERT ... ON CONFLICT DO NOTHING for a new
// node). A write that matched no row lost a race: it re-reads and retries, so
// concurrent writers never overwrite each other's turns.

export const MAX_WRITE_ATTEMPTS = 30;
/** A node holds at most this many messages (each append rewrites the document). */
export const MAX_NODE_MESSAGES = 20_000;

type Row = {
  conversation_id: string;
  node_id: string;
  app_id: string;
  version: number;
  message_count: number;
  token_count: number;
  created_at: Date | string;
  updated_at: Date | string;
};
const COLUMNS = `conversation_id, node_id, app_id, version, message_count, token_count, created_at, updated_at`;

const iso = (d: Date | string) => new Date(d).toISOString();

function summary(r: Row): NodeSummary {
  return {
    conversation_id: r.conversation_id,
    node_id: r.node_id,
    app_id: r.app_id,
    version: r.version,
    message_count: r.message_count,
    turn_count: Math.ceil(r.message_count / 2),
    token_count: r.token_count,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** The conversation's app, or a 404 when it does not exist or is deleted. */
async function liveConversationApp(sql: ProjectSql, conversationId: string): Promise<string> {
  const [row] = await sql.query<{ app_id: string }>(
    `SELECT app_id FROM conversations WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL`,
    [conversationId, sql.projectId],
  );
  if (!row) throw notFound("Conversation", conversationId);
  return row.app_id;
}

const nodeNotFound = (nodeId: string) =>
  new DomainError("not_found", "not_found", `Node ${nodeId} has no memory in this conversation`, [{ field: "node_id", message: "no memory", node_id: nodeId }]);

/** Full jitter over a doubling window (5, 10, 20 … ms, capped at 320 ms): losers spread out instead of colliding again. */
export function backoffMs(attempt: number, random = Math.random()): number {
  return random * Math.min(320, 5 * 2 ** (attempt - 1));
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Dify's add_messages: appends one user + assistant turn to the node's document. */
export async function addNodeTurn(sql: ProjectSql, conversationId: string, nodeId: string, input: AddTurnInput): Promise<AddTurnResponse> {
  const appId = await liveConversationApp(sql, conversationId);
  if (input.app_id !== undefined && input.app_id !== appId) {
    throw new ValidationError(`Conversation ${conversationId} belongs to app ${appId}`, [
      { field: "app_id", message: `must be the conversation's app (${appId})` },
    ]);
  }
  const assistantId = input.assistant_message_id ?? randomUUID();
  const createdAt = new Date().toISOString();
  // Token counts do not depend on the document: count once, outside the retry loop.
  const counted = buildTurnMessages(input, assistantId, null, createdAt);

  for (let attempt = 1; attempt <= MAX_WRITE_ATTEMPTS; attempt++) {
    const [current] = await sql.query<{ version: number; document: unknown }>(
      `SELECT version, document FROM node_memories WHERE conversation_id = $1 AND node_id = $2 AND project_id = $3`,
      [conversationId, nodeId, sql.projectId],
    );
    const doc = current ? parseDocument(current.document) : emptyDocument();

    const dupes = duplicateIds(doc, [input.message_id, assistantId]);
    if (dupes.length) {
      throw conflict(
        "Message ids already in this node's memory",
        dupes.map((id) => ({ field: id === input.message_id ? "message_id" : "assistant_message_id", message: "already exists", id })),
      );
    }
    if (doc.messages.length + 2 > MAX_NODE_MESSAGES) {
      throw new ConflictError(`Node ${nodeId} holds ${doc.messages.length} messages (limit ${MAX_NODE_MESSAGES}); clear it first`, [], "node_memory_full");
    }

    // Omitted parent: the node's newest turn at the time this write lands.
    const turns = documentTurns(doc);
    const parent = input.parent_message_id === undefined ? (turns.at(-1)?.id ?? null) : input.parent_message_id;
    const [user, assistant] = counted;
    const added = [{ ...user, parent_message_id: parent }, assistant];
    const next: NodeMemoryDocument = appendMessages(doc, added);
    const params = [conversationId, nodeId, JSON.stringify(next), next.messages.length, documentTokens(next)];

    const [written] = current
      ? await sql.query<Row>(
          `UPDATE node_memories
              SET document = $3::jsonb, message_count = $4, token_count = $5, version = version + 1, updated_at = now()
            WHERE conversation_id = $1 AND node_id = $2 AND version = $6 AND project_id = $7
        RETURNING ${COLUMNS}`,
          [...params, current.version, sql.projectId],
        )
      : await sql.query<Row>(
          `INSERT INTO node_memories (conversation_id, node_id, app_id, version, document, message_count, token_count, project_id)
           VALUES ($1, $2, $6, 1, $3::jsonb, $4, $5, $7)
           ON CONFLICT (project_id, conversation_id, node_id) DO NOTHING
        RETURNING ${COLUMNS}`,
          [...params, appId, sql.projectId],
        );
    if (written) return { ...summary(written), messages: added, attempts: attempt };
    if (attempt < MAX_WRITE_ATTEMPTS) await sleep(backoffMs(attempt));
  }
  throw new ConflictError(`Node ${nodeId} changed under ${MAX_WRITE_ATTEMPTS} attempts in a row; retry the request`, [], "write_conflict");
}

/** Nodes with memory in a conversation, most recently written first (no documents read). */
export async function listNodes(sql: ProjectSql, conversationId: string): Promise<NodeList> {
  await liveConversationApp(sql, conversationId);
  const rows = await sql.query<Row>(
    `SELECT ${COLUMNS} FROM node_memories WHERE conversation_id = $1 AND project_id = $2 ORDER BY updated_at DESC, node_id`,
    [conversationId, sql.projectId],
  );
  return { data: rows.map(summary) };
}

export async function getNodeMemory(sql: ProjectSql, conversationId: string, nodeId: string): Promise<NodeMemory> {
  await liveConversationApp(sql, conversationId);
  const [row] = await sql.query<Row & { document: unknown }>(
    `SELECT ${COLUMNS}, document FROM node_memories WHERE conversation_id = $1 AND node_id = $2 AND project_id = $3`,
    [conversationId, nodeId, sql.projectId],
  );
  if (!row) throw nodeNotFound(nodeId);
  return { ...summary(row), document: parseDocument(row.document) };
}

/** Dify's clear: removes the node's document. Clearing a node without memory is a no-op. */
export async function clearNodeMemory(sql: ProjectSql, conversationId: string, nodeId: string): Promise<boolean> {
  await liveConversationApp(sql, conversationId);
  const rows = await sql.query(`DELETE FROM node_memories WHERE conversation_id = $1 AND node_id = $2 AND project_id = $3 RETURNING node_id`,
    [conversationId, nodeId, sql.projectId],
  );
  return rows.length > 0;
}

/**
 * Dify's get_history_prompt_messages for a node: the thread by current_message_id, then
 * the token limit. A node without memory has an empty history (its first run).
 */
export async function getNodeHistory(sql: ProjectSql, conversationId: string, nodeId: string, q: NodeHistoryQuery): Promise<NodeHistoryResponse> {
  await liveConversationApp(sql, conversationId);
  const tok = resolveTokenizer(q.model);
  const [row] = await sql.query<{ version: number; document: unknown }>(
    `SELECT version, document FROM node_memories WHERE conversation_id = $1 AND node_id = $2 AND project_id = $3`,
    [conversationId, nodeId, sql.projectId],
  );
  const turns = row ? documentTurns(parseDocument(row.document)) : [];
  let thread = nodeThread(turns, q.current_message_id);
  if (thread === null && turns.length) {
    // Not a message of this node: the in-flight message of the conversation, whose parent starts the walk.
    const [msg] = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(q.current_message_id!)
      ? await sql.query<{ parent_message_id: string | null }>(
          `SELECT parent_message_id FROM messages WHERE conversation_id = $1 AND id = $2::uuid AND project_id = $3`,
          [conversationId, q.current_message_id, sql.projectId],
        )
      : [];
    if (!msg) {
      throw new DomainError("not_found", "not_found", `current_message_id ${q.current_message_id} is neither in this node's memory nor a message of the conversation`, [
        { field: "current_message_id", message: "unknown message" },
      ]);
    }
    thread = nodeThread(turns, q.current_message_id, { parentMessageId: msg.parent_message_id });
  }
  return {
    node_id: nodeId,
    version: row?.version ?? 0,
    current_message_id: q.current_message_id ?? null,
    ...nodeWindow(thread ?? [], q.max_token_limit, tok),
  };
}
