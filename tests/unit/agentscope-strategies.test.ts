import { describe, expect, it } from "vitest";
import { charCount, fromRoleMessages, type AsBlock, type AsMsg } from "@/lib/strategies/agentscope/msg";
import { CURRENT_ROUND_LARGE_PROMPT, LIST_END, PREVIOUS_ROUND_PROMPT, TOOL_RUN_PROMPT } from "@/lib/strategies/agentscope/prompts";
import { summarizeCurrentRound } from "@/lib/strategies/agentscope/strategy-current-round";
import { CURRENT_ROUND_PROMPT } from "@/lib/strategies/agentscope/prompts";
import { offloadLargeMessages } from "@/lib/strategies/agentscope/strategy-offload-large";
import { summarizePreviousRounds } from "@/lib/strategies/agentscope/strategy-previous-rounds";
import { AGENTSCOPE_DEFAULTS, type AutoContextConfig, type MemoryState, type SummaryRequest } from "@/lib/strategies/agentscope/state";
import { summarizeCurrentRoundLarge } from "@/lib/strategies/agentscope/strategy-current-round-large";
import { compressToolRuns, findToolRun } from "@/lib/strategies/agentscope/strategy-tool-runs";
import { estimateTokens } from "@/lib/strategies/agentscope/token-estimate";
import type { RoleMessage } from "@/lib/strategies/schemas";

// Strategies 1 (old tool runs) and 5 (large current-round messages) of AgentScope's
// AutoContextMemory, run directly on a memory with a summarizer that records what it
// was sent and answers a fixed text.

const u = (content: string): RoleMessage => ({ role: "user", content });
const a = (content: string): RoleMessage => ({ role: "assistant", content });
const call = (id: string, args = "{}", content = "", name = "read_file"): RoleMessage => ({ role: "assistant", content, tool_calls: [{ id, name, arguments: args }] });
const tool = (id: string, content = `result of ${id}`): RoleMessage => ({ role: "tool", tool_call_id: id, content });

function stateOf(memory: AsMsg[], config: Partial<AutoContextConfig> = {}, answer = (r: SummaryRequest) => `S${r.covered.messages}/${r.covered.chars}`) {
  const requests: SummaryRequest[] = [];
  let n = 0;
  const state: MemoryState = {
    config: { ...AGENTSCOPE_DEFAULTS, ...config },
    memory,
    offloads: new Map(),
    summarize: async (r) => {
      requests.push(r);
      return answer(r);
    },
    newUuid: () => `uuid-${++n}`,
  };
  return { state, requests };
}
const TAG = (n: number) => `<!-- CONTEXT_OFFLOAD: uuid=uuid-${n} -->`;

