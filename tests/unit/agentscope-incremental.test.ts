import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { thresholdTokens, type StepReport } from "@/lib/strategies/agentscope/compress-if-needed";
import { fromRoleMessages, toRoleMessage, type AsMsg } from "@/lib/strategies/agentscope/msg";
import { configOf, replayAutoContext, runAutoContext, type SummaryInfo } from "@/lib/strategies/agentscope/run-auto-context";
import type { MemoryState, StrategyPass } from "@/lib/strategies/agentscope/state";
import { summarizeCurrentRound } from "@/lib/strategies/agentscope/strategy-current-round";
import { summarizeCurrentRoundLarge } from "@/lib/strategies/agentscope/strategy-current-round-large";
import { offloadLargeMessages } from "@/lib/strategies/agentscope/strategy-offload-large";
import { summarizePreviousRounds } from "@/lib/strategies/agentscope/strategy-previous-rounds";
import { compressToolRuns } from "@/lib/strategies/agentscope/strategy-tool-runs";
import { placeholderSummarizer } from "@/lib/strategies/agentscope/summarize-placeholder";
import { estimateTokens } from "@/lib/strategies/agentscope/token-estimate";
import { ZAutoContextStrategy, type AutoContextStrategy, type RoleMessage } from "@/lib/strategies/schemas";

// compressIfNeeded skips the strategies its incremental facts (memory-facts.ts) prove have
// nothing to do, and keeps the token estimate up to date as the replay appends messages.
// The oracle here is the computation as it was before: every call estimates the whole memory,
// copies it and runs all six strategies in order until one applies. On random threads
// (answers, tool runs, large payloads, plan tools) and random settings small enough for every
// strategy to fire, both must give the same steps, memory, offloads and uuids.

const STRATEGIES: StrategyPass[] = [compressToolRuns, offloadLargeMessages(true), offloadLargeMessages(false), summarizePreviousRounds, summarizeCurrentRoundLarge, summarizeCurrentRound];

async function fullCompress(state: MemoryState): Promise<StepReport> {
  const before = state.memory.length;
  const tokensBefore = estimateTokens(state.memory);
  const threshold = thresholdTokens(state);
  const report: StepReport = { triggered: before >= state.config.msg_threshold || tokensBefore >= threshold, strategy: null, events: [], messages_before: before, tokens_before: tokensBefore, messages_after: before, tokens_after: tokensBefore, threshold_tokens: threshold };
  if (!report.triggered) return report;
  const list = [...state.memory];
  for (let s = 0; s < STRATEGIES.length; s++) {
    const events = await STRATEGIES[s](list, state);
    if (!events) continue;
    state.memory = list;
    Object.assign(report, { strategy: s + 1, events, messages_after: list.length, tokens_after: estimateTokens(list) });
    break;
  }
  return report;
}

const uuids = () => {
  let n = 0;
  return () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
};
const placeholder: SummaryInfo = { summarize: placeholderSummarizer, model: null, counts: () => ({ calls: 0, cached: 0 }) };

/** The old replay loop (run-auto-context.ts before the facts), every step's report kept. */
async function oracleReplay(history: RoleMessage[], next: RoleMessage | null, s: AutoContextStrategy) {
  const state: MemoryState = { config: configOf(s), memory: [], offloads: new Map(), summarize: placeholderSummarizer, newUuid: uuids() };
  const steps: (StepReport & { call: number; turn_index: number | null })[] = [];
  let calls = 0;
  const call = async (turnIndex: number | null) => {
    calls++;
    const r = await fullCompress(state);
    if (r.strategy !== null) steps.push({ call: calls, turn_index: turnIndex, ...r });
  };
  for (const m of fromRoleMessages(next ? [...history, next] : history)) {
    if (m.role === "ASSISTANT" && m.index < history.length && state.memory.length) await call(m.index);
    state.memory.push(m);
  }
  await call(null);
  return { steps, calls, memory: state.memory.map(toRoleMessage), tokens: estimateTokens(state.memory), offloads: [...state.offloads].map(([k, v]: [string, AsMsg[]]) => [k, v.map(toRoleMessage)]) };
}

/** Replays with both computations and expects the same result; returns the oracle's. */
async function same(history: RoleMessage[], next: RoleMessage | null, s: AutoContextStrategy) {
  const want = await oracleReplay(history, next, s);
  const got = await replayAutoContext(history, next, s, placeholder, { newUuid: uuids() });
  expect(got.report.steps.map(({ call, turn_index, ...r }) => ({ call, turn_index, ...r }))).toEqual(want.steps);
  expect(got.report.calls).toBe(want.calls);
  expect(got.memory).toEqual(want.memory);
  expect(got.report.memory.tokens).toBe(want.tokens);
  // finish() lists offloads in event order; the oracle has them by uuid.
  expect(new Map((got.offloads ?? []).map((o) => [o.ref, JSON.parse(o.content)]))).toEqual(new Map(want.offloads as [string, RoleMessage[]][]));
  return want;
}

