import { countTextTokens } from "./count-tokens";
import type { EncodingName } from "./registry";

// OpenAI's documented chat-format count ("How to count tokens with tiktoken"):
// every message costs 3 tokens of framing plus its role and content (+1 for a name),
// and the whole list costs 3 more for the primed reply. An empty list costs nothing.
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_NAME = 1;
export const REPLY_PRIMING_TOKENS = 3;
// Images are priced by the provider, not by tiktoken; we use OpenAI's low-detail
// base cost so a turn with an image is never counted as free.
export const IMAGE_PART_TOKENS = 85;

export const CHAT_FORMULA =
  "openai-chat: sum(3 + tokens(role) + tokens(content) [+1 if name]) + 3 reply priming; 0 for an empty list; image parts 85 each";

export type TextPart = { type: "text"; text: string };
export type FilePart = {
  type: "image" | "document" | "audio" | "video" | "custom";
  transfer_method: string;
  url?: string | null;
  upload_file_id?: string | null;
};
export type ContentPart = TextPart | FilePart;

export type ChatMessage = {
  role: "system" | "user" | "assistant" | "tool";
  content: string | ContentPart[];
  name?: string;
};

// Roles and names repeat on every message: remember their overhead rather than calling
// the tokenizer a thousand times for a 500-turn thread.
const overheads = new Map<string, number>();
const unnamedOverheads: Record<EncodingName, Map<string, number>> = { o200k_base: new Map(), cl100k_base: new Map() };
// The four roles are one token in both encodings: known without building a tokenizer, so
// that work from stored counts (incident detection's replayed windows) never builds one on
// the server's thread (~0.5 s once per process; tests/unit/chat-formula-roles.test.ts checks the table).
for (const enc of ["o200k_base", "cl100k_base"] as const) for (const role of ["system", "user", "assistant", "tool"]) unnamedOverheads[enc].set(role, TOKENS_PER_MESSAGE + 1);

/** Tokens of one message's framing + role (+ name), without its content. */
export function messageOverhead(role: string, encoding: EncodingName, name?: string): number {
  // Without a name (nearly every message), no key string to build: a thousand messages a request.
  if (!name) {
    const hit = unnamedOverheads[encoding].get(role);
    if (hit !== undefined) return hit;
  }
  const key = `${encoding}\u0000${role}\u0000${name ?? ""}`;
  let n = overheads.get(key);
  if (n === undefined) {
    n = TOKENS_PER_MESSAGE + countTextTokens(role, encoding);
    if (name) n += TOKENS_PER_NAME + countTextTokens(name, encoding);
    if (overheads.size < 10_000) overheads.set(key, n);
  }
  if (!name && unnamedOverheads[encoding].size < 1_000) unnamedOverheads[encoding].set(role, n);
  return n;
}

export function contentTokens(content: ChatMessage["content"], encoding: EncodingName): number {
  if (typeof content === "string") return countTextTokens(content, encoding);
  let n = 0;
  for (const part of content) {
    if (part.type === "text") n += countTextTokens(part.text, encoding);
    else if (part.type === "image") n += IMAGE_PART_TOKENS;
  }
  return n;
}

export function countChatTokens(messages: ChatMessage[], encoding: EncodingName): number {
  if (messages.length === 0) return 0;
  let total = REPLY_PRIMING_TOKENS;
  for (const m of messages) total += messageOverhead(m.role, encoding, m.name) + contentTokens(m.content, encoding);
  return total;
}
