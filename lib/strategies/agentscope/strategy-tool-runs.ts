// Follows AgentScope AutoContextMemory.summaryToolsMessages (strategy 1, with extractPrevToolMsgsForCompress).
import { isFinalAssistantResponse, isToolMessage, isToolResultMessage, isToolUseMessage, withoutPlanToolCalls, type AsMsg } from "./msg";
import { offloadTag, TOOL_RUN_PROMPT } from "./prompts";
import type { CompressionEvent, MemoryState } from "./state";
import { latestFinalAnswer, summarizeMessages, writtenAssistant } from "./summary-message";
import { estimateTokens } from "./token-estimate";

// Strategy 1: old runs of consecutive tool messages become one assistant summary each
// (at most five runs per model call).

const MAX_RUNS_PER_CALL = 5;

/** Trims a run so it starts at a tool call and ends at a tool result; null when too short after. */
function trimRun(list: AsMsg[], start: number, end: number, min: number, onInvalid: "skip" | "stop"): [number, number] | null | "stop" {
  let s = start;
  let e = end;
  while (s <= e && !isToolUseMessage(list[s])) {
    if (isToolResultMessage(list[s])) s++;
    else if (onInvalid === "stop") return "stop";
    else break;
  }
  while (e >= s && !isToolResultMessage(list[e])) {
    if (isToolUseMessage(list[e])) e--;
    else if (onInvalid === "stop") return "stop";
    else break;
  }
  return s <= e && e - s + 1 > min ? [s, e] : null;
}

/** The oldest run of more than `min_consecutive_tool_messages` tool messages before the protected tail. */
export function findToolRun(list: AsMsg[], state: MemoryState, from: number): [number, number] | null {
  const { last_keep, min_consecutive_tool_messages: min } = state.config;
  if (!list.length || list.length < last_keep) return null;
  const latest = latestFinalAnswer(list, isFinalAssistantResponse);
  if (latest === -1) return null;
  const searchEnd = Math.min(latest, list.length - last_keep);
  let count = 0;
  let start = -1;
  for (let i = Math.max(0, from); i < searchEnd; i++) {
    if (isToolMessage(list[i])) {
      if (count === 0) start = i;
      count++;
      continue;
    }
    if (count > min) {
      const run = trimRun(list, start, i - 1, min, "skip");
      if (run && run !== "stop") return run;
    }
    count = 0;
    start = -1;
  }
  if (count > min) {
    const run = trimRun(list, start, searchEnd - 1, min, "stop");
    if (run && run !== "stop") return run;
  }
  return null;
}

export async function compressToolRuns(list: AsMsg[], state: MemoryState): Promise<CompressionEvent[] | null> {
  const events: CompressionEvent[] = [];
  let cursor = 0;
  for (let iter = 0; iter < MAX_RUNS_PER_CALL; iter++) {
    const run = findToolRun(list, state, cursor);
    if (!run) break;
    const [start, end] = run;
    const msgs = list.slice(start, end + 1);
    if (estimateTokens(msgs) < state.config.min_compression_token_threshold) {
      cursor = end + 1;
      continue;
    }
    const uuid = state.newUuid();
    state.offloads.set(uuid, msgs);
    const { text, prompt } = await summarizeMessages(state, "TOOL_INVOCATION_COMPRESS", TOOL_RUN_PROMPT, withoutPlanToolCalls(msgs));
    list.splice(start, msgs.length, writtenAssistant(`${text}\n${offloadTag(uuid)}`, { offloadUuid: uuid }));
    events.push({ type: "TOOL_INVOCATION_COMPRESS", compressed_message_count: msgs.length, start, offload_ref: uuid, summarizer_messages: prompt });
    cursor = start + 1;
  }
  return events.length ? events : null;
}