describe("strategy 5: large messages of the current round, summarized in place", () => {
  it("does nothing on an empty memory, without a user message, or when the user message is last", async () => {
    expect(await summarizeCurrentRoundLarge([], stateOf([]).state)).toBeNull();
    const noUser = fromRoleMessages([a("x".repeat(50))]);
    expect(await summarizeCurrentRoundLarge(noUser, stateOf(noUser, { large_payload_threshold: 10 }).state)).toBeNull();
    const userLast = fromRoleMessages([a("x".repeat(50)), u("y".repeat(50))]);
    expect(await summarizeCurrentRoundLarge(userLast, stateOf(userLast, { large_payload_threshold: 10 }).state)).toBeNull();
  });

  it("a text over the threshold goes (more than, not equal); only messages after the latest user message", async () => {
    const list = fromRoleMessages([a("o".repeat(30)), u("q".repeat(30)), a("x".repeat(10)), a("y".repeat(11))]);
    const { state, requests } = stateOf(list, { large_payload_threshold: 10 });
    const before = [...list];
    const events = await summarizeCurrentRoundLarge(list, state);
    expect(events).toEqual([
      { type: "CURRENT_ROUND_LARGE_MESSAGE_SUMMARY", compressed_message_count: 1, start: 3, offload_ref: "uuid-1", summarizer_messages: requests[0].prompt },
    ]);
    expect(list.slice(0, 3)).toEqual(before.slice(0, 3));
    expect(list[3]).toEqual({ role: "ASSISTANT", name: "assistant", content: [{ type: "text", text: `S1/11${TAG(1)}` }], compress: { offloadUuid: "uuid-1" }, source: null, index: 3 });
    expect(state.offloads.get("uuid-1")).toEqual([before[3]]);
    // A plain message is sent as it is, between the instruction and the end marker.
    expect(requests).toEqual([
      { event: "CURRENT_ROUND_LARGE_MESSAGE_SUMMARY", prompt: [u(CURRENT_ROUND_LARGE_PROMPT), a("y".repeat(11)), u(LIST_END)], covered: { messages: 1, chars: 11 } },
    ]);
  });

  it("walks from the newest message back, each over-threshold message its own event; already compressed ones are skipped", async () => {
    const list = fromRoleMessages([u("q"), a("a".repeat(20)), a("b".repeat(20)), a("c".repeat(20))]);
    list[2] = { ...list[2], compress: { offloadUuid: "old" } };
    const { state } = stateOf(list, { large_payload_threshold: 10 });
    const events = await summarizeCurrentRoundLarge(list, state);
    expect(events!.map((e) => [e.start, e.offload_ref])).toEqual([
      [3, "uuid-1"],
      [1, "uuid-2"],
    ]);
    expect(list[2].compress).toEqual({ offloadUuid: "old" });
    expect(list[2].content).toEqual([{ type: "text", text: "b".repeat(20) }]);
  });

  it("a tool result has no text: it goes when its whole size is over the threshold; the summary replaces its output, id and name kept", async () => {
    const list = fromRoleMessages([u("q"), call("c1"), tool("c1", "r".repeat(12))]);
    // charCount of the result: "read_file" 9 + "c1" 2 + 12 = 23
    expect(charCount(list[2])).toBe(23);
    const at = stateOf([...list], { large_payload_threshold: 23 });
    expect(await summarizeCurrentRoundLarge([...list], at.state)).toBeNull();
    const { state, requests } = stateOf(list, { large_payload_threshold: 22 });
    await summarizeCurrentRoundLarge(list, state);
    expect(list[2]).toMatchObject({ role: "TOOL", name: "read_file", content: [{ type: "tool_result", id: "c1", name: "read_file", output: [`S1/23${TAG(1)}`] }] });
    // The summarizer sees the result's text as a tool message, not its structure.
    expect(requests[0].prompt).toEqual([u(CURRENT_ROUND_LARGE_PROMPT), tool("c1", "r".repeat(12)), u(LIST_END)]);
  });

  it("a tool call with text: the first text block becomes the summary, later texts go, the calls stay; the summarizer sees the text only", async () => {
    const msg: AsMsg = {
      role: "ASSISTANT",
      name: "assistant",
      content: [
        { type: "text", text: "t".repeat(15) },
        { type: "tool_use", id: "c1", name: "read", input: {}, raw: null, args: "{}" },
        { type: "text", text: "second" },
      ],
      source: null,
      index: 1,
    };
    const list = [...fromRoleMessages([u("q")]), msg];
    const { state, requests } = stateOf(list, { large_payload_threshold: 10 });
    await summarizeCurrentRoundLarge(list, state);
    expect(list[1].content).toEqual([
      { type: "text", text: `S1/${15 + 4 + 2 + 6}${TAG(1)}` },
      { type: "tool_use", id: "c1", name: "read", input: {}, raw: null, args: "{}" },
    ]);
    expect(requests[0].prompt[1]).toEqual({ role: "assistant", content: `${"t".repeat(15)}\nsecond` });
  });

  it("the summary takes the place of the first text block wherever it is among the blocks", async () => {
    const msg: AsMsg = {
      role: "ASSISTANT",
      name: "assistant",
      content: [
        { type: "tool_use", id: "c1", name: "read", input: {}, raw: null, args: "{}" },
        { type: "text", text: "t".repeat(15) },
      ],
      source: null,
      index: 1,
    };
    const list = [...fromRoleMessages([u("q")]), msg];
    await summarizeCurrentRoundLarge(list, stateOf(list, { large_payload_threshold: 10 }).state);
    expect(list[1].content).toEqual([
      { type: "tool_use", id: "c1", name: "read", input: {}, raw: null, args: "{}" },
      { type: "text", text: `S1/${4 + 2 + 15}${TAG(1)}` },
    ]);
  });

  it("a tool call without text but with large arguments: the summary goes first, the call stays; the summarizer gets the call as it was", async () => {
    const args = JSON.stringify({ body: "z".repeat(40) });
    const list = fromRoleMessages([u("q"), call("c1", args)]);
    const { state, requests } = stateOf(list, { large_payload_threshold: 20 });
    await summarizeCurrentRoundLarge(list, state);
    expect(list[1].content).toEqual([
      { type: "text", text: `S1/${9 + 2 + args.length}${TAG(1)}` },
      { type: "tool_use", id: "c1", name: "read_file", input: { body: "z".repeat(40) }, raw: null, args },
    ]);
    expect(requests[0].prompt[1]).toEqual(call("c1", args));
  });

  it("a written tool message with several results: the first carries the summary, the others go, other blocks stay", async () => {
    const blocks: AsBlock[] = [
      { type: "text", text: "" },
      { type: "tool_result", id: "c1", name: "t", output: ["x".repeat(20)] },
      { type: "tool_result", id: "c2", name: "t", output: ["y".repeat(5)] },
    ];
    const msg: AsMsg = { role: "TOOL", name: "t", content: blocks, source: null, index: 2 };
    const list = [...fromRoleMessages([u("q")]), msg];
    const { state, requests } = stateOf(list, { large_payload_threshold: 10 });
    await summarizeCurrentRoundLarge(list, state);
    // charCount: (1 + 2 + 20) + (1 + 2 + 5) = 31
    expect(list[1].content).toEqual([
      { type: "text", text: "" },
      { type: "tool_result", id: "c1", name: "t", output: [`S1/31${TAG(1)}`] },
    ]);
    expect(requests[0].prompt[1]).toEqual({ role: "tool", tool_call_id: "c1", content: `${"x".repeat(20)}\n${"y".repeat(5)}` });
  });

  it("a result with empty output but a long name goes by its size; the summarizer gets the message as it was", async () => {
    const list = fromRoleMessages([u("q"), call("c1", "{}", "", "a_tool_with_a_long_name"), tool("c1", "")]);
    const { state, requests } = stateOf(list, { large_payload_threshold: 20 });
    const events = await summarizeCurrentRoundLarge(list, state);
    // The call: 23 + 2 = 25 > 20 (no text); the result: 23 + 2 + 0 = 25.
    expect(events!.map((e) => e.start)).toEqual([2, 1]);
    expect(requests[0].prompt[1]).toEqual(tool("c1", ""));
    expect(requests[1].prompt[1]).toEqual(call("c1", "{}", "", "a_tool_with_a_long_name"));
  });

  it("a short text is kept even when the message is large by its tool calls", async () => {
    const list = fromRoleMessages([u("q"), call("c1", JSON.stringify({ x: "z".repeat(100) }), "ok")]);
    const { state } = stateOf(list, { large_payload_threshold: 10 });
    expect(await summarizeCurrentRoundLarge(list, state)).toBeNull();
  });
});

