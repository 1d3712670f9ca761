import type { RoleMessage } from "../schemas";
import type { Dropped, StrategyOutput, Transformed } from "../strategy-types";

// Mastra (@mastra/core 1.71, @mastra/memory 1.31): Memory's `lastMessages` recall through the
// MessageHistory processor, then MessageList's prompt. Mastra stores a user message as one
// message and a whole agent reply (its tool calls, their results, its final text) as ONE
// message; lastMessages counts those stored messages.

export const MASTRA_DEFAULT_LAST_MESSAGES = 10;

/** Stored messages as Mastra keeps them: each user message alone, each run of assistant and tool messages together. */
export function mastraStoredGroups(messages: RoleMessage[]): number[][] {
  const groups: number[][] = [];
  let replyOpen = false;
  messages.forEach((m, i) => {
    // Never stored: a reply runs on across it.
    if (m.role === "system") return;
    if (m.role === "user") {
      groups.push([i]);
      replyOpen = false;
    } else if (replyOpen) groups[groups.length - 1].push(i);
    else {
      groups.push([i]);
      replyOpen = true;
    }
  });
  return groups;
}

/**
 * The history an agent with `memory: new Memory({ options: { lastMessages } })` sends: the newest
 * `last_messages` stored messages (0 or false: none), then the call's messages; when the first
 * message that is not a system message is an assistant's, Mastra puts a user message "." before it.
 */
export function mastraLastMessagesStrategy(messages: RoleMessage[], opts: { last_messages: number | false }, temporary: RoleMessage[] = []): StrategyOutput {
  const groups = mastraStoredGroups(messages);
  const n = opts.last_messages === false ? 0 : opts.last_messages;
  const keptGroups = n === 0 ? [] : groups.slice(Math.max(0, groups.length - n));
  const keptIndex = keptGroups.flat();
  const keptSet = new Set(keptIndex);
  const groupOf = new Map<number, number>();
  groups.forEach((g, gi) => g.forEach((i) => groupOf.set(i, gi)));
  const dropped: Dropped[] = [];
  messages.forEach((m, index) => {
    if (keptSet.has(index)) return;
    if (m.role === "system") dropped.push({ index, reason: "Mastra never stores system messages (the agent's instructions are sent apart)" });
    else if (n === 0) dropped.push({ index, reason: `last_messages ${opts.last_messages}: Mastra sends no history` });
    else {
      const g = groups[groupOf.get(index)!];
      const size = g.length > 1 ? ` (one stored message with ${g.length - 1} other${g.length > 2 ? "s" : ""}: Mastra stores a reply's tool calls, results and text together)` : "";
      dropped.push({ index, reason: `older than the newest ${n} stored messages${size}` });
    }
  });
  const out: RoleMessage[] = keptIndex.map((i) => messages[i]);
  const sourceIndex = [...keptIndex];
  const transformed: Transformed[] = [];
  temporary.forEach((m, i) => {
    out.push(m);
    sourceIndex.push(-1);
    transformed.push({ index: -1, action: "temporary_appended", reason: `temporary message ${i + 1} of ${temporary.length}: the call's input, not counted by last_messages` });
  });
  const first = out.findIndex((m) => m.role !== "system");
  if (first >= 0 && out[first].role === "assistant") {
    out.splice(first, 0, { role: "user", content: "." });
    sourceIndex.splice(first, 0, -1);
    transformed.push({ index: -1, action: "message_inserted", reason: 'Mastra inserted a user message "." because the history would start with an assistant message' });
  }
  return { messages: out, sourceIndex, dropped, transformed: transformed.sort((a, b) => a.index - b.index) };
}
