import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyStrategy, summaryInfo } from "@/lib/strategies/apply-strategy";
import { replayAutoContext, runAutoContext } from "@/lib/strategies/agentscope/run-auto-context";
import { placeholderSummarizer } from "@/lib/strategies/agentscope/summarize-placeholder";
import type { SummaryCache, SummaryKey } from "@/lib/strategies/agentscope/summary-cache";
import { HOOK_INSTRUCTION } from "@/lib/strategies/agentscope/prompts";
import { excludeTools } from "@/lib/strategies/exclude-tools";
import { anyLongPiece, listTokens, primeContentTokens, roleMessageTokens, textOf } from "@/lib/strategies/message-tokens";
import { messageWindowStrategy, truncateChars } from "@/lib/strategies/message-window-strategy";
import { tokenBufferStrategy } from "@/lib/strategies/token-buffer-strategy";
import { cutBeforeCall, summaryBufferStrategy } from "@/lib/strategies/summary-buffer-strategy";
import { ZAutoContextStrategy, ZRoleMessage, type RoleMessage } from "@/lib/strategies/schemas";
import { countTextTokens } from "@/lib/tokens/count-tokens";
import { startOpenAiStub, type OpenAiStub } from "../helpers/openai-stub";

// Exact outputs of the window strategies: reasons, indices, token sums and the
// applyStrategy envelope. Token counts follow OpenAI's chat formula: 3 per message +
// the role's tokens (1 for user/assistant/system/tool) [+ 1 + the name's tokens] +
// the content's tokens, + 3 for the reply priming. Short English words are 1 token in
// both o200k_base and cl100k_base ("hello", "hi", "ok").

const u = (content: string, name?: string): RoleMessage => ({ role: "user", content, ...(name ? { name } : {}) });
const a = (content: string): RoleMessage => ({ role: "assistant", content });
const sys = (content: string): RoleMessage => ({ role: "system", content });
const call = (id: string, content = "", args = "{}"): RoleMessage => ({ role: "assistant", content, tool_calls: [{ id, name: "search", arguments: args }] });
const tool = (id: string, content = "found"): RoleMessage => ({ role: "tool", tool_call_id: id, content });

describe("excludeTools (include_tools: false)", () => {
  it("drops results and text-less calls, strips the calls off a turn that also said something, each with its reason", () => {
    const input: RoleMessage[] = [
      u("q"),
      call("c1"),
      tool("c1"),
      call("c2", "   "),
      { role: "assistant", content: "let me look", tool_calls: [{ id: "c3", name: "a", arguments: "{}" }, { id: "c4", name: "b", arguments: "{}" }] },
      { role: "assistant", content: [{ type: "text", text: "see" }], tool_calls: [{ id: "c5", name: "a", arguments: "{}" }] },
      { role: "assistant", content: [], tool_calls: [{ id: "c6", name: "a", arguments: "{}" }] },
      { role: "assistant", content: "plain", tool_calls: [] },
    ];
    const r = excludeTools(input);
    expect(r.dropped).toEqual([
      { index: 1, reason: "tool call without text excluded (include_tools: false)" },
      { index: 2, reason: "tool result excluded (include_tools: false)" },
      { index: 3, reason: "tool call without text excluded (include_tools: false)" },
      { index: 6, reason: "tool call without text excluded (include_tools: false)" },
    ]);
    expect(r.transformed).toEqual([
      { index: 4, action: "tool_calls_removed", reason: "2 tool call(s) removed (include_tools: false)" },
      { index: 5, action: "tool_calls_removed", reason: "1 tool call(s) removed (include_tools: false)" },
    ]);
    expect(r.kept.map((k) => k.index)).toEqual([0, 4, 5, 7]);
    expect(r.kept[0].m).toBe(input[0]);
    expect(r.kept[1].m).toEqual({ role: "assistant", content: "let me look" });
    expect("tool_calls" in r.kept[1].m).toBe(false);
    expect(r.kept[2].m).toEqual({ role: "assistant", content: [{ type: "text", text: "see" }] });
    expect(r.kept[3].m).toBe(input[7]);
  });
});

