import { describe, expect, it } from "vitest";
import { fromRoleMessages } from "@/lib/strategies/agentscope/msg";
import { CONTEXT_RELOAD_TOOL, HOOK_INSTRUCTION } from "@/lib/strategies/agentscope/prompts";
import { configOf, replayAutoContext, runAutoContext, type SummaryInfo } from "@/lib/strategies/agentscope/run-auto-context";
import { placeholderSummarizer } from "@/lib/strategies/agentscope/summarize-placeholder";
import { estimateTokens, messageTokens } from "@/lib/strategies/agentscope/token-estimate";
import { ZAutoContextStrategy, type RoleMessage } from "@/lib/strategies/schemas";

// runAutoContext / replayAutoContext: the whole report, the transformed list, the
// offloads, compared field by field with what AgentScope's AutoContextMemory would
// do on the same memory.

const u = (content: string): RoleMessage => ({ role: "user", content });
const a = (content: string): RoleMessage => ({ role: "assistant", content });
const call = (id: string): RoleMessage => ({ role: "assistant", content: "", tool_calls: [{ id, name: "read_file", arguments: "{}" }] });
const tool = (id: string, content = `result of ${id}`): RoleMessage => ({ role: "tool", tool_call_id: id, content });
const strategy = (over: Record<string, unknown> = {}) => ZAutoContextStrategy.parse({ type: "auto_context", ...over });
const uuids = () => {
  let n = 0;
  return () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
};
const REF = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const TAG = (n: number) => `<!-- CONTEXT_OFFLOAD: uuid=${REF(n)} -->`;

/** A summarizer standing in for a chat model: counts calls the way modelSummarizer does. */
function fakeModel(cachedEvery = 0) {
  const counts = { calls: 0, cached: 0 };
  const setCalls: number[] = [];
  const info: SummaryInfo = {
    summarize: async (r) => {
      if (cachedEvery && (counts.calls + counts.cached + 1) % cachedEvery === 0) counts.cached++;
      else counts.calls++;
      return `summary of ${r.covered.messages}`;
    },
    model: "fake-model",
    counts: () => ({ ...counts }),
    setCall: (n) => setCalls.push(n),
  };
  return { info, setCalls };
}
const placeholder: SummaryInfo = { summarize: placeholderSummarizer, model: null, counts: () => ({ calls: 0, cached: 0 }) };

describe("configOf: the strategy's settings reach AgentScope's config", () => {
  it("copies every AutoContextConfig field and nothing else", () => {
    const s = strategy({
      msg_threshold: 7,
      token_ratio: 0.5,
      max_token: 999,
      last_keep: 3,
      large_payload_threshold: 11,
      offload_single_preview: 12,
      min_consecutive_tool_messages: 2,
      min_compression_token_threshold: 13,
      current_round_compression_ratio: 0.2,
      system_prompt: "x",
      steps: 4,
    });
    expect(configOf(s)).toEqual({
      msg_threshold: 7,
      token_ratio: 0.5,
      max_token: 999,
      last_keep: 3,
      large_payload_threshold: 11,
      offload_single_preview: 12,
      min_consecutive_tool_messages: 2,
      min_compression_token_threshold: 13,
      current_round_compression_ratio: 0.2,
    });
  });
});

