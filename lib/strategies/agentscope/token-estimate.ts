import type { AsBlock, AsMsg } from "./msg";

// AgentScope's TokenCounterUtil: characters / 2.5 (rounded up per piece) plus fixed
// overheads per message, tool call and tool result. Not tiktoken: this is the number
// AutoContextMemory compares with its thresholds.

const CHARS_PER_TOKEN = 2.5;
const MESSAGE_OVERHEAD = 5;
const TOOL_CALL_OVERHEAD = 10;
const TOOL_RESULT_OVERHEAD = 8;
const OTHER_BLOCK = 5;

export function textTokens(text: string | null | undefined): number {
  if (!text) return 0;
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Java's toString of a value parsed from JSON (lists "[a, b]", maps "{k=v}"): what the estimate measures. */
function javaString(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return `[${v.map(javaString).join(", ")}]`;
  if (typeof v === "object")
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${k}=${javaString(x)}`)
      .join(", ")}}`;
  return String(v);
}

/** TokenCounterUtil's own JSON-ish rendering of tool arguments (strings quoted, nothing escaped). */
export function mapAsJson(map: Record<string, unknown>): string {
  const entries = Object.entries(map);
  if (!entries.length) return "{}";
  return `{${entries.map(([k, v]) => `"${k}":${typeof v === "string" ? `"${v}"` : javaString(v)}`).join(",")}}`;
}

function blockTokens(b: AsBlock): number {
  switch (b.type) {
    case "text":
      return textTokens(b.text);
    case "tool_use": {
      let n = TOOL_CALL_OVERHEAD + textTokens(b.name) + textTokens(b.id);
      if (b.input && Object.keys(b.input).length) n += textTokens(mapAsJson(b.input));
      if (b.raw !== null) n += textTokens(b.raw);
      return n;
    }
    case "tool_result":
      return TOOL_RESULT_OVERHEAD + textTokens(b.name) + textTokens(b.id) + b.output.reduce((s, t) => s + textTokens(t), 0);
    default:
      return OTHER_BLOCK;
  }
}

// Messages are never changed in place (a strategy writes a new one), so a count per object holds.
const cache = new WeakMap<AsMsg, number>();

export function messageTokens(msg: AsMsg): number {
  const hit = cache.get(msg);
  if (hit !== undefined) return hit;
  let n = MESSAGE_OVERHEAD + textTokens(msg.role) + textTokens(msg.name);
  for (const b of msg.content) n += blockTokens(b);
  cache.set(msg, n);
  return n;
}

export function estimateTokens(msgs: AsMsg[]): number {
  let n = 0;
  for (const m of msgs) n += messageTokens(m);
  return n;
}