describe("strategy 1: finding an old run of tool messages", () => {
  // 0 u, 1-4 tool work, 5 answer, 6 u, 7 answer, 8 u
  const base = () => fromRoleMessages([u("q"), call("c1"), tool("c1"), call("c2"), tool("c2"), a("done"), u("q2"), a("ok"), u("q3")]);
  const find = (list: AsMsg[], config: Partial<AutoContextConfig>, from = 0) => findToolRun(list, stateOf(list, config).state, from);

  it("a run of more than min_consecutive_tool_messages before the latest answer and the kept tail", () => {
    expect(find(base(), { last_keep: 2, min_consecutive_tool_messages: 3 })).toEqual([1, 4]);
    expect(find(base(), { last_keep: 2, min_consecutive_tool_messages: 4 })).toBeNull();
    // 9 messages: last_keep 4 lets the search reach the answer at 5; last_keep 5 stops it at 4, leaving 3 tool messages.
    expect(find(base(), { last_keep: 4, min_consecutive_tool_messages: 3 })).toEqual([1, 4]);
    expect(find(base(), { last_keep: 5, min_consecutive_tool_messages: 3 })).toBeNull();
    expect(find(base(), { last_keep: 10, min_consecutive_tool_messages: 0 })).toBeNull();
  });

  it("searching from a later position trims a run that starts on a result to start on a call", () => {
    expect(find(base(), { last_keep: 2, min_consecutive_tool_messages: 1 }, 2)).toEqual([3, 4]);
    expect(find(base(), { last_keep: 2, min_consecutive_tool_messages: 2 }, 2)).toBeNull();
    expect(find(base(), { last_keep: 2, min_consecutive_tool_messages: 1 }, -5)).toEqual([1, 4]);
    expect(find(base(), { last_keep: 2, min_consecutive_tool_messages: 1 }, 5)).toBeNull();
  });

  it("no final answer: nothing to search", () => {
    const list = fromRoleMessages([u("q"), call("c1"), tool("c1"), call("c2"), tool("c2"), u("q2")]);
    expect(find(list, { last_keep: 0, min_consecutive_tool_messages: 1 })).toBeNull();
  });

  it("a run cut by the kept tail is trimmed to end on a result", () => {
    // 0 u, 1 call, 2 result, 3 call, 4 result, 5 answer; last_keep 2: search ends before 4.
    const list = fromRoleMessages([u("q"), call("c1"), tool("c1"), call("c2"), tool("c2"), a("done")]);
    expect(find(list, { last_keep: 3, min_consecutive_tool_messages: 1 })).toEqual([1, 2]);
    expect(find(list, { last_keep: 3, min_consecutive_tool_messages: 2 })).toBeNull();
    expect(find(list, { last_keep: 0, min_consecutive_tool_messages: 3 })).toEqual([1, 4]);
  });

  it("the search ends at the latest final answer even when the tail allows more", () => {
    const list = fromRoleMessages([u("q"), a("done"), call("c1"), tool("c1"), call("c2"), tool("c2"), u("q2")]);
    expect(find(list, { last_keep: 0, min_consecutive_tool_messages: 1 })).toBeNull();
  });

  it("a run in the middle ending on a call is trimmed back; one left too short is passed over for a later run", () => {
    // 1-3 tool work ending on a pending call (cut by a user message), 5-8 a full run.
    const list = fromRoleMessages([u("q"), call("c1"), tool("c1"), call("c2"), u("q1"), call("c3"), tool("c3"), call("c4"), tool("c4"), a("done"), u("q2")]);
    expect(find(list, { last_keep: 0, min_consecutive_tool_messages: 2 })).toEqual([5, 8]);
    expect(find(list, { last_keep: 0, min_consecutive_tool_messages: 1 })).toEqual([1, 2]);
  });

  it("a tool message that is neither a call nor a result stops the trim: mid-history the run is kept as found, at the search end it is dropped", () => {
    const odd: AsMsg = { role: "USER", name: "user", content: [{ type: "tool_use", id: "x", name: "t", input: {}, raw: null, args: "{}" }], source: null, index: -1 };
    const mid = [...fromRoleMessages([u("q"), call("c1"), tool("c1")]), odd, ...fromRoleMessages([u("q1"), call("c2"), tool("c2"), call("c3"), tool("c3"), a("done"), u("q2")])];
    // The run 1..3 ends on the odd message: the trim stops there and the run stays 1..3.
    expect(find(mid, { last_keep: 0, min_consecutive_tool_messages: 2 })).toEqual([1, 3]);
    const atEnd = [...fromRoleMessages([u("q"), call("c1"), tool("c1"), call("c2"), tool("c2")]), odd, ...fromRoleMessages([a("done")])];
    expect(find(atEnd, { last_keep: 0, min_consecutive_tool_messages: 2 })).toBeNull();
    const oddFirst = [...fromRoleMessages([u("q")]), odd, ...fromRoleMessages([call("c1"), tool("c1"), call("c2"), tool("c2"), a("done")])];
    expect(find(oddFirst, { last_keep: 0, min_consecutive_tool_messages: 2 })).toBeNull();
    const oddFirstMid = [...fromRoleMessages([u("q")]), odd, ...fromRoleMessages([call("c1"), tool("c1"), call("c2"), tool("c2"), u("x"), a("done")])];
    expect(find(oddFirstMid, { last_keep: 0, min_consecutive_tool_messages: 2 })).toEqual([1, 5]);
  });
});