describe("message tokens (OpenAI chat formula)", () => {
  it("one message: 3 + role + content [+ 1 + name]; tool calls add their name and arguments", () => {
    expect(roleMessageTokens(u("hello"), "o200k_base")).toBe(5);
    expect(roleMessageTokens(u("hello", "bob"), "o200k_base")).toBe(7);
    const c = call("c1", "", '{"q":"lisbon trams"}');
    expect(roleMessageTokens(c, "o200k_base")).toBe(4 + countTextTokens("search", "o200k_base") + countTextTokens('{"q":"lisbon trams"}', "o200k_base"));
    expect(countTextTokens('{"q":"lisbon trams"}', "o200k_base")).toBeGreaterThan(1);
  });

  it("a cached count (from the database) is used for that encoding only", () => {
    const m = u("hello");
    primeContentTokens(m, "cl100k_base", 40);
    expect(roleMessageTokens(m, "cl100k_base")).toBe(44);
    expect(roleMessageTokens(m, "o200k_base")).toBe(5);
    const named = u("hello", "bob");
    primeContentTokens(named, "o200k_base", 10);
    expect(roleMessageTokens(named, "o200k_base")).toBe(16);
  });

  it("a list: nothing when empty, else the messages plus 3 for the reply priming", () => {
    expect(listTokens([], "o200k_base")).toBe(0);
    expect(listTokens([u("hello")], "o200k_base")).toBe(8);
    expect(listTokens([u("hello"), a("hi")], "o200k_base")).toBe(13);
  });

  it("textOf: the string, or text parts and [kind] markers joined by newlines", () => {
    expect(textOf(u("plain"))).toBe("plain");
    expect(textOf({ role: "user", content: [{ type: "text", text: "a" }, { type: "image", transfer_method: "remote_url" }, { type: "text", text: "b" }] })).toBe("a\n[image]\nb");
  });

  it("anyLongPiece: a word over 256 bytes in a text, or in an assistant's tool-call arguments", () => {
    const long = "x".repeat(300);
    expect(anyLongPiece([u("short words only"), a("fine")], "o200k_base")).toBe(false);
    expect(anyLongPiece([u("fine"), a(long)], "o200k_base")).toBe(true);
    expect(anyLongPiece([call("c1", "", long)], "o200k_base")).toBe(true);
    expect(anyLongPiece([{ role: "user", content: "x", tool_calls: [{ id: "c", name: "s", arguments: long }] }], "o200k_base")).toBe(false);
    expect(anyLongPiece([call("c1", "", "{}")], "o200k_base")).toBe(false);
  });
});

