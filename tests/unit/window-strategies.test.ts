import { describe, expect, it } from "vitest";
import { applyStrategy } from "@/lib/strategies/apply-strategy";
import { summaryBufferStrategy } from "@/lib/strategies/summary-buffer-strategy";
import { extractiveSummary } from "@/lib/strategies/extractive-summary";
import { listTokens, roleMessageTokens } from "@/lib/strategies/message-tokens";
import { MemoryPrompt, messageWindowStrategy, truncateChars } from "@/lib/strategies/message-window-strategy";
import { ZStrategy, ZWindowInput, type RoleMessage } from "@/lib/strategies/schemas";
import { tokenBufferStrategy } from "@/lib/strategies/token-buffer-strategy";
import { formatMemoryBlock, formatUserMemory } from "@/lib/context/format-memories";

const u = (content: string): RoleMessage => ({ role: "user", content });
const a = (content: string): RoleMessage => ({ role: "assistant", content });
const conversation = (turns: number) => Array.from({ length: turns }, (_, i) => [u(`question ${i}`), a(`answer ${i}`)]).flat();
const ctx = { encoding: "o200k_base" as const, contextWindow: 128_000 };

describe("message_window (Agents-Flex MemoryPrompt)", () => {
  const defaults = { max_attached_message_count: 10, history_message_truncate_enable: false, history_message_truncate_length: 1000, include_tools: true };

  it("keeps the newest N messages and reports the rest as dropped", () => {
    const msgs = conversation(8); // 16 messages
    const out = messageWindowStrategy(msgs, { ...defaults, max_attached_message_count: 5 });
    expect(out.messages).toEqual(msgs.slice(11));
    expect(out.dropped.map((d) => d.index)).toEqual([...Array(11).keys()]);
    expect(out.dropped[0].reason).toContain("newest 5");
    expect(out.sourceIndex).toEqual([11, 12, 13, 14, 15]);
  });

  it("rejects a count of 0 (the API answers 422 naming the field)", () => {
    expect(() => messageWindowStrategy(conversation(1), { ...defaults, max_attached_message_count: 0 })).toThrow(RangeError);
    const r = ZStrategy.safeParse({ type: "message_window", max_attached_message_count: 0 });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0].path).toEqual(["max_attached_message_count"]);
    const unknown = ZWindowInput.safeParse({ messages: [], strategy: { type: "sliding" } });
    expect(unknown.error!.issues[0].path).toEqual(["strategy", "type"]);
  });

  it("truncates copies, never the stored messages, on whole characters", () => {
    const long = "😀".repeat(10) + "abc";
    const msgs = [u(long), a("short")];
    const out = messageWindowStrategy(msgs, { ...defaults, history_message_truncate_enable: true, history_message_truncate_length: 5 });
    expect(out.messages[0].content).toBe("😀".repeat(5));
    expect(msgs[0].content).toBe(long); // the input is untouched
    expect(out.transformed).toEqual([{ index: 0, action: "truncated", reason: expect.stringContaining("13 characters cut to 5") }]);
    expect(truncateChars("a😀b", 2)).toBe("a😀");
    expect(truncateChars("abc", 10)).toBe("abc");
  });

  it("accepts truncate length 0 (valid in Agents-Flex): every history text becomes empty", () => {
    expect(ZStrategy.safeParse({ type: "message_window", history_message_truncate_enable: true, history_message_truncate_length: 0 }).success).toBe(true);
    const msgs = [u("question"), a("answer")];
    const out = messageWindowStrategy(msgs, { ...defaults, history_message_truncate_enable: true, history_message_truncate_length: 0 });
    expect(out.messages).toEqual([u(""), a("")]);
    expect(msgs[0].content).toBe("question");
  });

  it("puts the configured system message first unless the window already starts with one", () => {
    const out = messageWindowStrategy(conversation(2), { ...defaults, system_message: "Be brief." });
    expect(out.messages[0]).toEqual({ role: "system", content: "Be brief." });
    expect(out.transformed[0]).toMatchObject({ index: -1, action: "system_inserted" });
    const withSystem = [{ role: "system" as const, content: "Own system" }, ...conversation(2)];
    const kept = messageWindowStrategy(withSystem, { ...defaults, system_message: "Be brief." });
    expect(kept.messages[0]).toEqual({ role: "system", content: "Own system" });
    expect(kept.messages.filter((m) => m.role === "system")).toHaveLength(1);
  });

  it("appends temporary messages last, never truncated; MemoryPrompt hands them out once", () => {
    const tool: RoleMessage = { role: "tool", tool_call_id: "call_1", content: "x".repeat(50) };
    const out = messageWindowStrategy(conversation(3), { ...defaults, max_attached_message_count: 2, history_message_truncate_enable: true, history_message_truncate_length: 3 }, [tool]);
    expect(out.messages.at(-1)).toEqual(tool);
    expect(out.transformed.filter((t) => t.action === "temporary_appended")).toHaveLength(1);

    const prompt = new MemoryPrompt({ ...defaults, max_attached_message_count: 4 });
    prompt.addMessage(u("hi"));
    prompt.addMessage(a("hello"));
    prompt.addMessageTemporary(tool);
    expect(prompt.getMessages()).toEqual([u("hi"), a("hello"), tool]);
    expect(prompt.getMessages()).toEqual([u("hi"), a("hello")]);
    expect(prompt.storedMessages()).toHaveLength(2);
  });

  it("can leave tool calls and results out", () => {
    const msgs: RoleMessage[] = [
      u("weather in Lisbon?"),
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "weather", arguments: '{"city":"Lisbon"}' }] },
      { role: "tool", tool_call_id: "c1", content: '{"temp":21}' },
      a("21°C and sunny."),
    ];
    const out = messageWindowStrategy(msgs, { ...defaults, include_tools: false });
    expect(out.messages).toEqual([msgs[0], msgs[3]]);
    expect(out.dropped.map((d) => d.index)).toEqual([1, 2]);
  });
});