describe("strategy 1: edge runs (min_consecutive_tool_messages 0 allows single messages)", () => {
  const find = (list: AsMsg[], config: Partial<AutoContextConfig>) => findToolRun(list, stateOf(list, config).state, 0);
  const odd: AsMsg = { role: "USER", name: "user", content: [{ type: "tool_use", id: "x", name: "t", input: {}, raw: null, args: "{}" }], source: null, index: -1 };

  it("a lone orphan result or a lone pending call is no run; a lone message that is neither is a run of one", () => {
    expect(find(fromRoleMessages([u("q"), tool("orphan"), a("done"), u("q2")]), { last_keep: 0, min_consecutive_tool_messages: 0 })).toBeNull();
    expect(find(fromRoleMessages([u("q"), call("c1"), a("done"), u("q2")]), { last_keep: 0, min_consecutive_tool_messages: 0 })).toBeNull();
    expect(find([...fromRoleMessages([u("q")]), odd, ...fromRoleMessages([u("x"), a("done"), u("q2")])], { last_keep: 0, min_consecutive_tool_messages: 0 })).toEqual([1, 1]);
    // Where the search ends it is dropped.
    expect(find([...fromRoleMessages([u("q")]), odd, ...fromRoleMessages([a("done"), u("q2")])], { last_keep: 0, min_consecutive_tool_messages: 0 })).toBeNull();
    // A message that both calls and answers is a whole run; here at the very start, before an answer at index 1.
    const both: AsMsg = {
      role: "ASSISTANT",
      name: "assistant",
      content: [
        { type: "tool_use", id: "b", name: "t", input: {}, raw: null, args: "{}" },
        { type: "tool_result", id: "b", name: "t", output: ["o"] },
      ],
      source: null,
      index: -1,
    };
    expect(find([both, ...fromRoleMessages([a("done"), u("q2")])], { last_keep: 0, min_consecutive_tool_messages: 0 })).toEqual([0, 0]);
  });

  it("a run of calls only, at the start of the memory, trims to nothing", () => {
    expect(find(fromRoleMessages([call("c1"), call("c2"), call("c3"), a("done"), u("q")]), { last_keep: 0, min_consecutive_tool_messages: 2 })).toBeNull();
  });
});