describe("summary_buffer: exact outputs", () => {
  const ctx = { encoding: "o200k_base" as const, contextWindow: 128_000 };
  const opts = { msg_threshold: 4, token_ratio: 0.9, last_keep: 2, offload_tokens: 2000, include_tools: true };

  it("cutBeforeCall moves a cut off tool results back to their call, never past the start or end", () => {
    const body = [u("q"), call("c1"), tool("c1"), tool("c1b"), a("done")].map((m) => ({ m }));
    expect(cutBeforeCall(body, 3)).toBe(1);
    expect(cutBeforeCall(body, 2)).toBe(1);
    expect(cutBeforeCall(body, 4)).toBe(4);
    expect(cutBeforeCall(body, 5)).toBe(5);
    expect(cutBeforeCall(body, 0)).toBe(0);
    expect(cutBeforeCall([tool("x"), tool("y")].map((m) => ({ m })), 1)).toBe(0);
  });

  it("count trigger is 'more than msg_threshold'; token trigger is 'more than token_ratio × window'", async () => {
    const four = [u("a"), a("b"), u("c"), a("d")];
    expect((await summaryBufferStrategy(four, opts, ctx, null)).triggered).toBe(false);
    expect((await summaryBufferStrategy([...four, u("e")], opts, ctx, null)).triggered).toBe(true);
    // Two messages of 5 tokens each + 3: 13 tokens. floor(0.5 × 26) = 13 fits, floor(0.5 × 25) = 12 does not.
    const two = [u("hello"), a("hello")];
    expect(listTokens(two, "o200k_base")).toBe(13);
    expect((await summaryBufferStrategy(two, { ...opts, msg_threshold: 10, token_ratio: 0.5 }, { ...ctx, contextWindow: 26 }, null)).triggered).toBe(false);
    const over = await summaryBufferStrategy(two, { ...opts, msg_threshold: 10, token_ratio: 0.5 }, { ...ctx, contextWindow: 25 }, null);
    expect(over.triggered).toBe(true);
    // Not triggered: the messages as given, their indices, nothing changed.
    const under = await summaryBufferStrategy(four, opts, ctx, null);
    expect(under).toEqual({ messages: four, sourceIndex: [0, 1, 2, 3], dropped: [], transformed: [], triggered: false });
  });

  it("merges adjacent plain messages of one role with a blank line, and says which; leading system messages stay apart", async () => {
    // Merging alone brings 8 messages to 6 (not over msg_threshold 6): nothing is summarized.
    const msgs = [sys("rules"), sys("more rules"), u("one"), u("two"), u("three"), a("reply"), u("tail q"), a("tail a")];
    const out = await summaryBufferStrategy(msgs, { ...opts, msg_threshold: 6 }, ctx, null);
    expect(out).toEqual({
      messages: [sys("rules"), sys("more rules"), u("one\n\ntwo\n\nthree"), a("reply"), u("tail q"), a("tail a")],
      sourceIndex: [0, 1, 2, 5, 6, 7],
      dropped: [],
      transformed: [{ index: 2, action: "merged", reason: "3 adjacent user messages merged (indices 2, 3, 4)" }],
      triggered: true,
      offloads: [],
    });
    // The stored messages are not changed.
    expect(msgs[2]).toEqual(u("one"));
  });

  it("does not merge named messages, tool calls, content parts or system messages in the body", async () => {
    const msgs = [u("a1"), u("a2", "ana"), call("c1", "x"), call("c2", "y"), { role: "user" as const, content: [{ type: "text" as const, text: "p" }] }, u("q"), sys("s1"), sys("s2"), u("t1"), a("t2")];
    const out = await summaryBufferStrategy(msgs, { ...opts, msg_threshold: 100, token_ratio: 1, last_keep: 2 }, { ...ctx, contextWindow: 10 }, null);
    // Still over after merging: summarized, so look at what was merged.
    expect(out.transformed.filter((t) => t.action === "merged")).toEqual([]);
    expect(out.transformed.filter((t) => t.action === "summarized").map((t) => t.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("summarizes the older part into one labelled system message (extractive without a model); the tail is kept", async () => {
    const msgs = [u("The budget is 120 euros."), a("Noted the budget."), u("Trams are cheap."), a("Yes they are."), u("tail q"), a("tail a")];
    const out = await summaryBufferStrategy(msgs, opts, ctx, null);
    expect(out.messages).toHaveLength(3);
    expect(out.messages.slice(1)).toEqual(msgs.slice(4));
    expect(out.sourceIndex).toEqual([-1, 4, 5]);
    expect(out.messages[0]).toEqual({
      role: "system",
      content:
        "Extractive summary of the earlier conversation (selected sentences, not rewritten), 4 messages:\n- The budget is 120 euros.\n- Noted the budget.\n- Trams are cheap.\n- Yes they are.",
    });
    expect(out.transformed).toEqual(
      [0, 1, 2, 3].map((index) => ({ index, action: "summarized", reason: "extractive summary (highest-scoring sentences; no model configured)" })),
    );
  });

  it("a merged group counts all its messages in the summary label and each index is reported summarized", async () => {
    const msgs = [u("The budget is 120 euros."), u("Trams are cheap."), a("Yes."), a("Indeed."), u("x"), u("tail q"), a("tail a")];
    const out = await summaryBufferStrategy(msgs, { ...opts, msg_threshold: 2 }, ctx, null);
    expect(out.messages[0].content).toMatch(/^Extractive summary of the earlier conversation \(selected sentences, not rewritten\), 5 messages:\n/);
    expect(out.transformed.filter((t) => t.action === "summarized").map((t) => t.index)).toEqual([0, 1, 2, 3, 4]);
    expect(out.transformed.filter((t) => t.action === "merged")).toEqual([
      { index: 0, action: "merged", reason: "2 adjacent user messages merged (indices 0, 1)" },
      { index: 2, action: "merged", reason: "2 adjacent assistant messages merged (indices 2, 3)" },
    ]);
    // Sorted by index.
    expect(out.transformed.map((t) => t.index)).toEqual([...out.transformed.map((t) => t.index)].sort((x, y) => x - y));
  });

  it("a history of system messages only: triggered, nothing to merge or summarize", async () => {
    const msgs = [sys("a"), sys("b"), sys("c")];
    expect(await summaryBufferStrategy(msgs, { ...opts, msg_threshold: 1 }, ctx, null)).toEqual({
      messages: msgs,
      sourceIndex: [0, 1, 2],
      dropped: [],
      transformed: [],
      triggered: true,
      offloads: [],
    });
  });

  it("last_keep 0 summarizes everything but leading system messages", async () => {
    const msgs = [sys("rules"), u("alpha one."), a("beta two."), u("gamma three."), a("delta four."), u("epsilon five.")];
    const out = await summaryBufferStrategy(msgs, { ...opts, last_keep: 0 }, ctx, null);
    expect(out.messages.map((m) => m.role)).toEqual(["system", "system"]);
    expect(out.messages[0]).toBe(msgs[0]);
    expect(out.sourceIndex).toEqual([0, -1]);
  });

  it("offloads a kept message over offload_tokens: reason, ref, preview of 200 characters; not system messages nor the summary", async () => {
    const bigText = "é".repeat(150) + "z".repeat(400);
    const msgs = [sys(bigText), u("q"), u(bigText)];
    const tokens = roleMessageTokens(u(bigText), "o200k_base");
    const out = await summaryBufferStrategy(msgs, { ...opts, msg_threshold: 2, offload_tokens: tokens - 1 }, ctx, null);
    expect(out.offloads).toHaveLength(1);
    const ref = out.offloads![0].ref;
    expect(ref).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.offloads![0]).toEqual({ ref, content: bigText, tokens });
    expect(out.messages[0]).toBe(msgs[0]);
    expect(out.messages.at(-1)).toEqual(u(`[Offloaded ${tokens} tokens; ref ${ref}] ${"é".repeat(150)}${"z".repeat(50)}…`));
    expect(out.transformed.find((t) => t.action === "offloaded")).toEqual({ index: 2, action: "offloaded", reason: `${tokens} tokens over offload_tokens ${tokens - 1}`, ref });
    // At exactly offload_tokens it stays.
    const at = await summaryBufferStrategy(msgs, { ...opts, msg_threshold: 2, offload_tokens: tokens }, ctx, null);
    expect(at.offloads).toEqual([]);
  });

  it("without tools: their drops are reported and the rest goes through the buffer", async () => {
    const msgs = [u("q"), call("c1"), tool("c1"), a("answer")];
    const out = await summaryBufferStrategy(msgs, { ...opts, include_tools: false, msg_threshold: 10 }, ctx, null);
    expect(out).toEqual({
      messages: [msgs[0], msgs[3]],
      sourceIndex: [0, 3],
      dropped: [
        { index: 1, reason: "tool call without text excluded (include_tools: false)" },
        { index: 2, reason: "tool result excluded (include_tools: false)" },
      ],
      transformed: [],
      triggered: false,
    });
    const over = await summaryBufferStrategy([...msgs, u("more"), a("more")], { ...opts, include_tools: false, msg_threshold: 1, last_keep: 4 }, ctx, null);
    expect(over.dropped.map((d) => d.index)).toEqual([1, 2]);
    expect(over.messages).toEqual([msgs[0], msgs[3], u("more"), a("more")]);
  });
});

describe("summary_buffer with a chat model (local stub)", () => {
  let stub: OpenAiStub;
  beforeAll(async () => {
    stub = await startOpenAiStub({ chat: () => "They set a budget of 120 euros." });
  });
  afterAll(async () => stub?.stop());

  it("sends the older messages as 'role: text' lines under the instruction and labels the summary with the model", async () => {
    stub.requests.length = 0;
    const msgs = [u("The budget is 120 euros."), a("Noted."), u("tail q"), a("tail a")];
    const out = await summaryBufferStrategy(msgs, { msg_threshold: 3, token_ratio: 0.9, last_keep: 2, offload_tokens: 2000, include_tools: true }, { encoding: "o200k_base", contextWindow: 128_000 }, {
      baseUrl: stub.url,
      model: "stub-chat",
    });
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0].body.messages).toEqual([
      {
        role: "user",
        content:
          "Summarize this earlier part of a conversation for the assistant's memory. Keep facts, decisions, preferences, open questions and tool results that matter later. Be concise.\n\nuser: The budget is 120 euros.\nassistant: Noted.",
      },
    ]);
    expect(out.messages[0]).toEqual({ role: "system", content: "Summary of the earlier conversation, 2 messages:\nThey set a budget of 120 euros." });
    expect(out.transformed).toEqual([
      { index: 0, action: "summarized", reason: "summary by stub-chat" },
      { index: 1, action: "summarized", reason: "summary by stub-chat" },
    ]);
  });
});

describe("applyStrategy: the envelope", () => {
  const tb = { type: "token_buffer" as const, max_token_limit: 10_000, include_tools: true };

  it("the default model is gpt-4o: o200k_base, 128 000 tokens, exact", async () => {
    const r = await applyStrategy([u("hello")], tb);
    expect(r).toEqual({
      messages: [u("hello")],
      total_tokens: 8,
      dropped: [],
      transformed: [],
      model: "gpt-4o",
      encoding: "o200k_base",
      approximate: false,
      context_window: 128_000,
      offloads: [],
      preset: { model: "gpt-4o", context_window: 128_000, encoding: "o200k_base", exact: true },
      sourceIndex: [0],
    });
  });

  it("a preset saved in settings wins over the built-in one, matched without case; a stand-in tokenizer is approximate", async () => {
    const mine = { model: "gpt-4o", context_window: 4096, encoding: "cl100k_base" as const, exact: false };
    const r = await applyStrategy([u("hello")], tb, { model: "GPT-4o", presets: [mine] });
    expect(r).toMatchObject({ model: "gpt-4o", encoding: "cl100k_base", context_window: 4096, approximate: true, total_tokens: 8 });
    expect(r.preset).toBe(mine);
    const unknown = await applyStrategy([u("hello")], tb, { model: "mystery-llm" });
    expect(unknown).toMatchObject({ model: "mystery-llm", approximate: true, context_window: 128_000 });
  });

  it("a word over 256 bytes makes an exact model's count approximate", async () => {
    expect((await applyStrategy([u("x".repeat(300))], tb)).approximate).toBe(true);
  });

  it("temporary messages go last with index -1, each reported as appended", async () => {
    const r = await applyStrategy([u("hello")], tb, { temporary: [u("tmp one"), a("tmp two")] });
    expect(r.messages).toEqual([u("hello"), u("tmp one"), a("tmp two")]);
    expect(r.sourceIndex).toEqual([0, -1, -1]);
    expect(r.transformed).toEqual([
      { index: -1, action: "temporary_appended", reason: "temporary message 1 of 2: used once, not stored" },
      { index: -1, action: "temporary_appended", reason: "temporary message 2 of 2: used once, not stored" },
    ]);
    expect(r.total_tokens).toBe(listTokens(r.messages, "o200k_base"));
    // message_window appends them itself, once.
    const w = await applyStrategy([u("hello")], { type: "message_window", max_attached_message_count: 10, history_message_truncate_enable: false, history_message_truncate_length: 10, include_tools: true }, {
      temporary: [u("tmp")],
    });
    expect(w.messages).toEqual([u("hello"), u("tmp")]);
    expect(w.transformed).toEqual([{ index: -1, action: "temporary_appended", reason: "temporary message 1 of 1: used once, not stored, never truncated" }]);
    expect("triggered" in w).toBe(false);
    // Without temporaries nothing is appended or reported.
    expect((await applyStrategy([u("hello")], tb, { temporary: [] })).transformed).toEqual([]);
  });

  it("summary_buffer reports whether it triggered; token_buffer does not", async () => {
    const s = await applyStrategy([u("hello")], { type: "summary_buffer", msg_threshold: 30, token_ratio: 0.3, last_keep: 10, offload_tokens: 2000, include_tools: true });
    expect(s.triggered).toBe(false);
    expect("triggered" in (await applyStrategy([u("hello")], tb))).toBe(false);
    expect("auto_context" in s).toBe(false);
  });

  const ac = (over: Record<string, unknown> = {}) => ZAutoContextStrategy.parse({ type: "auto_context", summarizer: "placeholder", ...over });
  const uuids = () => {
    let n = 0;
    return () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
  };
  const placeholder = { summarize: placeholderSummarizer, model: null, counts: () => ({ calls: 0, cached: 0 }), chatModel: null };

  it("auto_context: the run's messages, report and offloads; the caller's system prompt goes in the hook", async () => {
    const msgs = [u("q0"), a("a".repeat(6000)), u("q1"), a("a1"), u("q2")];
    const s = ac({ msg_threshold: 1, last_keep: 2, system_prompt: "ignored here" });
    const r = await applyStrategy(msgs, s, { autoContext: { systemPrompt: "You are Friday.", newUuid: uuids() } });
    const direct = await runAutoContext(msgs, s, placeholder, { systemPrompt: "You are Friday.", newUuid: uuids() });
    expect(r.auto_context).toEqual(direct.report);
    expect(r.messages).toEqual(direct.messages);
    expect(r.offloads).toEqual(direct.offloads);
    expect(r.triggered).toBe(true);
    expect(r.messages[0]).toEqual({ role: "system", content: `You are Friday.\n\n${HOOK_INSTRUCTION}` });
    expect(r.total_tokens).toBe(listTokens(r.messages, "o200k_base"));
    // Temporary messages follow the run's output.
    const t = await applyStrategy(msgs, s, { temporary: [u("tmp")], autoContext: { newUuid: uuids() } });
    expect(t.messages.at(-1)).toEqual(u("tmp"));
    expect(t.messages[0]).toEqual({ role: "system", content: `ignored here\n\n${HOOK_INSTRUCTION}` });
  });

  it("auto_context replay: compression before each stored answer, the next query appended", async () => {
    const history = [u("q0"), a("a".repeat(6000)), u("q1"), a("a1")];
    const s = ac({ msg_threshold: 3, last_keep: 1 });
    const r = await applyStrategy(history, s, { autoContext: { replay: { next: u("q2"), conversationId: null }, newUuid: uuids() } });
    const direct = await replayAutoContext(history, u("q2"), s, placeholder, { newUuid: uuids() });
    expect(r.auto_context).toEqual(direct.report);
    expect(r.messages).toEqual(direct.messages);
    expect(r.auto_context!.calls).toBe(3);
    expect(r.messages.at(-1)).toEqual(u("q2"));
  });
});

describe("summaryInfo: who writes auto_context's summaries", () => {
  let stub: OpenAiStub;
  const saved = { url: process.env.MEMSCOPE_CHAT_BASE_URL, model: process.env.MEMSCOPE_CHAT_MODEL };
  beforeAll(async () => {
    stub = await startOpenAiStub({ chat: () => "model summary" });
  });
  afterAll(async () => {
    await stub?.stop();
    if (saved.url === undefined) delete process.env.MEMSCOPE_CHAT_BASE_URL;
    else process.env.MEMSCOPE_CHAT_BASE_URL = saved.url;
    if (saved.model === undefined) delete process.env.MEMSCOPE_CHAT_MODEL;
    else process.env.MEMSCOPE_CHAT_MODEL = saved.model;
  });
  const req = { event: "TOOL_INVOCATION_COMPRESS" as const, prompt: [u("x")], covered: { messages: 1, chars: 1 } };
  const memCache = (): SummaryCache & { keys: SummaryKey[] } => {
    const m = new Map<string, string>();
    const keys: SummaryKey[] = [];
    return {
      keys,
      async get(k) {
        return m.get(JSON.stringify(k));
      },
      async put(k, s) {
        keys.push(k);
        m.set(JSON.stringify(k), s);
      },
    };
  };

  it("no chat model configured: placeholders, no chat model named", async () => {
    delete process.env.MEMSCOPE_CHAT_BASE_URL;
    delete process.env.MEMSCOPE_CHAT_MODEL;
    const info = summaryInfo(null);
    expect(info).toMatchObject({ model: null, chatModel: null });
    expect(info.counts()).toEqual({ calls: 0, cached: 0 });
    expect(await info.summarize(req)).toBe(await placeholderSummarizer(req));
  });

  it("a chat model and summarizer 'placeholder': placeholders, the model named as configured", async () => {
    process.env.MEMSCOPE_CHAT_BASE_URL = stub.url;
    process.env.MEMSCOPE_CHAT_MODEL = "stub-chat";
    const info = summaryInfo("conv", "placeholder");
    expect(info).toMatchObject({ model: null, chatModel: "stub-chat" });
    expect(info.setCall).toBeUndefined();
    expect(await info.summarize(req)).toBe(await placeholderSummarizer(req));
  });

  it("a chat model and 'auto': the model writes, counted, cached under the conversation and step", async () => {
    process.env.MEMSCOPE_CHAT_BASE_URL = stub.url;
    process.env.MEMSCOPE_CHAT_MODEL = "stub-chat";
    stub.requests.length = 0;
    const cache = memCache();
    const info = summaryInfo("conv-1", "auto", cache);
    expect(info).toMatchObject({ model: "stub-chat", chatModel: "stub-chat" });
    info.setCall!(2);
    expect(await info.summarize(req)).toBe("model summary");
    expect(await info.summarize(req)).toBe("model summary");
    expect(info.counts()).toEqual({ calls: 1, cached: 1 });
    expect(stub.requests).toHaveLength(1);
    expect(cache.keys).toEqual([{ conversationId: "conv-1", step: 2, hash: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    // counts() is a snapshot, not the live object.
    const snap = info.counts();
    await info.summarize({ ...req, prompt: [u("y")] });
    expect(snap).toEqual({ calls: 1, cached: 1 });
    expect(info.counts()).toEqual({ calls: 2, cached: 1 });
  });
});

describe("message_window: exact outputs", () => {
  const defaults = { max_attached_message_count: 10, history_message_truncate_enable: false, history_message_truncate_length: 1000, include_tools: true };

  it("drops older messages with the reason naming the count, merged and sorted with tool exclusions", () => {
    const msgs = [u("q0"), call("c1"), tool("c1"), a("a0"), u("q1"), a("a1")];
    const out = messageWindowStrategy(msgs, { ...defaults, max_attached_message_count: 2, include_tools: false });
    expect(out).toEqual({
      messages: [msgs[4], msgs[5]],
      sourceIndex: [4, 5],
      dropped: [
        { index: 0, reason: "older than the newest 2 messages" },
        { index: 1, reason: "tool call without text excluded (include_tools: false)" },
        { index: 2, reason: "tool result excluded (include_tools: false)" },
        { index: 3, reason: "older than the newest 2 messages" },
      ],
      transformed: [],
    });
  });

  it("rejects a count that is not a positive integer", () => {
    expect(() => messageWindowStrategy([u("x")], { ...defaults, max_attached_message_count: 1.5 })).toThrow("max_attached_message_count must be > 0");
    expect(() => messageWindowStrategy([u("x")], { ...defaults, max_attached_message_count: -1 })).toThrow(RangeError);
    expect(messageWindowStrategy([u("x")], { ...defaults, max_attached_message_count: 1 }).messages).toEqual([u("x")]);
  });

  it("truncation: exact reason; a message at the length stays as it is; text parts cut one by one, other parts kept", () => {
    const parts: RoleMessage = {
      role: "user",
      content: [
        { type: "text", text: "abcdefgh" },
        { type: "image", transfer_method: "remote_url", url: "http://x/i.png" },
        { type: "text", text: "abcdefghijkl" },
        { type: "text", text: "ab" },
      ],
    };
    const msgs = [u("12345"), u("123456"), parts, { role: "user" as const, content: [{ type: "text" as const, text: "tiny" }] }];
    const out = messageWindowStrategy(msgs, { ...defaults, history_message_truncate_enable: true, history_message_truncate_length: 5 });
    expect(out.messages[0]).toBe(msgs[0]);
    expect(out.messages[1]).toEqual(u("12345"));
    expect(out.messages[2]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "abcde" },
        { type: "image", transfer_method: "remote_url", url: "http://x/i.png" },
        { type: "text", text: "abcde" },
        { type: "text", text: "ab" },
      ],
    });
    expect(out.messages[3]).toBe(msgs[3]);
    expect(out.transformed).toEqual([
      { index: 1, action: "truncated", reason: "6 characters cut to 5 (a copy; the stored message is unchanged)" },
      { index: 2, action: "truncated", reason: "12 characters cut to 5 (a copy; the stored message is unchanged)" },
    ]);
    // The longest text part is named whatever its place.
    const first: RoleMessage = { role: "user", content: [{ type: "text", text: "abcdefghijkl" }, { type: "text", text: "abcdefgh" }] };
    expect(messageWindowStrategy([first], { ...defaults, history_message_truncate_enable: true, history_message_truncate_length: 5 }).transformed[0].reason).toBe(
      "12 characters cut to 5 (a copy; the stored message is unchanged)",
    );
    expect(truncateChars("abcde", 5)).toBe("abcde");
    expect(truncateChars("abcdef", 5)).toBe("abcde");
  });

  it("the system message: inserted with its reason before an empty window too; transformed sorted by index", () => {
    const empty = messageWindowStrategy([], { ...defaults, system_message: "Be brief." });
    expect(empty).toEqual({
      messages: [{ role: "system", content: "Be brief." }],
      sourceIndex: [-1],
      dropped: [],
      transformed: [{ index: -1, action: "system_inserted", reason: "configured system message placed first" }],
    });
    const out = messageWindowStrategy([u("123456")], { ...defaults, system_message: "Be brief.", history_message_truncate_enable: true, history_message_truncate_length: 3 }, [u("tmp")]);
    expect(out.transformed.map((t) => [t.index, t.action])).toEqual([
      [-1, "system_inserted"],
      [-1, "temporary_appended"],
      [0, "truncated"],
    ]);
    expect(out.sourceIndex).toEqual([-1, 0, -1]);
    expect(messageWindowStrategy([u("x")], { ...defaults, system_message: "" }).messages).toEqual([u("x")]);
  });
});

describe("role message schema", () => {
  it("a tool message needs tool_call_id; other roles do not", () => {
    const r = ZRoleMessage.safeParse({ role: "tool", content: "x" });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => [i.path, i.message])).toEqual([[["tool_call_id"], "tool messages need tool_call_id"]]);
    expect(ZRoleMessage.safeParse({ role: "tool", content: "x", tool_call_id: "" }).success).toBe(false);
    expect(ZRoleMessage.safeParse({ role: "tool", content: "x", tool_call_id: "c1" }).success).toBe(true);
    expect(ZRoleMessage.safeParse({ role: "user", content: "x" }).success).toBe(true);
  });
});

