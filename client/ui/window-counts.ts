import type { HistoryResponse } from "@/lib/messages/schemas";

/**
 * The window's turn counts for one thread, from the history answer alone: every thread turn is
 * exactly one of kept, dropped (read, but over max_token_limit), beyond message_limit (never
 * read) or the in-flight placeholder. The stats row and its note both read these, so
 * "Kept 10 · Dropped 0" can no longer stand for a 639-turn thread without the 629 never read.
 */
export function windowCounts(threadIds: readonly string[], h: Pick<HistoryResponse, "thread_message_ids" | "dropped_message_ids" | "placeholder_message_id">) {
  const read = new Set(h.thread_message_ids); // newest first, without the placeholder
  const dropped = h.dropped_message_ids.length;
  let beyond = 0;
  for (const id of threadIds) if (!read.has(id) && id !== h.placeholder_message_id) beyond++;
  return { kept: read.size - dropped, dropped, beyond, placeholder: h.placeholder_message_id ? 1 : 0 };
}
