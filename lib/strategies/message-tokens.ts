import { contentTokens, messageOverhead, REPLY_PRIMING_TOKENS } from "../tokens/chat-formula";
import { countTextTokens, hasLongPiece } from "../tokens/count-tokens";
import type { EncodingName } from "../tokens/registry";
import type { RoleMessage } from "./schemas";

// Messages read from the store arrive with their token counts cached at write time;
// keyed by the message object, so a copy (a truncated one, say) is counted afresh.
const cache: Record<EncodingName, WeakMap<RoleMessage, number>> = { o200k_base: new WeakMap(), cl100k_base: new WeakMap() };

/** Records a message's content tokens (as cached in the database) for one encoding. */
export function primeContentTokens(m: RoleMessage, encoding: EncodingName, contentTokenCount: number): void {
  cache[encoding].set(m, messageOverhead(m.role, encoding, m.name) + contentTokenCount);
}

/** Whether a message's tokens and long-piece answer are known for this encoding (a stored turn's, or counted before). */
export function tokensKnown(m: RoleMessage, encoding: EncodingName): boolean {
  return cache[encoding].has(m) && longPieces[encoding].has(m);
}

/** One message by OpenAI's chat formula; tool calls count their name and arguments. */
export function roleMessageTokens(m: RoleMessage, encoding: EncodingName): number {
  const hit = cache[encoding].get(m);
  if (hit !== undefined) return hit;
  let n = messageOverhead(m.role, encoding, m.name) + contentTokens(m.content, encoding);
  for (const c of m.tool_calls ?? []) n += countTextTokens(c.name, encoding) + countTextTokens(c.arguments, encoding);
  cache[encoding].set(m, n);
  return n;
}

export function listTokens(messages: RoleMessage[], encoding: EncodingName): number {
  if (!messages.length) return 0;
  return messages.reduce((sum, m) => sum + roleMessageTokens(m, encoding), REPLY_PRIMING_TOKENS);
}

export function textOf(m: RoleMessage): string {
  if (typeof m.content === "string") return m.content;
  return m.content.map((p) => (p.type === "text" ? p.text : `[${p.type}]`)).join("\n");
}

// Whether a message holds a long piece, per message object and encoding: a prompt's messages
// are checked twice (applyStrategy's window, then the assembled prompt, which holds the same
// history objects), and stored turns arrive with the answer already known (primeLongPiece).
const longPieces: Record<EncodingName, WeakMap<RoleMessage, boolean>> = { o200k_base: new WeakMap(), cl100k_base: new WeakMap() };

/** Records whether a message holds a long piece (as known for a stored turn) for one encoding. */
export function primeLongPiece(m: RoleMessage, encoding: EncodingName, long: boolean): void {
  longPieces[encoding].set(m, long);
}

function messageLongPiece(m: RoleMessage, encoding: EncodingName): boolean {
  let long = longPieces[encoding].get(m);
  if (long === undefined) {
    long = hasLongPiece(textOf(m), encoding) || (m.role === "assistant" && (m.tool_calls ?? []).some((c) => hasLongPiece(c.arguments, encoding)));
    longPieces[encoding].set(m, long);
  }
  return long;
}

/**
 * Whether any of these messages holds a piece longer than MAX_PIECE_BYTES (one "word" of
 * hundreds of letters), whose count is then approximate. One regex test per text for
 * ordinary text.
 */
export function anyLongPiece(messages: RoleMessage[], encoding: EncodingName): boolean {
  return messages.some((m) => messageLongPiece(m, encoding));
}