describe("token_buffer over role messages", () => {
  it("keeps leading system messages and drops the oldest whole turns; equal to the limit fits", () => {
    const msgs = [{ role: "system" as const, content: "You are helpful." }, ...conversation(4)];
    const full = listTokens(msgs, "o200k_base");
    expect(tokenBufferStrategy(msgs, { max_token_limit: full, include_tools: true }, ctx).dropped).toEqual([]);
    const out = tokenBufferStrategy(msgs, { max_token_limit: full - 1, include_tools: true }, ctx);
    expect(out.dropped.map((d) => d.index)).toEqual([1, 2]);
    expect(out.messages[0].role).toBe("system");
    expect(listTokens(out.messages, "o200k_base")).toBeLessThanOrEqual(full - 1);
  });

  it("a turn carries its tool calls and results, and they count", () => {
    const call: RoleMessage = { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "search", arguments: '{"q":"fado tonight"}' }] };
    expect(roleMessageTokens(call, "o200k_base")).toBeGreaterThan(roleMessageTokens(a(""), "o200k_base"));
    const msgs = [u("old"), a("old answer"), u("find fado"), call, { role: "tool" as const, tool_call_id: "c1", content: "Clube de Fado 21:00" }, a("Clube de Fado at 21:00.")];
    const keepLast = listTokens(msgs.slice(2), "o200k_base");
    const out = tokenBufferStrategy(msgs, { max_token_limit: keepLast, include_tools: true }, ctx);
    expect(out.messages).toEqual(msgs.slice(2));
  });
});