describe("strategy 1: compressing the runs", () => {
  const run = (i: number) => [call(`c${i}a`), tool(`c${i}a`), call(`c${i}b`), tool(`c${i}b`)];
  const rounds = (n: number) => [...Array.from({ length: n }, (_, i) => [u(`q${i}`), ...run(i), a(`a${i}`)]).flat(), u("next")];

  it("each run becomes one assistant summary, a newline and the tag; the summarizer gets instruction, messages, end marker", async () => {
    const msgs = rounds(1);
    const list = fromRoleMessages(msgs);
    const originals = list.slice(1, 5);
    const { state, requests } = stateOf(list, { last_keep: 0, min_consecutive_tool_messages: 3, min_compression_token_threshold: 0 });
    const events = await compressToolRuns(list, state);
    expect(events).toEqual([{ type: "TOOL_INVOCATION_COMPRESS", compressed_message_count: 4, start: 1, offload_ref: "uuid-1", summarizer_messages: requests[0].prompt }]);
    expect(requests[0]).toEqual({ event: "TOOL_INVOCATION_COMPRESS", prompt: [u(TOOL_RUN_PROMPT), ...msgs.slice(1, 5), u(LIST_END)], covered: { messages: 4, chars: requests[0].covered.chars } });
    expect(list).toHaveLength(4);
    expect(list[1]).toEqual({ role: "ASSISTANT", name: "assistant", content: [{ type: "text", text: `S4/${requests[0].covered.chars}\n${TAG(1)}` }], compress: { offloadUuid: "uuid-1" }, source: null, index: -1 });
    expect(state.offloads.get("uuid-1")).toEqual(originals);
  });

  it("at most five runs per call, oldest first", async () => {
    const list = fromRoleMessages(rounds(6));
    const { state } = stateOf(list, { last_keep: 0, min_consecutive_tool_messages: 3, min_compression_token_threshold: 0 });
    const events = await compressToolRuns(list, state);
    expect(events!.map((e) => e.start)).toEqual([1, 4, 7, 10, 13]);
    // The sixth run is still there.
    expect(list.length).toBe(6 * 6 + 1 - 5 * 3);
  });

  it("a run below min_compression_token_threshold is skipped and the search goes on after it", async () => {
    const msgs = [u("q0"), ...run(0), a("a0"), u("q1"), call("c9", JSON.stringify({ p: "x".repeat(200) })), tool("c9", "y".repeat(200)), call("c8"), tool("c8"), a("a1"), u("next")];
    const list = fromRoleMessages(msgs);
    const small = estimateTokens(list.slice(1, 5));
    const large = estimateTokens(list.slice(7, 11));
    expect(large).toBeGreaterThan(small);
    const { state } = stateOf(list, { last_keep: 0, min_consecutive_tool_messages: 3, min_compression_token_threshold: small + 1 });
    const events = await compressToolRuns(list, state);
    expect(events!.map((e) => [e.start, e.compressed_message_count])).toEqual([[7, 4]]);
    const exact = fromRoleMessages(msgs);
    const atLarge = stateOf(exact, { last_keep: 0, min_consecutive_tool_messages: 3, min_compression_token_threshold: large });
    expect((await compressToolRuns(exact, atLarge.state))!.map((e) => e.start)).toEqual([7]);
    // With runs of two allowed, the skipped run's tail is not searched again: the large run is still reached.
    const pairs = fromRoleMessages(msgs);
    const byPairs = stateOf(pairs, { last_keep: 0, min_consecutive_tool_messages: 1, min_compression_token_threshold: small + 1 });
    expect((await compressToolRuns(pairs, byPairs.state))!.map((e) => [e.start, e.compressed_message_count])).toEqual([[7, 4]]);
    const none = fromRoleMessages(msgs);
    expect(await compressToolRuns(none, stateOf(none, { last_keep: 0, min_consecutive_tool_messages: 3, min_compression_token_threshold: large + 1 }).state)).toBeNull();
    expect(none).toHaveLength(msgs.length);
  });

  it("plan-notebook calls are left out of what the summarizer is sent", async () => {
    const msgs = [u("q"), call("p1", "{}", "", "create_plan"), tool("p1", "plan made"), call("c1"), tool("c1"), a("done"), u("next")];
    const list = fromRoleMessages(msgs);
    const { state, requests } = stateOf(list, { last_keep: 0, min_consecutive_tool_messages: 3, min_compression_token_threshold: 0 });
    await compressToolRuns(list, state);
    expect(requests[0].prompt).toEqual([u(TOOL_RUN_PROMPT), msgs[3], msgs[4], u(LIST_END)]);
    expect(requests[0].covered.messages).toBe(2);
    expect(state.offloads.get("uuid-1")).toHaveLength(4);
  });
});

