// Follows AgentScope AutoContextMemory.summaryPreviousRoundMessages (strategy 4).
import { isFinalAssistantResponse, withoutPlanToolCalls, type AsMsg } from "./msg";
import { offloadTag, PREVIOUS_ROUND_PROMPT } from "./prompts";
import type { CompressionEvent, MemoryState } from "./state";
import { latestFinalAnswer, summarizeMessages, writtenAssistant } from "./summary-message";
import { estimateTokens } from "./token-estimate";

// Strategy 4: each finished round before the latest answer that has anything between
// the question and the answer (tool work) and weighs at least
// min_compression_token_threshold becomes question + one assistant summary
// (summary, newline, tag). Rounds are processed newest first so indices hold.

export async function summarizePreviousRounds(list: AsMsg[], state: MemoryState): Promise<CompressionEvent[] | null> {
  if (!list.length) return null;
  const latest = latestFinalAnswer(list, isFinalAssistantResponse);
  if (latest < 0) return null;
  const rounds: [number, number][] = [];
  let userAt = -1;
  for (let i = 0; i < latest; i++) {
    const m = list[i];
    if (m.role === "USER") userAt = i;
    else if (isFinalAssistantResponse(m) && userAt >= 0) {
      if (i - userAt !== 1) rounds.push([userAt, i]);
      userAt = -1;
    }
  }
  const events: CompressionEvent[] = [];
  for (let r = rounds.length - 1; r >= 0; r--) {
    const [userIndex, answerIndex] = rounds[r];
    const start = userIndex + 1;
    const msgs = list.slice(userIndex, answerIndex + 1);
    if (estimateTokens(msgs) < state.config.min_compression_token_threshold) continue;
    const uuid = state.newUuid();
    state.offloads.set(uuid, msgs);
    const { text, prompt } = await summarizeMessages(state, "PREVIOUS_ROUND_CONVERSATION_SUMMARY", PREVIOUS_ROUND_PROMPT, withoutPlanToolCalls(msgs));
    list.splice(start, answerIndex - start + 1, writtenAssistant(`${text}\n${offloadTag(uuid)}`, { offloadUuid: uuid }));
    events.unshift({ type: "PREVIOUS_ROUND_CONVERSATION_SUMMARY", compressed_message_count: answerIndex - start + 1, start, offload_ref: uuid, summarizer_messages: prompt });
  }
  return events.length ? events : null;
}