describe("token_buffer: exact outputs", () => {
  const ctx = { encoding: "o200k_base" as const, contextWindow: 128_000 };
  // Every message is 5 tokens (3 + role 1 + one-token word); the list 3 more.
  const msgs = [sys("hi"), a("ok"), u("hi"), a("ok"), u("yes")];
  const run = (limit: number, m = msgs, include_tools = true) => tokenBufferStrategy(m, { max_token_limit: limit, include_tools }, ctx);

  it("a total equal to the limit fits", () => {
    expect(listTokens(msgs, "o200k_base")).toBe(28);
    expect(run(28)).toEqual({ messages: msgs, sourceIndex: [0, 1, 2, 3, 4], dropped: [], transformed: [] });
  });

  it("drops the oldest whole turn at a time (an assistant message before any user message is a turn of its own), never the leading system message", () => {
    const reason = (n: number) => `oldest turn dropped: history over max_token_limit ${n}`;
    expect(run(27)).toEqual({ messages: [msgs[0], msgs[2], msgs[3], msgs[4]], sourceIndex: [0, 2, 3, 4], dropped: [{ index: 1, reason: reason(27) }], transformed: [] });
    expect(run(22).dropped).toEqual([1, 2, 3].map((index) => ({ index, reason: reason(22) })));
    expect(run(13).messages).toEqual([msgs[0], msgs[4]]);
    expect(run(12).messages).toEqual([msgs[0]]);
    expect(run(0).messages).toEqual([msgs[0]]);
  });

  it("an empty history is empty; without tools the exclusions are reported", () => {
    expect(run(0, [])).toEqual({ messages: [], sourceIndex: [], dropped: [], transformed: [] });
    const withTools = [u("hi"), { role: "assistant" as const, content: "ok", tool_calls: [{ id: "c1", name: "s", arguments: "{}" }] }, tool("c1")];
    const out = run(1000, withTools, false);
    expect(out.messages).toEqual([u("hi"), a("ok")]);
    expect(out.dropped).toEqual([{ index: 2, reason: "tool result excluded (include_tools: false)" }]);
    expect(out.transformed).toEqual([{ index: 1, action: "tool_calls_removed", reason: "1 tool call(s) removed (include_tools: false)" }]);
  });
});