describe("strategies 2 and 3: large single messages offloaded with a preview", () => {
  // 0 user 30, 1 call, 2 result 30, 3 answer of exactly 20, 4 final answer, 5 user
  const msgs = () => [u("U".repeat(30)), call("c1", JSON.stringify({ p: "z".repeat(40) })), tool("c1", "R".repeat(30)), a("A".repeat(20)), a("done"), u("q")];
  const cfg = { large_payload_threshold: 20, offload_single_preview: 10, last_keep: 0 };

  it("newest first: a result keeps its id and name, a text keeps its role; preview, '...', newline, tag; calls and texts at the threshold stay", async () => {
    const list = fromRoleMessages(msgs());
    const before = [...list];
    const { state } = stateOf(list, cfg);
    const events = await offloadLargeMessages(true)(list, state);
    expect(events).toEqual([
      { type: "LARGE_MESSAGE_OFFLOAD_WITH_PROTECTION", compressed_message_count: 1, start: 2, offload_ref: "uuid-1", summarizer_messages: null },
      { type: "LARGE_MESSAGE_OFFLOAD_WITH_PROTECTION", compressed_message_count: 1, start: 0, offload_ref: "uuid-2", summarizer_messages: null },
    ]);
    expect(list[2]).toEqual({
      role: "TOOL",
      name: "read_file",
      content: [{ type: "tool_result", id: "c1", name: "read_file", output: [`${"R".repeat(10)}...\n${TAG(1)}`] }],
      compress: { offloadUuid: "uuid-1" },
      source: null,
      index: 2,
    });
    expect(list[0]).toEqual({ role: "USER", name: "user", content: [{ type: "text", text: `${"U".repeat(10)}...\n${TAG(2)}` }], compress: { offloadUuid: "uuid-2" }, source: null, index: 0 });
    expect([list[1], list[3], list[4], list[5]]).toEqual([before[1], before[3], before[4], before[5]]);
    expect(state.offloads.get("uuid-1")).toEqual([before[2]]);
    expect(state.offloads.get("uuid-2")).toEqual([before[0]]);
  });

  it("a small tool result stays; nothing after the latest answer is searched, with or without protection", async () => {
    const input = [u("q0"), call("c1"), tool("c1", "small"), a("A".repeat(30)), a("done"), u("U".repeat(30))];
    for (const protect of [true, false]) {
      const list = fromRoleMessages(input);
      const events = await offloadLargeMessages(protect)(list, stateOf(list, cfg).state);
      expect(events!.map((e) => e.start)).toEqual([3]);
      expect(list[2].source).toBe(input[2]);
      expect(list[5].source).toBe(input[5]);
    }
    // An answer at index 0 ends the search there.
    const first = fromRoleMessages([a("done"), u("U".repeat(30))]);
    expect(await offloadLargeMessages(true)(first, stateOf(first, cfg).state)).toBeNull();
  });

  it("a text no longer than the preview is kept whole before the tag", async () => {
    const list = fromRoleMessages(msgs());
    await offloadLargeMessages(false)(list, stateOf(list, { ...cfg, offload_single_preview: 30 }).state);
    expect(list[0].content).toEqual([{ type: "text", text: `${"U".repeat(30)}\n${TAG(2)}` }]);
    expect(list[2].content).toEqual([{ type: "tool_result", id: "c1", name: "read_file", output: [`${"R".repeat(30)}\n${TAG(1)}`] }]);
  });

  it("strategy 2 spares the last last_keep messages; strategy 3 only stops at the latest answer", async () => {
    const protectedList = fromRoleMessages(msgs());
    const p = await offloadLargeMessages(true)(protectedList, stateOf(protectedList, { ...cfg, last_keep: 4 }).state);
    expect(p!.map((e) => e.start)).toEqual([0]);
    const open = fromRoleMessages(msgs());
    const o = await offloadLargeMessages(false)(open, stateOf(open, { ...cfg, last_keep: 4 }).state);
    expect(o!.map((e) => [e.type, e.start])).toEqual([
      ["LARGE_MESSAGE_OFFLOAD", 2],
      ["LARGE_MESSAGE_OFFLOAD", 0],
    ]);
  });

  it("a memory shorter than last_keep is left alone; one exactly as long is searched", async () => {
    for (const protect of [true, false]) {
      const list = fromRoleMessages(msgs());
      expect(await offloadLargeMessages(protect)(list, stateOf(list, { ...cfg, last_keep: 7 }).state)).toBeNull();
    }
    const list = fromRoleMessages(msgs());
    expect(await offloadLargeMessages(true)(list, stateOf(list, { ...cfg, last_keep: 6 }).state)).toBeNull();
    expect((await offloadLargeMessages(false)(list, stateOf(list, { ...cfg, last_keep: 6 }).state))!.map((e) => e.start)).toEqual([2, 0]);
    expect(await offloadLargeMessages(true)([], stateOf([], cfg).state)).toBeNull();
  });

  it("without a final answer: strategy 2 searches up to the kept tail, strategy 3 nothing", async () => {
    const noAnswer = () => fromRoleMessages([u("U".repeat(30)), call("c1"), tool("c1", "R".repeat(30)), u("q")]);
    const p = noAnswer();
    expect((await offloadLargeMessages(true)(p, stateOf(p, { ...cfg, last_keep: 1 }).state))!.map((e) => e.start)).toEqual([2, 0]);
    const q = noAnswer();
    expect(await offloadLargeMessages(true)(q, stateOf(q, { ...cfg, last_keep: 2 }).state)).not.toBeNull();
    const o = noAnswer();
    expect(await offloadLargeMessages(false)(o, stateOf(o, { ...cfg, last_keep: 1 }).state)).toBeNull();
  });

  it("a result is judged by its output texts joined by newlines", async () => {
    const multi: AsMsg = { role: "TOOL", name: "t", content: [{ type: "tool_result", id: "c1", name: "t", output: ["x".repeat(10), "y".repeat(10)] }], source: null, index: 0 };
    const list = [multi, ...fromRoleMessages([a("done")])];
    // 10 + 1 + 10 = 21 > 20
    const events = await offloadLargeMessages(false)(list, stateOf(list, { ...cfg, offload_single_preview: 12 }).state);
    expect(events).toHaveLength(1);
    expect(list[0].content).toEqual([{ type: "tool_result", id: "c1", name: "t", output: [`${"x".repeat(10)}\ny...\n${TAG(1)}`] }]);
    const at: AsMsg = { ...multi, content: [{ type: "tool_result", id: "c1", name: "t", output: ["x".repeat(10), "y".repeat(9)] }] };
    const atList = [at, ...fromRoleMessages([a("done")])];
    expect(await offloadLargeMessages(false)(atList, stateOf(atList, cfg).state)).toBeNull();
  });
});

