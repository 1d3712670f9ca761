// Follows AgentScope AutoContextMemory.summaryCurrentRoundMessages (strategy 6).
import { charCountOf, isToolUseMessage, withoutPlanToolCalls, type AsMsg } from "./msg";
import { CURRENT_ROUND_PROMPT, currentRoundBudget, offloadTag } from "./prompts";
import type { CompressionEvent, MemoryState } from "./state";
import { latestUser, summarizeMessages, writtenAssistant } from "./summary-message";

// Strategy 6: everything after the latest user message becomes one assistant message
// (summary directly followed by the tag), marked as a compressed current round so it
// never counts as an answer. A trailing tool call still waiting for its result stays.

export async function summarizeCurrentRound(list: AsMsg[], state: MemoryState): Promise<CompressionEvent[] | null> {
  if (!list.length) return null;
  const userAt = latestUser(list);
  if (userAt < 0 || userAt >= list.length - 1) return null;
  const start = userAt + 1;
  let end = list.length - 1;
  if (isToolUseMessage(list[end])) {
    end--;
    if (end < start) return null;
  }
  const msgs = list.slice(start, end + 1);
  const uuid = state.newUuid();
  state.offloads.set(uuid, msgs);
  const filtered = withoutPlanToolCalls(msgs);
  const original = charCountOf(filtered);
  const ratio = state.config.current_round_compression_ratio;
  const budget = currentRoundBudget(original, Math.round(original * ratio), Math.round(ratio * 100));
  const { text, prompt } = await summarizeMessages(state, "CURRENT_ROUND_MESSAGE_COMPRESS", CURRENT_ROUND_PROMPT, filtered, { after: [budget] });
  list.splice(start, msgs.length, writtenAssistant(`${text}${offloadTag(uuid)}`, { offloadUuid: uuid, currentRound: true }));
  return [{ type: "CURRENT_ROUND_MESSAGE_COMPRESS", compressed_message_count: msgs.length, start, offload_ref: uuid, summarizer_messages: prompt }];
}
