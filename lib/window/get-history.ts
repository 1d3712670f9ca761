import "server-only";
import type { SqlRunner } from "../db/migrations";
import { findAnchor } from "../threads/load-thread";
import { extractThread } from "../threads/extract-thread";
import { CHAT_FORMULA, IMAGE_PART_TOKENS, messageOverhead, type ContentPart } from "../tokens/chat-formula";
import { resolveTokenizer } from "../tokens/registry";
import { historyText } from "./history-text";
import { tokenBufferWindow, type WindowTurn } from "./token-buffer";
import type { HistoryQuery, HistoryResponse } from "../messages/schemas";

export const MAX_MESSAGE_LIMIT = 500;

/** Dify: null, 0 or negative mean 500; anything larger is capped at 500. */
export function normalizeMessageLimit(limit: number | null | undefined): number {
  return limit && limit > 0 ? Math.min(limit, MAX_MESSAGE_LIMIT) : MAX_MESSAGE_LIMIT;
}

type Row = {
  id: string;
  parentMessageId: string | null;
  query: string;
  answer: string;
  answer_tokens: number;
  q: number;
  a: number;
  file_count: number;
};

/**
 * Dify's TokenBufferMemory.get_history_prompt_messages (and _text) for one
 * conversation, from cached token counts: one indexed read of the newest rows, one
 * thread walk, one pruning pass.
 */
export async function getHistory(sql: SqlRunner, conversationId: string, q: HistoryQuery): Promise<HistoryResponse> {
  const tok = resolveTokenizer(q.model);
  const suffix = tok.encoding === "cl100k_base" ? "cl100k" : "o200k";
  const limit = normalizeMessageLimit(q.message_limit);
  const anchor = q.leaf_message_id ? await findAnchor(sql, conversationId, q.leaf_message_id) : null;

  const rows = await sql.query<Row>(
    `SELECT id, parent_message_id AS "parentMessageId", query, answer, answer_tokens,
            query_tokens_${suffix} AS q, answer_tokens_${suffix} AS a, file_count
       FROM messages
      WHERE conversation_id = $1 ${anchor ? "AND (created_at, seq) <= ($3::timestamptz, $4::int)" : ""}
      ORDER BY created_at DESC, seq DESC
      LIMIT $2`,
    anchor ? [conversationId, limit, anchor.created_at, anchor.seq] : [conversationId, limit],
  );
  const thread = extractThread(rows);

  const withFiles = thread.filter((r) => r.file_count > 0).map((r) => r.id);
  const files = new Map<string, { user: ContentPart[]; assistant: ContentPart[] }>();
  if (withFiles.length) {
    const fileRows = await sql.query<{
      message_id: string;
      type: ContentPart["type"];
      transfer_method: string;
      url: string | null;
      upload_file_id: string | null;
      belongs_to: string;
    }>(
      `SELECT message_id, type, transfer_method, url, upload_file_id, belongs_to
         FROM message_files WHERE message_id = ANY($1::uuid[]) ORDER BY message_id, position`,
      [withFiles],
    );
    for (const f of fileRows) {
      const entry = files.get(f.message_id) ?? { user: [], assistant: [] };
      const part = { type: f.type, transfer_method: f.transfer_method, url: f.url, upload_file_id: f.upload_file_id } as ContentPart;
      (f.belongs_to === "assistant" ? entry.assistant : entry.user).push(part);
      files.set(f.message_id, entry);
    }
  }

  const userOverhead = messageOverhead("user", tok.encoding);
  const assistantOverhead = messageOverhead("assistant", tok.encoding);
  const images = (parts: ContentPart[]) => parts.filter((p) => p.type === "image").length * IMAGE_PART_TOKENS;
  const turns: WindowTurn[] = thread.map((r) => {
    const f = files.get(r.id) ?? { user: [], assistant: [] };
    return {
      id: r.id,
      query: r.query,
      answer: r.answer,
      answerTokens: r.answer_tokens,
      userTokens: userOverhead + r.q + images(f.user),
      assistantTokens: assistantOverhead + r.a + images(f.assistant),
      userFiles: f.user,
      assistantFiles: f.assistant,
    };
  });

  const w = tokenBufferWindow(turns, q.max_token_limit);
  const base = {
    thread_message_ids: w.threadIds,
    dropped_message_ids: w.droppedIds,
    placeholder_message_id: w.placeholderId,
    total_tokens: w.totalTokens,
    max_token_limit: q.max_token_limit,
    message_limit: limit,
    turn_tokens: turns
      .filter((t) => t.id !== w.placeholderId)
      .map((t) => ({ id: t.id, tokens: t.userTokens + t.assistantTokens })),
    model: tok.model,
    encoding: tok.encoding,
    approximate: tok.approximate,
    formula: CHAT_FORMULA,
  };
  if (q.format === "text") return { ...base, text: historyText(w.messages, q.human_prefix, q.ai_prefix) };
  return { ...base, messages: w.messages };
}
