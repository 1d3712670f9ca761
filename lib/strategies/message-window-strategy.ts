import { excludeTools } from "./exclude-tools";
import type { RoleMessage } from "./schemas";
import type { StrategyOutput, Transformed } from "./strategy-types";

/** Cuts to at most `length` characters (code points), never half a surrogate pair. */
export function truncateChars(text: string, length: number): string {
  const chars = Array.from(text);
  return chars.length <= length ? text : chars.slice(0, length).join("");
}

function truncateContent(m: RoleMessage, length: number): { message: RoleMessage; from: number } | null {
  if (typeof m.content === "string") {
    const n = Array.from(m.content).length;
    return n > length ? { message: { ...m, content: truncateChars(m.content, length) }, from: n } : null;
  }
  let changed = false;
  let from = 0;
  const parts = m.content.map((p) => {
    if (p.type !== "text") return p;
    const n = Array.from(p.text).length;
    if (n <= length) return p;
    changed = true;
    from = Math.max(from, n);
    return { ...p, text: truncateChars(p.text, length) };
  });
  return changed ? { message: { ...m, content: parts }, from } : null;
}

/**
 * Agents-Flex MemoryPrompt.getMessages: the newest `max_attached_message_count`
 * messages; optionally each cut to `history_message_truncate_length` characters (on
 * copies, never on the stored messages); the configured system message first unless
 * the window already starts with one; temporary messages last, never truncated.
 */
export function messageWindowStrategy(
  messages: RoleMessage[],
  opts: {
    max_attached_message_count: number;
    history_message_truncate_enable: boolean;
    history_message_truncate_length: number;
    system_message?: string;
    include_tools: boolean;
  },
  temporary: RoleMessage[] = [],
): StrategyOutput {
  if (!Number.isInteger(opts.max_attached_message_count) || opts.max_attached_message_count <= 0) {
    throw new RangeError("max_attached_message_count must be > 0");
  }
  const base = opts.include_tools
    ? { kept: messages.map((m, index) => ({ m, index })), dropped: [], transformed: [] as Transformed[] }
    : excludeTools(messages);
  const cut = Math.max(0, base.kept.length - opts.max_attached_message_count);
  const dropped = [
    ...base.dropped,
    ...base.kept.slice(0, cut).map((it) => ({ index: it.index, reason: `older than the newest ${opts.max_attached_message_count} messages` })),
  ].sort((a, b) => a.index - b.index);
  const transformed: Transformed[] = [...base.transformed];

  const windowItems = base.kept.slice(cut);
  const window = windowItems.map((it) => {
    if (!opts.history_message_truncate_enable) return it.m;
    const t = truncateContent(it.m, opts.history_message_truncate_length);
    if (!t) return it.m;
    transformed.push({ index: it.index, action: "truncated", reason: `${t.from} characters cut to ${opts.history_message_truncate_length} (a copy; the stored message is unchanged)` });
    return t.message;
  });

  const out: RoleMessage[] = [];
  const sourceIndex: number[] = [];
  if (opts.system_message && window[0]?.role !== "system") {
    out.push({ role: "system", content: opts.system_message });
    sourceIndex.push(-1);
    transformed.push({ index: -1, action: "system_inserted", reason: "configured system message placed first" });
  }
  out.push(...window);
  sourceIndex.push(...windowItems.map((it) => it.index));
  temporary.forEach((m, i) => {
    out.push(m);
    sourceIndex.push(-1);
    transformed.push({ index: -1, action: "temporary_appended", reason: `temporary message ${i + 1} of ${temporary.length}: used once, not stored, never truncated` });
  });
  return { messages: out, sourceIndex, dropped, transformed: transformed.sort((a, b) => a.index - b.index) };
}

/**
 * The stateful side of Agents-Flex's MemoryPrompt: history is kept, temporary messages
 * are handed out once by getMessages() and then forgotten.
 */
export class MemoryPrompt {
  private readonly history: RoleMessage[] = [];
  private temporary: RoleMessage[] = [];

  constructor(private readonly opts: Parameters<typeof messageWindowStrategy>[1]) {}

  addMessage(m: RoleMessage) {
    this.history.push(m);
  }

  addMessageTemporary(m: RoleMessage) {
    this.temporary.push(m);
  }

  getMessages(): RoleMessage[] {
    const out = messageWindowStrategy(this.history, this.opts, this.temporary).messages;
    this.temporary = [];
    return out;
  }

  storedMessages(): readonly RoleMessage[] {
    return this.history;
  }
}
