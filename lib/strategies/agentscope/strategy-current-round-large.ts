// Follows AgentScope AutoContextMemory.summaryCurrentRoundLargeMessages (strategy 5).
import type { RoleMessage } from "../schemas";
import { charCount, hasToolResult, hasToolUse, isCompressedMessage, textContent, type AsBlock, type AsMsg } from "./msg";
import { CURRENT_ROUND_LARGE_PROMPT, offloadTag } from "./prompts";
import type { CompressionEvent, MemoryState } from "./state";
import { latestUser, summarizeMessages } from "./summary-message";

// Strategy 5: each message after the latest user message that is over
// large_payload_threshold (by its text, or by its whole size when it has no text) is
// offloaded and summarized in place: same role, tool-call blocks and result ids kept,
// the summary followed directly by the tag (no newline).

/** What the summarizer is shown of the message: its text only, so tool blocks don't look like calls. */
function forSummarizer(msg: AsMsg): RoleMessage[] | undefined {
  if (hasToolUse(msg)) {
    const text = textContent(msg);
    return text ? [{ role: "assistant", content: text }] : undefined;
  }
  const result = msg.content.filter((b) => b.type === "tool_result");
  if (result.length) {
    const text = result.flatMap((r) => r.output).join("\n");
    return text ? [{ role: "tool", tool_call_id: result[0].id, content: text }] : undefined;
  }
  return undefined;
}

function summaryBlocks(msg: AsMsg, text: string): AsBlock[] {
  if (hasToolUse(msg)) {
    const blocks: AsBlock[] = [];
    let wroteText = false;
    for (const b of msg.content) {
      if (b.type !== "text") blocks.push(b);
      else if (!wroteText) {
        blocks.push({ type: "text", text });
        wroteText = true;
      }
    }
    if (!wroteText && text) blocks.unshift({ type: "text", text });
    return blocks;
  }
  if (hasToolResult(msg)) {
    const blocks: AsBlock[] = [];
    let wroteResult = false;
    for (const b of msg.content) {
      if (b.type !== "tool_result") blocks.push(b);
      else if (!wroteResult) {
        blocks.push({ type: "tool_result", id: b.id, name: b.name, output: [text] });
        wroteResult = true;
      }
    }
    return blocks;
  }
  return [{ type: "text", text }];
}

export async function summarizeCurrentRoundLarge(list: AsMsg[], state: MemoryState): Promise<CompressionEvent[] | null> {
  if (!list.length) return null;
  const userAt = latestUser(list);
  if (userAt < 0 || userAt >= list.length - 1) return null;
  const threshold = state.config.large_payload_threshold;
  const events: CompressionEvent[] = [];
  for (let i = list.length - 1; i > userAt; i--) {
    const msg = list[i];
    if (isCompressedMessage(msg)) continue;
    const text = textContent(msg);
    if (!text && charCount(msg) <= threshold) continue;
    if (text && text.length <= threshold) continue;
    const uuid = state.newUuid();
    state.offloads.set(uuid, [msg]);
    const { text: summary, prompt } = await summarizeMessages(state, "CURRENT_ROUND_LARGE_MESSAGE_SUMMARY", CURRENT_ROUND_LARGE_PROMPT, [msg], { chat: forSummarizer(msg) });
    list[i] = { role: msg.role, name: msg.name, content: summaryBlocks(msg, `${summary}${offloadTag(uuid)}`), compress: { offloadUuid: uuid }, source: null, index: msg.index };
    events.push({ type: "CURRENT_ROUND_LARGE_MESSAGE_SUMMARY", compressed_message_count: 1, start: i, offload_ref: uuid, summarizer_messages: prompt });
  }
  return events.length ? events : null;
}
