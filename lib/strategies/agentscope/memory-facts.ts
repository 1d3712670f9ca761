import { isFinalAssistantResponse, isToolMessage, type AsMsg } from "./msg";
import type { AutoContextConfig } from "./state";
import { hasLargePayload } from "./strategy-offload-large";
import { latestFinalAnswer, latestUser } from "./summary-message";
import { messageTokens } from "./token-estimate";

// What compressIfNeeded needs to know about the memory before running its six strategies,
// kept up to date as messages are appended. A replay of a long conversation runs
// compressIfNeeded before every assistant message; once the memory is past msg_threshold
// every call is triggered, and each strategy scans the whole memory to find (usually)
// nothing to do: quadratic in the thread (a 500-turn thread: ~450 triggered calls × six
// scans of up to 1 000 messages). These facts are extended by the messages appended since
// the last call (amortised O(1) per message) and say, exactly, when a strategy cannot change
// anything; only then is it skipped. They never decide what a strategy does: when a strategy
// might apply, the strategy itself runs on the whole memory as before.
//
// Valid because between two calls the memory array is only appended to (the replay's push);
// a strategy that applies writes a new array (compressIfNeeded's copy), whose facts are
// then built afresh. Messages are never changed in place.

export type MemoryFacts = {
  config: AutoContextConfig;
  /** Messages accounted for (a prefix of the array). */
  length: number;
  /** AgentScope's token estimate of those messages (estimateTokens). */
  tokens: number;
  /** prefix[i]: the estimate of the first i messages (prefix[0] = 0). */
  prefix: number[];
  /** Length of the longest run of consecutive tool messages, and of the run at the end. */
  longestToolRun: number;
  trailingToolRun: number;
  /** Whether any message would be offloaded by strategies 2 and 3 wherever it stood. */
  anyLargePayload: boolean;
  /** Strategy 4's round scan: the open round's user message (or -1)... */
  roundUser: number;
  /** ...and the answer index of the first round it would summarize (gap, enough tokens), or -1. */
  firstHeavyRound: number;
};

const facts = new WeakMap<AsMsg[], MemoryFacts>();

function fresh(config: AutoContextConfig): MemoryFacts {
  return { config, length: 0, tokens: 0, prefix: [0], longestToolRun: 0, trailingToolRun: 0, anyLargePayload: false, roundUser: -1, firstHeavyRound: -1 };
}

function extend(f: MemoryFacts, memory: AsMsg[]): void {
  for (let i = f.length; i < memory.length; i++) {
    const m = memory[i];
    f.tokens += messageTokens(m);
    f.prefix.push(f.tokens);
    f.trailingToolRun = isToolMessage(m) ? f.trailingToolRun + 1 : 0;
    if (f.trailingToolRun > f.longestToolRun) f.longestToolRun = f.trailingToolRun;
    if (!f.anyLargePayload && hasLargePayload(m, f.config.large_payload_threshold)) f.anyLargePayload = true;
    // summarizePreviousRounds's scan, one message at a time (it does not depend on where the scan ends).
    if (m.role === "USER") f.roundUser = i;
    else if (isFinalAssistantResponse(m) && f.roundUser >= 0) {
      if (i - f.roundUser !== 1 && f.firstHeavyRound < 0 && f.prefix[i + 1] - f.prefix[f.roundUser] >= f.config.min_compression_token_threshold) f.firstHeavyRound = i;
      f.roundUser = -1;
    }
  }
  f.length = memory.length;
}

/** The facts of this memory array, extended by whatever was appended since they were last read. */
export function memoryFacts(memory: AsMsg[], config: AutoContextConfig): MemoryFacts {
  let f = facts.get(memory);
  if (!f || f.config !== config || f.length > memory.length) {
    f = fresh(config);
    facts.set(memory, f);
  }
  if (f.length < memory.length) extend(f, memory);
  return f;
}

/**
 * false when strategy `s` (1-6, compressIfNeeded's order) certainly returns null on this
 * memory; true when it may apply (then it is run).
 */
export function mayApply(s: number, memory: AsMsg[], f: MemoryFacts): boolean {
  switch (s) {
    case 1:
      // A tool run it compresses is more than min_consecutive_tool_messages consecutive tool messages.
      return f.longestToolRun > f.config.min_consecutive_tool_messages;
    case 2:
    case 3:
      return f.anyLargePayload;
    case 4: {
      // It summarizes rounds that end before the latest final answer.
      if (f.firstHeavyRound < 0) return false;
      return f.firstHeavyRound < latestFinalAnswer(memory, isFinalAssistantResponse);
    }
    default: {
      // 5 and 6 work on what follows the latest user message: nothing follows, nothing to do.
      const userAt = latestUser(memory);
      return userAt >= 0 && userAt < memory.length - 1;
    }
  }
}
