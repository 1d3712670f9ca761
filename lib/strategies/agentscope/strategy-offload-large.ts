// Follows AgentScope AutoContextMemory.offloadingLargePayload (strategies 2 and 3).
import { firstResultText, isFinalAssistantResponse, isToolResultMessage, isToolUseMessage, textContent, type AsMsg } from "./msg";
import { offloadTag } from "./prompts";
import type { CompressionEvent, MemoryState } from "./state";
import { latestFinalAnswer } from "./summary-message";

// Strategies 2 and 3: single messages over large_payload_threshold characters before
// the latest answer are offloaded; the message keeps a preview, a newline, then the tag.
// Strategy 2 also spares the last `last_keep` messages; strategy 3 does not. Tool-call
// messages are never offloaded (their results would lose their call); a tool result
// keeps its call id.

function preview(text: string, size: number): string {
  return text.length > size ? `${text.slice(0, size)}...` : text;
}

/**
 * Whether strategies 2 and 3 offload this message wherever it stands: over the threshold
 * (a tool result by its output, any other message by its text), never a tool call.
 * (lib/strategies/agentscope/memory-facts.ts skips them when no message is.)
 */
export function hasLargePayload(msg: AsMsg, threshold: number): boolean {
  if (isToolUseMessage(msg)) return false;
  if (isToolResultMessage(msg)) {
    const output = firstResultText(msg);
    return output !== null && output.length > threshold;
  }
  return textContent(msg).length > threshold;
}

export function offloadLargeMessages(protectLastKeep: boolean) {
  return async (list: AsMsg[], state: MemoryState): Promise<CompressionEvent[] | null> => {
    const { last_keep, large_payload_threshold: threshold, offload_single_preview: previewSize } = state.config;
    if (!list.length || list.length < last_keep) return null;
    const latest = latestFinalAnswer(list, isFinalAssistantResponse);
    let searchEnd: number;
    if (protectLastKeep) {
      const protectedStart = Math.max(0, list.length - last_keep);
      searchEnd = latest >= 0 ? Math.min(latest, protectedStart) : protectedStart;
    } else {
      searchEnd = latest >= 0 ? latest : 0;
    }
    const type = protectLastKeep ? "LARGE_MESSAGE_OFFLOAD_WITH_PROTECTION" : "LARGE_MESSAGE_OFFLOAD";
    const events: CompressionEvent[] = [];
    for (let i = searchEnd - 1; i >= 0; i--) {
      const msg = list[i];
      if (!hasLargePayload(msg, threshold)) continue;
      let replacement: AsMsg | null = null;
      if (isToolResultMessage(msg)) {
        const result = msg.content.find((b) => b.type === "tool_result");
        const output = firstResultText(msg);
        if (result?.type !== "tool_result" || output === null) continue;
        const ref = state.newUuid();
        state.offloads.set(ref, [msg]);
        replacement = {
          role: msg.role,
          name: msg.name,
          content: [{ type: "tool_result", id: result.id, name: result.name, output: [`${preview(output, previewSize)}\n${offloadTag(ref)}`] }],
          compress: { offloadUuid: ref },
          source: null,
          index: msg.index,
        };
      } else {
        const text = textContent(msg);
        const ref = state.newUuid();
        state.offloads.set(ref, [msg]);
        replacement = {
          role: msg.role,
          name: msg.name,
          content: [{ type: "text", text: `${preview(text, previewSize)}\n${offloadTag(ref)}` }],
          compress: { offloadUuid: ref },
          source: null,
          index: msg.index,
        };
      }
      list[i] = replacement;
      events.push({ type, compressed_message_count: 1, start: i, offload_ref: replacement.compress!.offloadUuid!, summarizer_messages: null });
    }
    return events.length ? events : null;
  };
}
