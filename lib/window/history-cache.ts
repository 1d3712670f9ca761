import "server-only";
import { LRUCache } from "lru-cache";
import type { ProjectSql } from "../db/project-sql";
import { notFound } from "../errors/domain-errors";
import type { ModelPreset } from "../models/model-presets";
import { PRESETS_KEY } from "../models/model-settings";
import type { HistoryQuery, HistoryResponse } from "../messages/schemas";
import { getHistory, historyTokenizer } from "./get-history";

// GET /history answers, kept per conversation state. Turns are only ever inserted, never
// edited or removed, and every insert bumps conversations.turn_count in the same
// transaction (lib/messages/insert-turns.ts; a bulk import creates the conversation with
// its count). So (conversation, turn_count, tokenizer, query) names exactly one answer, on
// every instance sharing the database: a new turn changes the key, no invalidation needed.
// The state is read on each request (one row, with the saved presets), so a deleted
// conversation still answers 404 and a changed preset still changes the encoding.
// Bounded by the answers' size: one 500-turn history is ~280 KiB.
const MAX_BYTES = 32 * 1024 * 1024;

const cache = new LRUCache<string, { answer: HistoryResponse; bytes: number }>({
  maxSize: MAX_BYTES,
  sizeCalculation: (v) => v.bytes,
});

const inFlight = new Map<string, Promise<HistoryResponse>>();

/** The history of a live conversation (404 otherwise), from the cache when its turns have not changed. */
export async function cachedHistory(sql: ProjectSql, conversationId: string, q: HistoryQuery): Promise<HistoryResponse> {
  const [state] = await sql.query<{ turn_count: number; presets: ModelPreset[] | null }>(
    `SELECT c.turn_count, (SELECT value FROM app_settings WHERE key = $3 AND project_id = $2) AS presets
       FROM conversations c WHERE c.id = $1 AND c.project_id = $2 AND c.deleted_at IS NULL`,
    [conversationId, sql.projectId, PRESETS_KEY],
  );
  if (!state) throw notFound("Conversation", conversationId);
  const presets = state.presets ?? [];
  const tok = historyTokenizer(presets, q.model);
  const key = JSON.stringify([sql.projectId, conversationId, state.turn_count, tok.encoding, tok.approximate, q]);
  const hit = cache.get(key);
  if (hit) return hit.answer;
  // Requests arriving together after a new turn share one computation.
  let computing = inFlight.get(key);
  if (!computing) {
    computing = getHistory(sql, conversationId, q, presets)
      .then((answer) => {
        cache.set(key, { answer, bytes: historyBytes(answer) + key.length });
        return answer;
      })
      .finally(() => inFlight.delete(key));
    inFlight.set(key, computing);
  }
  return computing;
}

/** About the answer's size in memory: its texts dominate. */
function historyBytes(a: HistoryResponse): number {
  let n = 1024 + 64 * (a.thread_message_ids.length + a.dropped_message_ids.length);
  if ("text" in a && typeof a.text === "string") n += 2 * a.text.length;
  if ("messages" in a && a.messages) for (const m of a.messages) n += 256 + 2 * JSON.stringify(m.content).length;
  return n;
}