/** One turn: a question, maybe tool calls (some plan tools, some large results), an answer. */
const turn = fc
  .record({
    q: fc.nat(60),
    tools: fc.array(fc.record({ name: fc.constantFrom("read_file", "search", "create_plan"), out: fc.nat(120) }), { maxLength: 9 }),
    oneCall: fc.boolean(),
    a: fc.nat(80),
    answered: fc.integer({ min: 0, max: 9 }),
    userless: fc.integer({ min: 0, max: 9 }),
  })
  .map(({ q, tools, oneCall, a, answered, userless }): RoleMessage[] => {
    const out: RoleMessage[] = [{ role: "user", content: "q".repeat(q + 1) }];
    const calls = tools.map((t, i) => ({ id: `c${i}-${q}-${a}`, name: t.name, arguments: `{"n":${t.out}}` }));
    if (oneCall && calls.length) out.push({ role: "assistant", content: "", tool_calls: calls });
    calls.forEach((c, i) => {
      if (!oneCall) out.push({ role: "assistant", content: i % 3 === 0 ? "let me look" : "", tool_calls: [c] });
      out.push({ role: "tool", tool_call_id: c.id, content: "r".repeat(tools[i].out) });
    });
    // Now and then a turn without its answer (an agent stopped mid-round).
    if (answered > 0) out.push({ role: "assistant", content: "a".repeat(a + 1) });
    // And now and then a turn with no question of its own (two answers in a row, say).
    return userless === 0 ? out.slice(1) : out;
  });

const settings = fc.record({
  msg_threshold: fc.integer({ min: 1, max: 30 }),
  max_token: fc.integer({ min: 50, max: 4000 }),
  token_ratio: fc.constantFrom(0.5, 0.75, 1),
  last_keep: fc.integer({ min: 0, max: 12 }),
  large_payload_threshold: fc.integer({ min: 10, max: 150 }),
  offload_single_preview: fc.integer({ min: 0, max: 30 }),
  min_consecutive_tool_messages: fc.integer({ min: 0, max: 6 }),
  min_compression_token_threshold: fc.integer({ min: 0, max: 300 }),
});

describe("auto_context's incremental compressIfNeeded equals the full computation", () => {
  it("replays of random threads: same steps, memory, offloads and report", async () => {
    const fired = new Set<number | null>();
    await fc.assert(
      fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 25 }), settings, fc.boolean(), async (turns, over, withNext) => {
        const history = turns.flat();
        const s = ZAutoContextStrategy.parse({ type: "auto_context", ...over });
        const next: RoleMessage | null = withNext ? { role: "user", content: "the next question" } : null;
        for (const step of (await same(history, next, s)).steps) fired.add(step.strategy);
      }),
      { numRuns: 200, seed: 2022 },
    );
    // The threads were varied enough for every strategy to apply somewhere.
    expect([...fired].sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("a heavy round is summarized once an answer follows it, even an answer right after it", async () => {
    const call = { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "search", arguments: "{}" }] } as RoleMessage;
    const history: RoleMessage[] = [{ role: "user", content: "q" }, call, { role: "tool", tool_call_id: "c1", content: "r" }, { role: "assistant", content: "a" }, { role: "assistant", content: "b" }];
    const s = ZAutoContextStrategy.parse({ type: "auto_context", msg_threshold: 6, min_compression_token_threshold: 0, large_payload_threshold: 1000 });
    const want = await same(history, { role: "user", content: "next" }, s);
    expect(want.steps.map((x) => x.strategy)).toEqual([4]);
  });

  it("runs of several calls on one memory (no appends): same as the full computation", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 15 }), settings, fc.integer({ min: 1, max: 6 }), async (turns, over, steps) => {
        const history = turns.flat();
        const s = ZAutoContextStrategy.parse({ type: "auto_context", ...over, steps });
        const state: MemoryState = { config: configOf(s), memory: fromRoleMessages(history), offloads: new Map(), summarize: placeholderSummarizer, newUuid: uuids() };
        const want: StepReport[] = [];
        for (let i = 0; i < steps; i++) want.push(await fullCompress(state));
        const got = await runAutoContext(history, s, placeholder, { newUuid: uuids() });
        expect(got.report.steps.map(({ call: _c, turn_index: _t, ...r }) => r)).toEqual(want);
        expect(got.memory).toEqual(state.memory.map(toRoleMessage));
      }),
      { numRuns: 200, seed: 2023 },
    );
  });
});