describe("without tools, the calls removed from a turn are reported by every strategy", () => {
  const msgs: RoleMessage[] = [
    u("q0"),
    { role: "assistant", content: "let me look", tool_calls: [{ id: "c1", name: "s", arguments: "{}" }] },
    tool("c1"),
    a("a0"),
    u("q1"),
    a("a1"),
  ];
  const removed = { index: 1, action: "tool_calls_removed", reason: "1 tool call(s) removed (include_tools: false)" };

  it("message_window", () => {
    const out = messageWindowStrategy(msgs, { max_attached_message_count: 10, history_message_truncate_enable: false, history_message_truncate_length: 10, include_tools: false });
    expect(out.transformed).toEqual([removed]);
  });

  it("summary_buffer, triggered", async () => {
    const out = await summaryBufferStrategy(msgs, { msg_threshold: 1, token_ratio: 0.9, last_keep: 10, offload_tokens: 2000, include_tools: false }, { encoding: "o200k_base", contextWindow: 128_000 }, null);
    expect(out.triggered).toBe(true);
    expect(out.transformed).toEqual([removed]);
  });

  it("token_buffer: drops from exclusion and from the budget come sorted by index", () => {
    const limit = listTokens([u("q1"), a("a1")], "o200k_base");
    const out = tokenBufferStrategy(msgs, { max_token_limit: limit, include_tools: false }, { encoding: "o200k_base", contextWindow: 128_000 });
    expect(out.dropped.map((d) => d.index)).toEqual([0, 1, 2, 3]);
    expect(out.transformed).toEqual([removed]);
  });
});
