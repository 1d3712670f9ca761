import { describe, expect, it } from "vitest";
import { compressIfNeeded } from "@/lib/strategies/agentscope/compress-if-needed";
import { hookSystemMessages } from "@/lib/strategies/agentscope/hook";
import { fromRoleMessages } from "@/lib/strategies/agentscope/msg";
import { HOOK_INSTRUCTION } from "@/lib/strategies/agentscope/prompts";
import { replayAutoContext, runAutoContext, type SummaryInfo } from "@/lib/strategies/agentscope/run-auto-context";
import { placeholderSummarizer } from "@/lib/strategies/agentscope/summarize-placeholder";
import { estimateTokens, messageTokens } from "@/lib/strategies/agentscope/token-estimate";
import { ZAutoContextStrategy, type RoleMessage } from "@/lib/strategies/schemas";

// Cases derived from AgentScope v1.0.12's AutoContextMemory, AutoContextHook,
// MsgUtils and TokenCounterUtil (agentscope-extensions-autocontext-memory).

const u = (content: string): RoleMessage => ({ role: "user", content });
const a = (content: string): RoleMessage => ({ role: "assistant", content });
const sys = (content: string): RoleMessage => ({ role: "system", content });
const call = (id: string, args = '{"path":"/srv/app.conf"}', content = ""): RoleMessage => ({ role: "assistant", content, tool_calls: [{ id, name: "read_file", arguments: args }] });
const tool = (id: string, content = `result of ${id}`): RoleMessage => ({ role: "tool", tool_call_id: id, content });
const big = (n: number, ch = "x") => ch.repeat(n);
const chat = (pairs: number) => Array.from({ length: pairs }, (_, i) => [u(`q${i}`), a(`a${i}`)]).flat();

const strategy = (over: Record<string, unknown> = {}) => ZAutoContextStrategy.parse({ type: "auto_context", ...over });
const placeholder: SummaryInfo = { summarize: placeholderSummarizer, model: null, counts: () => ({ calls: 0, cached: 0 }) };
const uuids = () => {
  let n = 0;
  return () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
};
const run = (messages: RoleMessage[], over: Record<string, unknown> = {}, summary = placeholder) =>
  runAutoContext(messages, strategy(over), summary, { newUuid: uuids() });
/** The memory after the run: what follows the hook's one system message. */
const memoryOf = (r: Awaited<ReturnType<typeof run>>) => r.memory;
const TAG = (n: number) => `<!-- CONTEXT_OFFLOAD: uuid=00000000-0000-4000-8000-${String(n).padStart(12, "0")} -->`;

describe("AgentScope's token estimate (TokenCounterUtil)", () => {
  it("counts characters / 2.5 rounded up per piece, plus message, role and name overheads", () => {
    // 5 + "USER" 2 + "user" 2 + "hello" 2
    expect(messageTokens(fromRoleMessages([u("hello")])[0])).toBe(11);
    // 5 + "ASSISTANT" 4 + "assistant" 4 + tool call 10 + "search" 3 + "c1" 1 + {"q":"x"} 4
    expect(messageTokens(fromRoleMessages([{ role: "assistant", content: "", tool_calls: [{ id: "c1", name: "search", arguments: '{"q":"x"}' }] }])[0])).toBe(31);
    // tool result: 5 + "TOOL" 2 + name "search" 3 + result 8 + "search" 3 + "c1" 1 + "found" 2
    const [, res] = fromRoleMessages([{ role: "assistant", content: "", tool_calls: [{ id: "c1", name: "search", arguments: "{}" }] }, tool("c1", "found")]);
    expect(messageTokens(res)).toBe(24);
  });
});