describe("summary_buffer (Memscope's own)", () => {
  const opts = { msg_threshold: 30, token_ratio: 0.3, last_keep: 10, offload_tokens: 2000, include_tools: true };

  it("does nothing under both thresholds", async () => {
    const msgs = conversation(10); // 20 messages
    const out = await summaryBufferStrategy(msgs, opts, ctx, null);
    expect(out.triggered).toBe(false);
    expect(out.messages).toEqual(msgs);
  });

  it("triggers on message count: keeps the last N as they are, summarizes the rest (extractive, labelled)", async () => {
    const msgs = conversation(20); // 40 messages > 30
    const out = await summaryBufferStrategy(msgs, opts, ctx, null);
    expect(out.triggered).toBe(true);
    expect(out.messages.slice(-10)).toEqual(msgs.slice(-10));
    expect(out.messages).toHaveLength(11);
    expect(out.messages[0].role).toBe("system");
    expect(out.messages[0].content).toMatch(/^Extractive summary of the earlier conversation/);
    expect(out.transformed.filter((t) => t.action === "summarized")).toHaveLength(30);
  });

  it("triggers on tokens against the context window, and merging alone can be enough", async () => {
    // 12 messages, all user, in a tiny window: over the token ratio, under the count.
    // 315 tokens against 300 (0.3 × 1000); merged, 10 messages' overheads go and it fits.
    const msgs = Array.from({ length: 12 }, (_, i) => u(`note ${i}: ${"word ".repeat(17)}`));
    const small = { encoding: "o200k_base" as const, contextWindow: 1000 };
    const out = await summaryBufferStrategy(msgs, { ...opts, last_keep: 2 }, small, null);
    expect(out.triggered).toBe(true);
    const merged = out.transformed.find((t) => t.action === "merged");
    expect(merged).toMatchObject({ index: 0 });
    expect(merged!.reason).toContain("10 adjacent user messages");
    // Merging was enough: nothing summarized, the ten notes are in the one merged message.
    expect(out.transformed.filter((t) => t.action === "summarized")).toEqual([]);
    expect(out.messages).toHaveLength(3);
    expect(out.messages[0]).toEqual(u(msgs.slice(0, 10).map((m) => m.content).join("\n\n")));
    expect(out.messages.slice(1)).toEqual(msgs.slice(10));
  });

  it("never separates a tool result from its call: the kept tail starts at the call", async () => {
    const call: RoleMessage = { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "search", arguments: "{}" }] };
    const msgs = [...conversation(16), u("find fado"), call, { role: "tool" as const, tool_call_id: "c1", content: "Clube de Fado 21:00" }, a("Clube de Fado at 21:00.")];
    // last_keep 2 would cut between the call and its result.
    const out = await summaryBufferStrategy(msgs, { ...opts, last_keep: 2 }, ctx, null);
    expect(out.triggered).toBe(true);
    expect(out.messages.slice(1)).toEqual(msgs.slice(-3));
    expect(out.messages.slice(1).map((m) => m.role)).toEqual(["assistant", "tool", "assistant"]);
  });

  it("offloads large contents to references", async () => {
    const big = u("lorem ipsum dolor ".repeat(800));
    const msgs = [...conversation(16), big];
    const out = await summaryBufferStrategy(msgs, { ...opts, offload_tokens: 500 }, ctx, null);
    const off = out.transformed.find((t) => t.action === "offloaded")!;
    expect(off.index).toBe(32);
    expect(out.offloads![0]).toMatchObject({ ref: off.ref, content: big.content });
    expect(out.messages.at(-1)!.content).toContain(`ref ${off.ref}`);
  });

  it("extractive summary keeps the most representative sentences in order", () => {
    const texts = ["The budget is 120 euros a day. Weather was nice.", "The budget covers trams. Random aside here.", "Budget euros again for the budget."];
    const s = extractiveSummary(texts, 2);
    expect(s).toHaveLength(2);
    expect(s.every((x) => /budget/i.test(x))).toBe(true);
    // In the order they appear in the history, whatever their scores.
    const joined = texts.join(" ");
    const at = s.map((x) => joined.indexOf(x));
    expect(at.every((p) => p >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((x, y) => x - y));
    expect(at[0]).not.toBe(at[1]);
  });
});

describe("applyStrategy", () => {
  it("reports total tokens of the final list, the model's encoding and context window", async () => {
    const r = await applyStrategy(conversation(3), { type: "token_buffer", max_token_limit: 10_000, include_tools: true }, { model: "gpt-4" });
    expect(r).toMatchObject({ model: "gpt-4", encoding: "cl100k_base", context_window: 8192 });
    expect(r.total_tokens).toBe(listTokens(conversation(3), "cl100k_base"));
    const t = await applyStrategy(conversation(1), { type: "token_buffer", max_token_limit: 10_000, include_tools: true }, { temporary: [u("tmp")] });
    expect(t.messages.at(-1)).toEqual(u("tmp"));
  });
});

describe("memory formatting (design doc 4.2)", () => {
  const mems = [
    { memory_type: "fact" as const, content: "Lives in Berlin" },
    { memory_type: "preference" as const, content: "No shellfish" },
    { memory_type: "skill" as const, content: "Group sights by area" },
  ];
  it("# USER MEMORY with a section per type, in the doc's order", () => {
    expect(formatUserMemory(mems)).toBe(
      "# USER MEMORY\n\n## User Preferences\n- No shellfish\n\n## Known Facts\n- Lives in Berlin\n\n## Proven Skills\n- Group sights by area",
    );
    expect(formatUserMemory([])).toBe("");
  });
  it("or a <long_term_memory> block", () => {
    expect(formatMemoryBlock(mems)).toBe("<long_term_memory>\n- [fact] Lives in Berlin\n- [preference] No shellfish\n- [skill] Group sights by area\n</long_term_memory>");
  });
});
