import { REPLY_PRIMING_TOKENS, type ChatMessage, type ContentPart } from "../tokens/chat-formula";

/** One stored turn with its cached token counts for the chosen encoding. */
export type WindowTurn = {
  id: string;
  query: string;
  answer: string;
  answerTokens: number;
  /** Chat-formula tokens of the user message (framing + role + content). */
  userTokens: number;
  /** Chat-formula tokens of the assistant message. */
  assistantTokens: number;
  userFiles: ContentPart[];
  assistantFiles: ContentPart[];
};

export type TokenBufferResult = {
  messages: ChatMessage[];
  /** The turns that fit, oldest first (the same objects as given). */
  kept: WindowTurn[];
  /** Thread ids newest first, after the message limit and the placeholder. */
  threadIds: string[];
  /** Ids (newest first) of thread turns that fell out of the budget. */
  droppedIds: string[];
  /** Id of the in-flight placeholder that was left out, if any. */
  placeholderId: string | null;
  totalTokens: number;
};

/** A turn whose answer is still being generated: Dify leaves it out of memory. */
export function isPlaceholder(turn: { answer: string; answerTokens: number }): boolean {
  return !turn.answer && turn.answerTokens === 0;
}

/** A turn's side as message content: Dify puts file parts first, then the text. */
export function turnContent(text: string, files: ContentPart[]): ChatMessage["content"] {
  return files.length ? [...files, { type: "text", text }] : text;
}

/** Each turn as a user message (query) and an assistant message (answer), oldest first. */
export function windowMessages(kept: WindowTurn[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const t of kept) {
    messages.push({ role: "user", content: turnContent(t.query, t.userFiles) });
    messages.push({ role: "assistant", content: turnContent(t.answer, t.assistantFiles) });
  }
  return messages;
}

/**
 * Dify's get_history_prompt_messages over an extracted thread (newest first),
 * with whole-turn pruning: while the total exceeds the limit, drop the oldest turn.
 * Token counts come from the cache, so the window is one pass, not a re-count per drop.
 */
export function tokenBufferWindow(threadNewestFirst: WindowTurn[], maxTokenLimit: number): TokenBufferResult {
  let thread = threadNewestFirst;
  let placeholderId: string | null = null;
  if (thread.length && isPlaceholder(thread[0])) {
    placeholderId = thread[0].id;
    thread = thread.slice(1);
  }
  const oldestFirst = [...thread].reverse();

  let total = oldestFirst.length ? REPLY_PRIMING_TOKENS : 0;
  for (const t of oldestFirst) total += t.userTokens + t.assistantTokens;

  let start = 0;
  while (start < oldestFirst.length && total > maxTokenLimit) {
    total -= oldestFirst[start].userTokens + oldestFirst[start].assistantTokens;
    start++;
  }
  if (start === oldestFirst.length) total = 0; // nothing fits: an empty list costs nothing

  const kept = oldestFirst.slice(start);
  return {
    messages: windowMessages(kept),
    kept,
    threadIds: thread.map((t) => t.id),
    droppedIds: oldestFirst.slice(0, start).map((t) => t.id).reverse(),
    placeholderId,
    totalTokens: total,
  };
}