describe("trigger (compressIfNeeded)", () => {
  it("fires at exactly msg_threshold messages and not one below", async () => {
    const at = await run([...chat(5), u("q")], { msg_threshold: 11 });
    expect(at.report.steps[0].triggered).toBe(true);
    const below = await run([...chat(5), u("q")], { msg_threshold: 12 });
    expect(below.report.steps[0].triggered).toBe(false);
  });

  it("fires at exactly floor(max_token × token_ratio) estimated tokens and not one below", async () => {
    // One user message of 102 characters: 9 + ceil(102 / 2.5) = 50 tokens; 100 characters: 49.
    expect(estimateTokens(fromRoleMessages([u(big(102))]))).toBe(50);
    const at = await run([u(big(102))], { max_token: 101, token_ratio: 0.5 }); // floor(50.5) = 50
    expect(at.report.steps[0]).toMatchObject({ triggered: true, threshold_tokens: 50, tokens_before: 50 });
    const below = await run([u(big(100))], { max_token: 101, token_ratio: 0.5 });
    expect(below.report.steps[0]).toMatchObject({ triggered: false, tokens_before: 49 });
  });

  it("never summarizes a plain chat: over the threshold every turn is still sent", async () => {
    const msgs = [...chat(60), u("next")];
    const r = await run(msgs, { msg_threshold: 100 });
    expect(r.report.steps[0]).toMatchObject({ triggered: true, strategy: null, messages_after: 121 });
    expect(memoryOf(r)).toEqual(msgs);
    memoryOf(r).forEach((m, i) => expect(m).toBe(msgs[i]));
  });
});

