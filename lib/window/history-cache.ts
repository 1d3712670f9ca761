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
// Text erasure (lib/privacy/erase-text.ts) is the one edit of stored turns: it also sets the
// conversation's updated_at, which is part of the key too, so no instance serves the old text.
// The state is read on each request (one row, with the saved presets), so a deleted
// conversation still answers 404 and a changed preset still changes the encoding.
// Bounded by the answers' estimated size: one 500-turn history is ~280 KiB.
export const HISTORY_CACHE_MAX_BYTES = 32 * 1024 * 1024;

export type HistoryCache = {
  /** The history of a live conversation (404 otherwise), from the cache when its turns have not changed. */
  get(sql: ProjectSql, conversationId: string, q: HistoryQuery): Promise<HistoryResponse>;
  /** Forgets every answer (an erasure: none may be served from memory again). */
  clear(): void;
  /** What the cache holds now (answers kept, their estimated bytes, computations under way). */
  stats(): { entries: number; bytes: number; max_bytes: number; in_flight: number };
};

/** A cache of its own; the route uses the process's one (cachedHistory). Tests give a smaller bound. */
export function createHistoryCache(maxBytes = HISTORY_CACHE_MAX_BYTES): HistoryCache {
  const cache = new LRUCache<string, { answer: HistoryResponse; bytes: number }>({
    maxSize: maxBytes,
    sizeCalculation: (v) => v.bytes,
  });
  const inFlight = new Map<string, Promise<HistoryResponse>>();

  async function get(sql: ProjectSql, conversationId: string, q: HistoryQuery): Promise<HistoryResponse> {
    const [state] = await sql.query<{ turn_count: number; updated_at: Date | string; presets: ModelPreset[] | null }>(
      `SELECT c.turn_count, c.updated_at, (SELECT value FROM app_settings WHERE key = $3 AND project_id = $2) AS presets
         FROM conversations c WHERE c.id = $1 AND c.project_id = $2 AND c.deleted_at IS NULL`,
      [conversationId, sql.projectId, PRESETS_KEY],
    );
    if (!state) throw notFound("Conversation", conversationId);
    const presets = state.presets ?? [];
    const tok = historyTokenizer(presets, q.model);
    const key = JSON.stringify([sql.projectId, conversationId, state.turn_count, new Date(state.updated_at).toISOString(), tok.encoding, tok.approximate, q]);
    const hit = cache.get(key);
    if (hit) return hit.answer;
    // Requests arriving together after a new turn share one computation. It leaves the map
    // when it settles, so a failed one is retried by the next request rather than replayed,
    // and an answer too big to keep does not stay in memory through the map.
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

  return {
    get,
    clear: () => {
      cache.clear();
      inFlight.clear();
    },
    stats: () => ({ entries: cache.size, bytes: cache.calculatedSize, max_bytes: maxBytes, in_flight: inFlight.size }),
  };
}

const shared = createHistoryCache();

/** The history of a live conversation (404 otherwise), from the process's cache when its turns have not changed. */
export function cachedHistory(sql: ProjectSql, conversationId: string, q: HistoryQuery): Promise<HistoryResponse> {
  return shared.get(sql, conversationId, q);
}

/** Empties the process's cache (lib/privacy: after an erasure). */
export function purgeHistoryCache(): void {
  shared.clear();
}

/** About the answer's size in memory: its texts dominate (two bytes a UTF-16 unit). */
export function historyBytes(a: HistoryResponse): number {
  let n = 1024 + 64 * (a.thread_message_ids.length + a.dropped_message_ids.length);
  n += 2 * (a.text?.length ?? 0);
  for (const m of a.messages ?? []) n += 256 + 2 * JSON.stringify(m.content).length;
  return n;
}