describe("runAutoContext: the whole result", () => {
  it("an offload (strategy 2) with placeholders: messages, indices, transformed, offloads and report", async () => {
    // 150 characters over a threshold of 120; the preview (30 + "..." + newline + a 66-character tag) stays under it on the next call.
    const big = "A".repeat(30) + "B".repeat(120);
    const msgs = [u("q0"), a(big), u("q1"), a("a1"), u("q2")];
    const s = strategy({ msg_threshold: 1, last_keep: 2, large_payload_threshold: 120, offload_single_preview: 30, system_prompt: "You are Friday.", steps: 2 });
    const r = await runAutoContext(msgs, s, placeholder, { newUuid: uuids() });
    const offloaded = a(`${"A".repeat(30)}...\n${TAG(1)}`);
    expect(r.memory).toEqual([msgs[0], offloaded, msgs[2], msgs[3], msgs[4]]);
    expect(r.messages).toEqual([{ role: "system", content: `You are Friday.\n\n${HOOK_INSTRUCTION}` }, ...r.memory]);
    expect(r.sourceIndex).toEqual([-1, 0, 1, 2, 3, 4]);
    expect(r.dropped).toEqual([]);
    expect(r.triggered).toBe(true);
    expect(r.transformed).toEqual([
      { index: -1, action: "system_inserted", reason: "AutoContextHook: the instruction about offload tags (context_reload)" },
      { index: 1, action: "offloaded", reason: "LARGE_MESSAGE_OFFLOAD_WITH_PROTECTION at model call 1", ref: REF(1) },
    ]);
    const original = fromRoleMessages([a(big)]);
    expect(r.offloads).toEqual([{ ref: REF(1), content: JSON.stringify([a(big)], null, 1), tokens: estimateTokens(original) }]);
    expect(r.offloads![0].tokens).toBe(5 + 4 + 4 + 60); // 150 characters: 60 tokens
    const memTokens = estimateTokens(fromRoleMessages(r.memory));
    expect(r.report).toEqual({
      follows: "AgentScope v1.0.12 AutoContextMemory",
      hook_wiring: "1.0",
      summaries: "placeholder",
      summary_model: null,
      chat_model: null,
      summaries_written: 0,
      model_calls: 0,
      cached_summaries: 0,
      calls: 2,
      triggered_calls: 2,
      steps: [
        {
          call: 1,
          turn_index: null,
          triggered: true,
          strategy: 2,
          events: [{ type: "LARGE_MESSAGE_OFFLOAD_WITH_PROTECTION", compressed_message_count: 1, start: 1, offload_ref: REF(1), summarizer_messages: null }],
          messages_before: 5,
          tokens_before: estimateTokens(fromRoleMessages(msgs)),
          messages_after: 5,
          tokens_after: memTokens,
          threshold_tokens: Math.floor(131_072 * 0.75),
        },
        {
          call: 2,
          turn_index: null,
          triggered: true,
          strategy: null,
          events: [],
          messages_before: 5,
          tokens_before: memTokens,
          messages_after: 5,
          tokens_after: memTokens,
          threshold_tokens: Math.floor(131_072 * 0.75),
        },
      ],
      tools: [CONTEXT_RELOAD_TOOL],
      memory: { messages: 5, tokens: memTokens },
    });
    // The tool is a copy: changing the report does not change the constant.
    expect(r.report.tools[0]).not.toBe(CONTEXT_RELOAD_TOOL);
    expect(r.report.tools[0].parameters).not.toBe(CONTEXT_RELOAD_TOOL.parameters);
  });

  it("a summary by the model (strategy 6): summarized, counted, named; the setCall sees each call", async () => {
    const msgs = [u("q0"), a("a0"), u("q1"), call("c1"), tool("c1")];
    const { info, setCalls } = fakeModel();
    // Two calls: the current round (call + result) is compressed, then its compressed message again (still after the latest user message).
    const s = strategy({ msg_threshold: 1, steps: 2, hook_wiring: "1.1", system_prompt: "Be brief." });
    const r = await runAutoContext(msgs, s, info, { newUuid: uuids(), systemPrompt: "You are Friday." });
    expect(setCalls).toEqual([1, 2]);
    expect(r.messages.slice(0, 2)).toEqual([
      { role: "system", content: "You are Friday." },
      { role: "system", content: HOOK_INSTRUCTION },
    ]);
    expect(r.sourceIndex).toEqual([-1, -1, 0, 1, 2, -1]);
    expect(r.memory[3]).toEqual(a(`summary of 1${TAG(2)}`));
    expect(r.transformed).toEqual([
      { index: -1, action: "system_inserted", reason: "AutoContextHook: the instruction about offload tags (context_reload)" },
      { index: -1, action: "system_inserted", reason: "AutoContextHook: the instruction about offload tags (context_reload)" },
      { index: 3, action: "summarized", reason: "CURRENT_ROUND_MESSAGE_COMPRESS at model call 1", ref: REF(1) },
      { index: 4, action: "summarized", reason: "CURRENT_ROUND_MESSAGE_COMPRESS at model call 1", ref: REF(1) },
    ]);
    expect(r.report).toMatchObject({
      hook_wiring: "1.1",
      summaries: "model",
      summary_model: "fake-model",
      chat_model: "fake-model",
      summaries_written: 2,
      model_calls: 2,
      cached_summaries: 0,
      calls: 2,
      triggered_calls: 2,
    });
    expect(r.report.steps.map((st) => st.strategy)).toEqual([6, 6]);
    const first = a(`summary of 2${TAG(1)}`);
    expect(r.offloads).toEqual([
      { ref: REF(1), content: JSON.stringify([call("c1"), tool("c1")], null, 1), tokens: estimateTokens(fromRoleMessages([call("c1"), tool("c1")])) },
      { ref: REF(2), content: JSON.stringify([first], null, 1), tokens: estimateTokens(fromRoleMessages([first])) },
    ]);
  });

  it("the first message of the memory is reported too when it is offloaded", async () => {
    const msgs = [u("U".repeat(200)), a("a0"), u("q1"), a("a1"), u("q2")];
    const r = await runAutoContext(msgs, strategy({ msg_threshold: 1, last_keep: 2, large_payload_threshold: 100 }), placeholder, { newUuid: uuids() });
    expect(r.transformed.slice(1)).toEqual([{ index: 0, action: "offloaded", reason: "LARGE_MESSAGE_OFFLOAD_WITH_PROTECTION at model call 1", ref: REF(1) }]);
  });

  it("placeholders while a chat model is configured: the chat model is named, summaries are written but no call is made", async () => {
    const msgs = [u("q0"), a("a0"), u("q1"), call("c1"), tool("c1")];
    const r = await runAutoContext(msgs, strategy({ msg_threshold: 1 }), { ...placeholder, chatModel: "gpt-x" }, { newUuid: uuids() });
    expect(r.report).toMatchObject({ summaries: "placeholder", summary_model: null, chat_model: "gpt-x", summaries_written: 1, model_calls: 0 });
  });

  it("not triggered: nothing changes, nothing is offloaded, triggered false", async () => {
    const msgs = [u("q0")];
    const r = await runAutoContext(msgs, strategy({ steps: 2 }), placeholder, { newUuid: uuids() });
    expect(r.triggered).toBe(false);
    expect(r.report.triggered_calls).toBe(0);
    expect(r.offloads).toEqual([]);
    expect(r.memory[0]).toBe(msgs[0]);
    expect(r.messages).toEqual([{ role: "system", content: HOOK_INSTRUCTION }, msgs[0]]);
    expect(r.report.memory).toEqual({ messages: 1, tokens: messageTokens(fromRoleMessages(msgs)[0]) });
  });

  it("without newUuid the refs are random uuids", async () => {
    const msgs = [u("q0"), a("a0"), u("q1"), call("c1"), tool("c1")];
    const r = await runAutoContext(msgs, strategy({ msg_threshold: 1 }), placeholder);
    expect(r.offloads![0].ref).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const rp = await replayAutoContext(msgs, null, strategy({ msg_threshold: 1 }), placeholder);
    expect(rp.offloads![0].ref).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe("replayAutoContext: one model call before each stored answer", () => {
  it("calls before each assistant message that has memory before it, then one for the next query; steps only where a strategy ran", async () => {
    // 0 a (no memory before it: no call), 1 u, 2 a (call 1), 3 u, 4 a (call 2), then the final call 3.
    const history = [a("greeting"), u("q0"), a("a0"), u("q1"), a("a1")];
    const { info, setCalls } = fakeModel();
    const r = await replayAutoContext(history, u("q2"), strategy({ msg_threshold: 3 }), info, { newUuid: uuids() });
    expect(setCalls).toEqual([1, 2, 3]);
    expect(r.report.calls).toBe(3);
    // Call 1 sees 2 messages (not triggered), call 2 sees 4, call 3 sees 6: both triggered, no strategy applies to a plain chat.
    expect(r.report.triggered_calls).toBe(2);
    expect(r.report.steps).toEqual([]);
    expect(r.triggered).toBe(true);
    expect(r.memory).toEqual([...history, u("q2")]);
    expect(r.sourceIndex).toEqual([-1, 0, 1, 2, 3, 4, 5]);
  });

  it("without a next query the last call is still made; a step records the turn it came before", async () => {
    const history = [u("q0"), a("a".repeat(6000)), u("q1"), a("a1"), u("q2"), a("a2")];
    const r = await replayAutoContext(history, null, strategy({ msg_threshold: 4, last_keep: 1 }), placeholder, { newUuid: uuids() });
    // Calls before 1 (1 message), 3 (3), 5 (5: strategy 2 on message 1), and the final call (6 messages, after the
    // last answer: what follows the latest user message is the current round, strategy 6).
    expect(r.report.calls).toBe(4);
    expect(r.report.triggered_calls).toBe(2);
    expect(r.report.steps.map((s) => [s.call, s.turn_index, s.strategy, s.messages_before])).toEqual([
      [3, 5, 2, 5],
      [4, null, 6, 6],
    ]);
    expect(r.memory).toHaveLength(6);
    expect(r.transformed.slice(1)).toEqual([
      { index: 1, action: "offloaded", reason: "LARGE_MESSAGE_OFFLOAD_WITH_PROTECTION at model call 3", ref: REF(1) },
      { index: 5, action: "summarized", reason: "CURRENT_ROUND_MESSAGE_COMPRESS at model call 4", ref: REF(2) },
    ]);
  });

  it("the next query, even an assistant message, gets no call of its own before it", async () => {
    const history = [u("q0"), a("a0")];
    const { info, setCalls } = fakeModel();
    const r = await replayAutoContext(history, a("next"), strategy(), info, { newUuid: uuids() });
    expect(setCalls).toEqual([1, 2]);
    expect(r.report.calls).toBe(2);
    expect(r.memory).toEqual([...history, a("next")]);
  });
});