describe("strategy 4: finished rounds with tool work", () => {
  // 0 q0, 1 call, 2 result, 3 a0 | 4 q1, 5 a1 (no tool work) | 6 q2, 7 call, 8 result, 9 a2 | 10 q3, 11 a3 (latest answer)
  const msgs = () => [
    u("q0"),
    call("c1"),
    tool("c1", "r".repeat(40)),
    a("a0"),
    u("q1"),
    a("a1"),
    u("q2"),
    call("c2"),
    tool("c2", "s".repeat(40)),
    a("a2"),
    u("q3"),
    a("a3"),
  ];

  it("each such round before the latest answer becomes question + one summary (newline, tag), newest first; events oldest first", async () => {
    const input = msgs();
    const list = fromRoleMessages(input);
    const { state, requests } = stateOf(list, { min_compression_token_threshold: 0 });
    const events = await summarizePreviousRounds(list, state);
    expect(events!.map((e) => [e.type, e.start, e.compressed_message_count, e.offload_ref])).toEqual([
      ["PREVIOUS_ROUND_CONVERSATION_SUMMARY", 1, 3, "uuid-2"],
      ["PREVIOUS_ROUND_CONVERSATION_SUMMARY", 7, 3, "uuid-1"],
    ]);
    expect(list.map((m) => m.source ?? (m.content[0] as { text: string }).text)).toEqual([
      input[0],
      `S4/${requests[1].covered.chars}\n${TAG(2)}`,
      input[4],
      input[5],
      input[6],
      `S4/${requests[0].covered.chars}\n${TAG(1)}`,
      input[10],
      input[11],
    ]);
    expect(requests[0]).toEqual({ event: "PREVIOUS_ROUND_CONVERSATION_SUMMARY", prompt: [u(PREVIOUS_ROUND_PROMPT), ...input.slice(6, 10), u(LIST_END)], covered: requests[0].covered });
    expect(list[5]).toMatchObject({ role: "ASSISTANT", compress: { offloadUuid: "uuid-1" }, source: null, index: -1 });
    // "q2" 2 + call ("read_file" 9 + "c2" 2; empty input adds nothing) + result (9 + 2 + 40) + "a2" 2
    expect(requests[0].covered).toEqual({ messages: 4, chars: 2 + (9 + 2) + (9 + 2 + 40) + 2 });
    expect(state.offloads.get("uuid-1")!.map((m) => m.source)).toEqual(input.slice(6, 10));
  });

  it("a round under min_compression_token_threshold stays; at the threshold it goes", async () => {
    const all = fromRoleMessages(msgs());
    const t0 = estimateTokens(all.slice(0, 4));
    const t2 = estimateTokens(all.slice(6, 10));
    expect(t0).toBe(t2);
    const at = fromRoleMessages(msgs());
    expect((await summarizePreviousRounds(at, stateOf(at, { min_compression_token_threshold: t0 }).state))!.length).toBe(2);
    const over = fromRoleMessages(msgs());
    expect(await summarizePreviousRounds(over, stateOf(over, { min_compression_token_threshold: t0 + 1 }).state)).toBeNull();
    expect(over).toHaveLength(12);
  });

  it("nothing without a final answer, or with only the latest round", async () => {
    const none = fromRoleMessages([u("q"), call("c1"), tool("c1")]);
    expect(await summarizePreviousRounds(none, stateOf(none, { min_compression_token_threshold: 0 }).state)).toBeNull();
    const only = fromRoleMessages([u("q"), call("c1"), tool("c1"), a("done")]);
    expect(await summarizePreviousRounds(only, stateOf(only, { min_compression_token_threshold: 0 }).state)).toBeNull();
    expect(await summarizePreviousRounds([], stateOf([]).state)).toBeNull();
  });

  it("an answer with no question before it opens no round; a question answered directly is not compressed", async () => {
    const list = fromRoleMessages([a("hello"), call("c1"), tool("c1"), a("a0"), u("q1"), a("a1"), u("q2"), a("a2")]);
    expect(await summarizePreviousRounds(list, stateOf(list, { min_compression_token_threshold: 0 }).state)).toBeNull();
  });
});