describe("strategy 1: old tool runs", () => {
  const rounds = (toolPairs: number) => [
    u("inspect the config"),
    ...Array.from({ length: toolPairs }, (_, i) => [call(`c${i}`), tool(`c${i}`, `line ${i}`)]).flat(),
    a("done"),
    u("thanks"),
    a("welcome"),
    u("next"),
  ];
  const opts = { msg_threshold: 1, last_keep: 2, min_compression_token_threshold: 10 };

  it("a run of more than min_consecutive_tool_messages becomes one assistant summary, then a newline and the tag", async () => {
    const msgs = rounds(4); // 8 tool messages
    const r = await run(msgs, opts);
    expect(r.report.steps[0].strategy).toBe(1);
    expect(r.report.steps[0].events).toMatchObject([{ type: "TOOL_INVOCATION_COMPRESS", compressed_message_count: 8, start: 1 }]);
    const mem = memoryOf(r);
    expect(mem).toHaveLength(msgs.length - 7);
    expect(mem[0]).toBe(msgs[0]);
    expect(mem[1].role).toBe("assistant");
    expect(mem[1].content).toMatch(/^\[Memscope placeholder, no chat model configured: a TOOL_INVOCATION_COMPRESS summary of 8 message\(s\)/);
    expect((mem[1].content as string).endsWith(`]\n${TAG(1)}`)).toBe(true);
    expect(mem.slice(2)).toEqual(msgs.slice(9));
    // The summarizer got the instruction, the eight messages as chat messages, the end marker.
    const sent = r.report.steps[0].events[0].summarizer_messages!;
    expect(sent).toHaveLength(10);
    expect(sent.slice(1, 9)).toEqual(msgs.slice(1, 9));
    expect(sent[0].role).toBe("user");
    expect(sent[9].role).toBe("user");
  });

  // When strategy 1 passes, the same round is still tool work in a past round: strategy 4 takes it.
  it("7 tool messages compress, 6 do not (more than min_consecutive_tool_messages: 6)", async () => {
    const seven = [u("q"), call("c0"), tool("c0"), call("c1"), tool("c1"), call("c2"), tool("c2"), tool("c2b"), a("done"), u("thanks"), a("ok"), u("next")];
    expect((await run(seven, opts)).report.steps[0].strategy).toBe(1);
    const six = [u("q"), call("c0"), tool("c0"), call("c1"), tool("c1"), call("c2"), tool("c2"), a("done"), u("thanks"), a("ok"), u("next")];
    expect((await run(six, opts)).report.steps[0].strategy).toBe(4);
  });

  it("compresses at exactly min_compression_token_threshold tokens and skips one below", async () => {
    const msgs = rounds(4);
    const tokens = estimateTokens(fromRoleMessages(msgs).slice(1, 9));
    expect((await run(msgs, { ...opts, min_compression_token_threshold: tokens })).report.steps[0].strategy).toBe(1);
    expect((await run(msgs, { ...opts, min_compression_token_threshold: tokens + 1 })).report.steps[0].strategy).toBe(4);
  });

  it("spares the last last_keep messages; a run cut there is trimmed to end on a tool result", async () => {
    const msgs = rounds(4); // 13 messages, the run at 1..8
    expect((await run(msgs, { ...opts, last_keep: 4 })).report.steps[0].events[0]).toMatchObject({ type: "TOOL_INVOCATION_COMPRESS", compressed_message_count: 8 });
    // last_keep 5 leaves 1..7 (7 messages) ending on a call: trimmed to 6, not enough. Strategy 4 takes the round.
    expect((await run(msgs, { ...opts, last_keep: 5 })).report.steps[0].strategy).toBe(4);
    // The short-history rule: under last_keep messages strategy 1 has nothing to search; the round is still past tool work for 4.
    expect((await run(msgs, { ...opts, last_keep: 14 })).report.steps[0].strategy).toBe(4);
  });
});

describe("strategies 2 and 3: large single messages", () => {
  it("offloads an old message over large_payload_threshold characters: preview, '...', newline, tag; role kept", async () => {
    const text = "A".repeat(100) + "B".repeat(5100);
    const msgs = [u("q0"), a(text), u("q1"), a("a1"), u("q2")];
    const r = await run(msgs, { msg_threshold: 1, last_keep: 2 });
    expect(r.report.steps[0]).toMatchObject({ strategy: 2, events: [{ type: "LARGE_MESSAGE_OFFLOAD_WITH_PROTECTION", compressed_message_count: 1, offload_ref: "00000000-0000-4000-8000-000000000001" }] });
    expect(memoryOf(r)[1]).toEqual({ role: "assistant", content: `${"A".repeat(100)}${"B".repeat(100)}...\n${TAG(1)}` });
    expect(JSON.parse(r.offloads![0].content)).toEqual([msgs[1]]);
  });

  it("over means more than: 5120 characters stay, 5121 go", async () => {
    const r1 = await run([u("q0"), a(big(5120)), u("q1"), a("a1"), u("q2")], { msg_threshold: 1, last_keep: 2 });
    expect(r1.report.steps[0].strategy).toBeNull();
    const r2 = await run([u("q0"), a(big(5121)), u("q1"), a("a1"), u("q2")], { msg_threshold: 1, last_keep: 2 });
    expect(r2.report.steps[0].strategy).toBe(2);
  });

  it("strategy 3 reaches into the last last_keep messages when 2 finds nothing", async () => {
    const msgs = [u("q0"), a(big(6000)), u("q1"), a("a1"), u("q2")];
    const r = await run(msgs, { msg_threshold: 1, last_keep: 5 });
    expect(r.report.steps[0]).toMatchObject({ strategy: 3, events: [{ type: "LARGE_MESSAGE_OFFLOAD" }] });
  });

  it("never offloads a tool-call message; a large tool result keeps its call id", async () => {
    const msgs = [u("q0"), call("c1", '{"path":"/a"}', big(6000, "t")), tool("c1", big(6000, "r")), a("a0"), u("q1"), a("a1"), u("q2")];
    const r = await run(msgs, { msg_threshold: 1, last_keep: 2 });
    expect(r.report.steps[0].events).toHaveLength(1);
    const mem = memoryOf(r);
    expect(mem[1]).toBe(msgs[1]);
    expect(mem[2]).toEqual({ role: "tool", tool_call_id: "c1", content: `${big(200, "r")}...\n${TAG(1)}` });
  });

  it("never offloads the latest user message (it comes after the latest answer)", async () => {
    const msgs = [u("q0"), a("a0"), u(big(9000))];
    const r = await run(msgs, { msg_threshold: 1, last_keep: 1 });
    expect(r.report.steps[0]).toMatchObject({ triggered: true, strategy: null });
    expect(memoryOf(r)[2]).toBe(msgs[2]);
  });

  it("offloads a large system message stored in memory", async () => {
    const msgs = [sys(big(6000, "s")), u("q1"), a("a1"), u("q2")];
    const r = await run(msgs, { msg_threshold: 1, last_keep: 2 });
    expect(r.report.steps[0].strategy).toBe(2);
    expect(memoryOf(r)[0]).toEqual({ role: "system", content: `${big(200, "s")}...\n${TAG(1)}` });
  });

  it("short-history rule holds for 2 and 3 too", async () => {
    const msgs = [u("q0"), a(big(6000)), u("q1"), a("a1"), u("q2")];
    expect((await run(msgs, { msg_threshold: 1, last_keep: 6 })).report.steps[0].strategy).toBeNull();
  });
});

describe("strategy 4: past rounds that used tools", () => {
  it("keeps the question and replaces the rest of the round with an assistant summary, newline, tag", async () => {
    const msgs = [u("q0"), call("c1"), tool("c1"), a("a0"), u("q1"), a("a1"), u("q2")];
    const r = await run(msgs, { msg_threshold: 1, last_keep: 50, min_compression_token_threshold: 10 });
    expect(r.report.steps[0]).toMatchObject({ strategy: 4, events: [{ type: "PREVIOUS_ROUND_CONVERSATION_SUMMARY", compressed_message_count: 3, start: 1 }] });
    const mem = memoryOf(r);
    expect(mem).toHaveLength(5);
    expect(mem[0]).toBe(msgs[0]);
    expect(mem[1].role).toBe("assistant");
    expect((mem[1].content as string).endsWith(`]\n${TAG(1)}`)).toBe(true);
    expect(mem.slice(2)).toEqual(msgs.slice(4));
    // The question goes to the summarizer (and to the offloaded original) with the round.
    expect(r.report.steps[0].events[0].summarizer_messages!.slice(1, 5)).toEqual(msgs.slice(0, 4));
    expect(JSON.parse(r.offloads![0].content)).toEqual(msgs.slice(0, 4));
  });

  it("leaves a round without tool work, and a round below min_compression_token_threshold", async () => {
    const plain = [u("q0"), a("a0"), u("q1"), a("a1"), u("q2")];
    expect((await run(plain, { msg_threshold: 1, min_compression_token_threshold: 1 })).report.steps[0].strategy).toBeNull();
    const msgs = [u("q0"), call("c1"), tool("c1"), a("a0"), u("q1"), a("a1"), u("q2")];
    const tokens = estimateTokens(fromRoleMessages(msgs).slice(0, 4));
    expect((await run(msgs, { msg_threshold: 1, min_compression_token_threshold: tokens })).report.steps[0].strategy).toBe(4);
    expect((await run(msgs, { msg_threshold: 1, min_compression_token_threshold: tokens + 1 })).report.steps[0].strategy).toBeNull();
  });
});

describe("strategies 5 and 6: the current round", () => {
  it("5 summarizes a large current-round tool result in place: call id kept, summary directly followed by the tag", async () => {
    const msgs = [u("q0"), a("a0"), u("q1"), call("c1"), tool("c1", big(6000, "r"))];
    const r = await run(msgs, { msg_threshold: 1 });
    expect(r.report.steps[0]).toMatchObject({ strategy: 5, events: [{ type: "CURRENT_ROUND_LARGE_MESSAGE_SUMMARY", compressed_message_count: 1 }] });
    const m = memoryOf(r)[4];
    expect(m.role).toBe("tool");
    expect(m.tool_call_id).toBe("c1");
    expect((m.content as string).endsWith(`]${TAG(1)}`)).toBe(true);
    // The summarizer sees the result's text, not its tool structure.
    expect(r.report.steps[0].events[0].summarizer_messages![1]).toEqual({ role: "tool", tool_call_id: "c1", content: big(6000, "r") });
  });

  it("5 never summarizes a message it already summarized, even when the summary is large: the next call goes to 6", async () => {
    const wordy: SummaryInfo = { summarize: async () => "s".repeat(6000), model: "wordy", counts: () => ({ calls: 0, cached: 0 }) };
    const msgs = [u("q0"), a("a0"), u("q1"), call("c1"), tool("c1", big(6000, "r"))];
    const r = await run(msgs, { msg_threshold: 1, steps: 2 }, wordy);
    expect(r.report.steps.map((s) => s.strategy)).toEqual([5, 6]);
  });

  it("6 collapses the current round into one assistant message (summary then tag, no newline); a pending tool call stays", async () => {
    const msgs = [u("q0"), a("a0"), u("q1"), call("c1"), tool("c1"), call("c2")];
    const r = await run(msgs, { msg_threshold: 1 });
    expect(r.report.steps[0]).toMatchObject({ strategy: 6, events: [{ type: "CURRENT_ROUND_MESSAGE_COMPRESS", compressed_message_count: 2, start: 3 }] });
    const mem = memoryOf(r);
    expect(mem).toHaveLength(5);
    expect(mem[3].role).toBe("assistant");
    expect((mem[3].content as string).endsWith(`]${TAG(1)}`)).toBe(true);
    expect(mem[4]).toBe(msgs[5]);
    // The character budget goes last: 30% of the messages' characters.
    const sent = r.report.steps[0].events[0].summarizer_messages!;
    expect(sent.at(-1)!.content).toContain("Write about");
    expect(sent.slice(1, 3)).toEqual(msgs.slice(3, 5));
  });

  it("6 does nothing when the only message after the question is a pending call", async () => {
    const r = await run([u("q0"), a("a0"), u("q1"), call("c1")], { msg_threshold: 1 });
    expect(r.report.steps[0].strategy).toBeNull();
  });
});

describe("one strategy per model call, carried forward", () => {
  it("four calls in a row apply strategies 1, 2, 4 and 6, each on what the one before left", async () => {
    const msgs = [
      u("q1"),
      ...Array.from({ length: 4 }, (_, i) => [call(`c${i}`), tool(`c${i}`)]).flat(),
      a("a1"),
      u("q2"),
      a(big(6000, "b")),
      u("q3"),
      call("c9"),
      tool("c9"),
      a("a3"),
      u("q4"),
      a("a4"),
      u("q5"),
      call("c10"),
      tool("c10"),
    ];
    const r = await run(msgs, { msg_threshold: 1, last_keep: 4, min_compression_token_threshold: 10, steps: 4 });
    expect(r.report.steps.map((s) => s.strategy)).toEqual([1, 2, 4, 6]);
    expect(r.report.steps.map((s) => s.messages_after)).toEqual([14, 14, 12, 11]);
    expect(r.report.steps.map((s) => s.events[0].type)).toEqual([
      "TOOL_INVOCATION_COMPRESS",
      "LARGE_MESSAGE_OFFLOAD_WITH_PROTECTION",
      "PREVIOUS_ROUND_CONVERSATION_SUMMARY",
      "CURRENT_ROUND_MESSAGE_COMPRESS",
    ]);
    // Each step starts from the previous one's result.
    for (let i = 1; i < 4; i++) expect(r.report.steps[i].messages_before).toBe(r.report.steps[i - 1].messages_after);
    expect(r.offloads!.map((o) => o.ref)).toHaveLength(4);
  });

  it("compressIfNeeded changes the memory it is given and nothing else", async () => {
    const state = {
      config: strategy({ msg_threshold: 1 }) as never,
      memory: fromRoleMessages([u("q0"), a("a0"), u("q1"), call("c1"), tool("c1")]),
      offloads: new Map(),
      summarize: placeholderSummarizer,
      newUuid: uuids(),
    };
    const r = await compressIfNeeded(state);
    expect(r.strategy).toBe(6);
    expect(state.memory).toHaveLength(4);
    expect(state.offloads.size).toBe(1);
  });
});

describe("the hook's system message", () => {
  it("1.0 appends the instruction to the system prompt after a blank line; 1.1 sends it as a second system message", () => {
    expect(hookSystemMessages("You are Friday.", "1.0")).toEqual([{ role: "system", content: `You are Friday.\n\n${HOOK_INSTRUCTION}` }]);
    expect(hookSystemMessages("You are Friday.", "1.1")).toEqual([
      { role: "system", content: "You are Friday." },
      { role: "system", content: HOOK_INSTRUCTION },
    ]);
    for (const wiring of ["1.0", "1.1"] as const) expect(hookSystemMessages("  ", wiring)).toEqual([{ role: "system", content: HOOK_INSTRUCTION }]);
  });

  it("goes before the memory on every call, whether or not compression ran; context_reload is offered", async () => {
    const msgs = [u("q0")];
    for (const wiring of ["1.0", "1.1"] as const) {
      const r = await run(msgs, { system_prompt: "You are Friday.", hook_wiring: wiring });
      expect(r.report.steps[0].triggered).toBe(false);
      expect(r.messages).toEqual([...hookSystemMessages("You are Friday.", wiring), msgs[0]]);
      expect(r.report.tools.map((t) => t.name)).toEqual(["context_reload"]);
    }
  });
});

describe("replay of a stored conversation", () => {
  it("compresses before each assistant message and carries the result forward; the query is appended for the next call", async () => {
    const history = [u("q0"), call("c1"), tool("c1", big(6000, "r")), a("a0"), u("q1"), a("a1")];
    const r = await replayAutoContext(history, u("q2"), strategy({ msg_threshold: 3 }), placeholder, { newUuid: uuids() });
    // Calls before: call c1 (memory 1 message), a0 (3: triggered, strategy 5 on the large result), a1 (5), next (7).
    expect(r.report.calls).toBe(4);
    expect(r.report.steps.map((s) => [s.call, s.turn_index, s.strategy])).toEqual([[2, 3, 5]]);
    expect(r.memory.at(-1)).toEqual(u("q2"));
    expect(r.memory[2].role).toBe("tool");
    expect((r.memory[2].content as string).endsWith(TAG(1))).toBe(true);
  });
});
