import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { activeLeafBound, findAnchor } from "../threads/load-thread";
import { extractThread } from "../threads/extract-thread";
import { CHAT_FORMULA, IMAGE_PART_TOKENS, messageOverhead, type ContentPart } from "../tokens/chat-formula";
import { savedPresets } from "../models/model-settings";
import type { ModelPreset } from "../models/model-presets";
import { resolveTokenizer } from "../tokens/registry";
import { messageHasLongPiece } from "../tokens/message-long-piece";
import { historyText } from "./history-text";
import { tokenBufferWindow, windowMessages, type WindowTurn } from "./token-buffer";
import type { HistoryQuery, HistoryResponse } from "../messages/schemas";
import { loadFileParts } from "../messages/load-file-parts";

export const MAX_MESSAGE_LIMIT = 500;

/** Dify: null, 0 or negative mean 500; anything larger is capped at 500. */
export function normalizeMessageLimit(limit: number | null | undefined): number {
  return limit && limit > 0 ? Math.min(limit, MAX_MESSAGE_LIMIT) : MAX_MESSAGE_LIMIT;
}

/** A preset saved in settings decides the encoding of its model (as for /context and /window). */
export function historyTokenizer(presets: ModelPreset[], model: string) {
  const key = model.trim().toLowerCase();
  const saved = presets.find((p) => p.model.toLowerCase() === key);
  return saved ? { model, encoding: saved.encoding, approximate: !saved.exact } : resolveTokenizer(model);
}

type Row = {
  id: string;
  parentMessageId: string | null;
  answer_empty: boolean;
  answer_tokens: number;
  q: number;
  a: number;
  file_count: number;
};

/**
 * Dify's TokenBufferMemory.get_history_prompt_messages (and _text) for one
 * conversation, from cached token counts. Two reads: ids, parents and token counts of
 * the newest rows (enough to walk the thread and prune), then the text of the kept
 * turns only; no tokenizer runs.
 */
export async function getHistory(
  sql: ProjectSql,
  conversationId: string,
  q: HistoryQuery,
  /** The project's saved presets when the caller has read them already. */
  presets?: ModelPreset[],
): Promise<HistoryResponse> {
  const tok = historyTokenizer(presets ?? (await savedPresets(sql)), q.model);
  const suffix = tok.encoding === "cl100k_base" ? "cl100k" : "o200k";
  const limit = normalizeMessageLimit(q.message_limit);
  const anchor = q.leaf_message_id ? await findAnchor(sql, conversationId, q.leaf_message_id) : null;

  // One JSON value instead of 500 rows x 7 columns: PGlite decodes each column of
  // each row in JS, which cost 10 ms here; JSON.parse of the same data costs well
  // under 1 ms (see docs/benchmarks.md).
  const [{ rows: packed }] = await sql.query<{ rows: [string, string | null, boolean, number, number, number, number][] | null }>(
    `SELECT json_agg(json_build_array(id, parent_message_id, answer = '', answer_tokens, q, a, file_count)
                    ORDER BY created_at DESC, seq DESC) AS rows
       FROM (SELECT id, parent_message_id, answer, answer_tokens, created_at, seq,
                    query_tokens_${suffix} AS q, answer_tokens_${suffix} AS a, file_count
               FROM messages
              WHERE conversation_id = $1 AND project_id = $3 ${anchor ? "AND (created_at, seq) <= ($4::timestamptz, $5::int)" : activeLeafBound("$1", "$3")}
              ORDER BY created_at DESC, seq DESC
              LIMIT $2) newest`,
    anchor ? [conversationId, limit, sql.projectId, anchor.created_at, anchor.seq] : [conversationId, limit, sql.projectId],
  );
  const rows: Row[] = (packed ?? []).map(([id, parentMessageId, answer_empty, answer_tokens, q, a, file_count]) => ({
    id,
    parentMessageId,
    answer_empty,
    answer_tokens,
    q,
    a,
    file_count,
  }));
  const thread = extractThread(rows);

  const files = await loadFileParts(sql, thread.filter((r) => r.file_count > 0).map((r) => r.id));
  const userOverhead = messageOverhead("user", tok.encoding);
  const assistantOverhead = messageOverhead("assistant", tok.encoding);
  const images = (parts: ContentPart[]) => parts.filter((p) => p.type === "image").length * IMAGE_PART_TOKENS;
  const turns: WindowTurn[] = thread.map((r) => {
    const f = files.get(r.id) ?? { user: [], assistant: [] };
    return {
      id: r.id,
      query: "",
      // Only emptiness matters before the text is read (the placeholder rule).
      answer: r.answer_empty ? "" : " ",
      answerTokens: r.answer_tokens,
      userTokens: userOverhead + r.q + images(f.user),
      assistantTokens: assistantOverhead + r.a + images(f.assistant),
      userFiles: f.user,
      assistantFiles: f.assistant,
    };
  });

  const window = tokenBufferWindow(turns, q.max_token_limit);
  if (window.kept.length) {
    const texts = await sql.query<{ id: string; query: string; answer: string }>(
      `SELECT id, query, answer FROM messages WHERE id = ANY($1::uuid[]) AND project_id = $2`,
      [window.kept.map((t) => t.id), sql.projectId],
    );
    const byId = new Map(texts.map((t) => [t.id, t]));
    for (const t of window.kept) {
      const text = byId.get(t.id)!;
      t.query = text.query;
      t.answer = text.answer;
    }
  }
  const messages = windowMessages(window.kept);

  const base = {
    thread_message_ids: window.threadIds,
    dropped_message_ids: window.droppedIds,
    placeholder_message_id: window.placeholderId,
    total_tokens: window.totalTokens,
    max_token_limit: q.max_token_limit,
    message_limit: limit,
    ...(q.include_turn_tokens === "true"
      ? { turn_tokens: turns.filter((t) => t.id !== window.placeholderId).map((t) => ({ id: t.id, tokens: t.userTokens + t.assistantTokens })) }
      : {}),
    model: tok.model,
    encoding: tok.encoding,
    // Stored counts of a text with a piece over 256 bytes were approximate when written.
    approximate: tok.approximate || window.kept.some((t) => messageHasLongPiece(t.id, t.query, t.answer, tok.encoding)),
    formula: CHAT_FORMULA,
  };
  if (q.format === "text") return { ...base, text: historyText(messages, q.human_prefix, q.ai_prefix) };
  return { ...base, messages };
}
