// Follows AgentScope AutoContextMemory's compression pass (in getMessages): the trigger, then strategies 1 to 6 in order.
import { mayApply, memoryFacts } from "./memory-facts";
import type { AsMsg } from "./msg";
import type { CompressionEvent, MemoryState, StrategyPass } from "./state";
import { summarizeCurrentRound } from "./strategy-current-round";
import { summarizeCurrentRoundLarge } from "./strategy-current-round-large";
import { offloadLargeMessages } from "./strategy-offload-large";
import { summarizePreviousRounds } from "./strategy-previous-rounds";
import { compressToolRuns } from "./strategy-tool-runs";
import { estimateTokens } from "./token-estimate";

/** The six strategies in AutoContextMemory's order. */
const STRATEGIES: StrategyPass[] = [
  compressToolRuns,
  offloadLargeMessages(true),
  offloadLargeMessages(false),
  summarizePreviousRounds,
  summarizeCurrentRoundLarge,
  summarizeCurrentRound,
];

export type StepReport = {
  triggered: boolean;
  /** 1-6, or null when nothing was triggered or no strategy changed anything. */
  strategy: number | null;
  events: CompressionEvent[];
  messages_before: number;
  tokens_before: number;
  messages_after: number;
  tokens_after: number;
  threshold_tokens: number;
};

/** floor(max_token × token_ratio), as AgentScope's int cast. */
export const thresholdTokens = (s: MemoryState) => Math.floor(s.config.max_token * s.config.token_ratio);

/**
 * AutoContextMemory.compressIfNeeded, run before a model call: when the message count
 * or the estimated tokens reach their threshold (>=), the first strategy that changes
 * anything is applied and the step ends. Thresholds are not checked again; nothing is
 * dropped. The memory is changed in place and carried to the next call.
 */
export async function compressIfNeeded(state: MemoryState): Promise<StepReport> {
  const before = state.memory.length;
  // Kept up to date as the replay appends messages (memory-facts.ts): O(new messages), not O(memory).
  const facts = memoryFacts(state.memory, state.config);
  const tokensBefore = facts.tokens;
  const threshold = thresholdTokens(state);
  const report: StepReport = {
    triggered: before >= state.config.msg_threshold || tokensBefore >= threshold,
    strategy: null,
    events: [],
    messages_before: before,
    tokens_before: tokensBefore,
    messages_after: before,
    tokens_after: tokensBefore,
    threshold_tokens: threshold,
  };
  if (!report.triggered) return report;
  // A strategy changes the list only when it applies, so one copy serves all six; it is made
  // only for a strategy that may apply (usually none: nothing new to compress since the last call).
  let list: AsMsg[] | null = null;
  for (let s = 0; s < STRATEGIES.length; s++) {
    if (!mayApply(s + 1, state.memory, facts)) continue;
    list ??= [...state.memory];
    const events = await STRATEGIES[s](list, state);
    if (!events) continue;
    state.memory = list;
    report.strategy = s + 1;
    report.events = events;
    report.messages_after = list.length;
    report.tokens_after = estimateTokens(list);
    break;
  }
  return report;
}