describe("strategy 6: the current round in one message", () => {
  it("everything after the latest user message: summary then tag, marked current round; the budget is 30% of the characters", async () => {
    const input = [u("q0"), a("a0"), u("q1"), call("c1"), tool("c1", "r".repeat(40)), call("c2")];
    const list = fromRoleMessages(input);
    const { state, requests } = stateOf(list, { current_round_compression_ratio: 0.3 });
    const events = await summarizeCurrentRound(list, state);
    // call 9 + 2, result 9 + 2 + 40: 62 characters; 30% is 18.6, rounded 19.
    expect(requests[0]).toEqual({
      event: "CURRENT_ROUND_MESSAGE_COMPRESS",
      prompt: [
        u(CURRENT_ROUND_PROMPT),
        input[3],
        input[4],
        u(LIST_END),
        u("Length: the messages above total 62 characters. Write about 19 characters (30% of the original), and no more."),
      ],
      covered: { messages: 2, chars: 62 },
    });
    expect(events).toEqual([{ type: "CURRENT_ROUND_MESSAGE_COMPRESS", compressed_message_count: 2, start: 3, offload_ref: "uuid-1", summarizer_messages: requests[0].prompt }]);
    expect(list).toHaveLength(5);
    expect(list[3]).toEqual({ role: "ASSISTANT", name: "assistant", content: [{ type: "text", text: `S2/62${TAG(1)}` }], compress: { offloadUuid: "uuid-1", currentRound: true }, source: null, index: -1 });
    expect(list[4].source).toBe(input[5]);
  });

  it("one message before a pending call is a round of one", async () => {
    const input = [u("q"), tool("c0", "late result"), call("c1")];
    const list = fromRoleMessages(input);
    const events = await summarizeCurrentRound(list, stateOf(list).state);
    expect(events!.map((e) => [e.start, e.compressed_message_count])).toEqual([[1, 1]]);
    expect(list[2].source).toBe(input[2]);
  });

  it("without any user message nothing is the current round", async () => {
    const list = fromRoleMessages([a("x"), a("y"), a("z")]);
    expect(await summarizeCurrentRound(list, stateOf(list).state)).toBeNull();
    expect(await summarizeCurrentRoundLarge(list, stateOf(list, { large_payload_threshold: 0 }).state)).toBeNull();
  });

  it("the ratio and its percentage are rounded", async () => {
    const list = fromRoleMessages([u("q"), a("x".repeat(10))]);
    const { state, requests } = stateOf(list, { current_round_compression_ratio: 0.125 });
    await summarizeCurrentRound(list, state);
    // 10 × 0.125 = 1.25 → 1; 12.5% → 13
    expect(requests[0].prompt.at(-1)).toEqual(u("Length: the messages above total 10 characters. Write about 1 characters (13% of the original), and no more."));
  });

  it("nothing when the memory is empty, has no user message, ends with it, or only a pending call follows it", async () => {
    expect(await summarizeCurrentRound([], stateOf([]).state)).toBeNull();
    for (const msgs of [[a("x")], [a("x"), u("q")], [u("q"), call("c1")]]) {
      const list = fromRoleMessages(msgs);
      expect(await summarizeCurrentRound(list, stateOf(list).state)).toBeNull();
      expect(list).toHaveLength(msgs.length);
    }
  });
});
