import { ChatMemoryBuffer, Memory } from "@llamaindex/core/memory";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "@/lib/errors/domain-errors";
import { JoinedTexts } from "@/lib/strategies/frameworks/joined-texts";
import { langchainTrimStrategy, type LangChainTrimOptions } from "@/lib/strategies/frameworks/langchain-trim";
import { llamaindexBufferStrategy, llamaindexMemoryStrategy } from "@/lib/strategies/frameworks/llamaindex-memory";
import type { RoleMessage } from "@/lib/strategies/schemas";
import { projectTextCounter, type TextCounter } from "@/lib/strategies/text-counts";
import { countTextTokens, textsCountedHere } from "@/lib/tokens/count-tokens";
import type { EncodingName } from "@/lib/tokens/registry";
import { content, history, lcKey, lcOptions, type LlamaMsg, llamaKey, runLangChain, text, toLangChain, toLlama } from "../helpers/framework-oracles";

// Every case is generated, run through the real npm package and through our strategy; the kept
// messages (and their contents, for LangChain's partial pieces) must be the same, and where the
// package throws or answers [undefined], ours must refuse with a 422 (ValidationError).

// ---------------------------------------------------------------------------------------------
// LangChain JS trimMessages

function runOurs(messages: RoleMessage[], o: LangChainTrimOptions, encoding: EncodingName, counter?: TextCounter): string[] | "throws" {
  try {
    return langchainTrimStrategy(messages, o, { encoding, counter }).messages.map((m) => lcKey(toLangChain(m)));
  } catch (e) {
    if (e instanceof ValidationError) return "throws";
    throw e;
  }
}

const lcCounter = projectTextCounter("unit-framework-windows-langchain");
describe("langchain_trim keeps exactly what @langchain/core trimMessages keeps", () => {
  it("on generated histories, every option and counter", async () => {
    let refused = 0;
    let undefinedAnswers = 0;
    await fc.assert(
      fc.asyncProperty(history, lcOptions, fc.constantFrom<EncodingName>("o200k_base", "cl100k_base"), async (messages, o, encoding) => {
        const theirs = await runLangChain(messages, o, encoding);
        if (theirs === "throws" || theirs.includes("undefined")) {
          refused++;
          if (theirs !== "throws") undefinedAnswers++;
          expect(runOurs(messages, o, encoding)).toBe("throws");
          expect(runOurs(messages, o, encoding, lcCounter)).toBe("throws");
        } else {
          expect(runOurs(messages, o, encoding)).toEqual(theirs);
          // With POST /window's per-project counter (its counts kept between calls), the same.
          expect(runOurs(messages, o, encoding, lcCounter)).toEqual(theirs);
        }
      }),
      { numRuns: 800, seed: 42 },
    );
    // The generator reaches the refusals, LangChain's [undefined] included.
    expect(refused).toBeGreaterThan(20);
    expect(undefinedAnswers).toBeGreaterThan(0);
  });

  it("reproduces the quirks the docs name", async () => {
    const msgs: RoleMessage[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "find it" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "lookup", arguments: "{}" }] },
      { role: "tool", tool_call_id: "c1", content: "result text" },
      { role: "assistant", content: "done" },
    ];
    // last keeps the tool result whose call was cut, and says so.
    const o: LangChainTrimOptions = { max_tokens: 2, strategy: "last", include_system: false, allow_partial: false, token_counter: "messages" };
    const r = langchainTrimStrategy(msgs, o, { encoding: "o200k_base" });
    expect(r.messages.map((m) => m.role)).toEqual(["tool", "assistant"]);
    expect(r.transformed).toContainEqual({ index: 3, action: "kept_unpaired", reason: "LangChain kept this tool result although its call was cut" });
    expect(await runLangChain(msgs, o, "o200k_base")).toEqual(r.messages.map((m) => lcKey(toLangChain(m))));
    // include_system with nothing that fits: LangChain answers [undefined]; we refuse with its name.
    const none = { ...o, max_tokens: 0, include_system: true, token_counter: "chars" as const };
    expect(await runLangChain(msgs, none, "o200k_base")).toEqual(["undefined"]);
    expect(() => langchainTrimStrategy(msgs, none, { encoding: "o200k_base" })).toThrow(/\[undefined\]/);
    // allow_partial on list content: each growing piece that fits is a message of its own.
    const list: RoleMessage[] = [{ role: "user", content: ["aa", "bb", "cc", "dd"].map((t) => ({ type: "text" as const, text: t })) }];
    const p = langchainTrimStrategy(list, { ...o, strategy: "first", max_tokens: 6, allow_partial: true, token_counter: "chars" }, { encoding: "o200k_base" });
    expect(p.messages.map((m) => (m.content as { text: string }[]).map((b) => b.text).join("|"))).toEqual(["aa", "aa|bb"]);
    expect(p.transformed[0]).toMatchObject({ index: 0, action: "split" });
  });
});

// ---------------------------------------------------------------------------------------------
const temporaryMessages = fc.array(
  content.map((c): RoleMessage => ({ role: "user", content: c })),
  { maxLength: 2 },
);

// The generated texts mostly end in white space, where LlamaIndex's joined string is scanned
// whole; without it each text is counted on its own (and kept in a project's counter). Both
// are checked against the package: the second run counts with a project's counter, from
// texts it has seen before.
const trimmed = (m: RoleMessage): RoleMessage => ({
  ...m,
  content: typeof m.content === "string" ? m.content.trimEnd() : m.content.map((p) => (p.type === "text" ? { ...p, text: p.text.trimEnd() } : p)),
});
const cached = projectTextCounter("unit-framework-windows");
const variants: { name: string; history: fc.Arbitrary<RoleMessage[]>; temporary: fc.Arbitrary<RoleMessage[]>; counter?: TextCounter }[] = [
  { name: "as generated", history, temporary: temporaryMessages },
  { name: "texts ending in a non-space, a project's counter", history: history.map((h) => h.map(trimmed)), temporary: temporaryMessages.map((t) => t.map(trimmed)), counter: cached },
];

describe.each(variants)("llamaindex_buffer keeps exactly what llamaindex's ChatMemoryBuffer.getMessages keeps: $name", ({ history, temporary: temporaryMessages, counter }) => {
  it("on generated histories, limits and call messages", async () => {
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        history,
        temporaryMessages,
        fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
        fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 60 })),
        fc.integer({ min: 1, max: 400 }),
        async (messages, temporary, tokenLimit, initial, contextWindow) => {
          const history = messages.map(toLlama);
          const transient = temporary.map(toLlama);
          const label = new Map<LlamaMsg, string>([...history.map((m, i) => [m, `h${i}`] as const), ...transient.map((m, i) => [m, `t${i}`] as const)]);
          let theirs: string[] | "throws";
          try {
            const buffer = new ChatMemoryBuffer({ tokenLimit, chatHistory: history as never, llm: { metadata: { contextWindow } } as never });
            const out = (await buffer.getMessages(transient.length ? (transient as never) : undefined, initial)) as LlamaMsg[];
            theirs = out.map((m) => label.get(m)!);
          } catch {
            theirs = "throws";
          }
          let ours: string[] | "throws";
          try {
            const r = llamaindexBufferStrategy(messages, { token_limit: tokenLimit, initial_token_count: initial, context_window: contextWindow }, { contextWindow: 1 }, temporary, counter);
            let t = 0;
            // Temporary messages come first and are -1 in sourceIndex.
            ours = r.sourceIndex.map((s) => (s >= 0 ? `h${s}` : `t${temporary.length - r.sourceIndex.filter((x) => x < 0).length + t++}`));
          } catch (e) {
            if (!(e instanceof ValidationError)) throw e;
            ours = "throws";
          }
          if (theirs === "throws") refused++;
          expect(ours).toEqual(theirs);
        },
      ),
      { numRuns: 800, seed: 7 },
    );
    expect(refused).toBeGreaterThan(5);
  });
});

// With per-text counts, ChatMemoryBuffer's windows are counted newest first and only until the
// newer texts alone are over the limit. Every limit from 0 to the whole list's count (each
// window's count is then some limit exactly, where stopping one text early would show), against
// the package; and a small limit over a long thread counts only the newest texts.
describe("llamaindex_buffer counts only the newest texts a limit reaches", () => {
  const joinable = fc.array(
    fc.record({ role: fc.constantFrom<"user" | "assistant">("user", "assistant"), content: text.map((t) => `${t.replace("<|endoftext|>", "").trimEnd()}.`) }),
    { minLength: 1, maxLength: 8 },
  );
  it("keeps what ChatMemoryBuffer keeps at every limit", async () => {
    const counter = projectTextCounter("unit-framework-windows-limits");
    await fc.assert(
      fc.asyncProperty(joinable, fc.constantFrom(0, 3), async (messages, initial) => {
        const history = messages.map(toLlama);
        const label = new Map<LlamaMsg, string>(history.map((m, i) => [m, `h${i}`] as const));
        const whole = countTextTokens(messages.map((m) => m.content).join(" "), "cl100k_base") + initial;
        for (let tokenLimit = initial; tokenLimit <= whole + 1; tokenLimit++) {
          const buffer = new ChatMemoryBuffer({ tokenLimit, chatHistory: history as never, llm: { metadata: { contextWindow: 1 } } as never });
          const theirs = ((await buffer.getMessages(undefined, initial)) as LlamaMsg[]).map((m) => label.get(m)!);
          const ours = llamaindexBufferStrategy(messages, { token_limit: tokenLimit, initial_token_count: initial }, { contextWindow: 1 }, [], counter);
          expect(ours.sourceIndex.map((i) => `h${i}`)).toEqual(theirs);
        }
      }),
      { numRuns: 30, seed: 11 },
    );
  });

  it("counts a few texts, not the thread, under a small limit", () => {
    const thread: RoleMessage[] = Array.from({ length: 1000 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: the weather in Lisbon is fine today.` }));
    const before = textsCountedHere();
    const r = llamaindexBufferStrategy(thread, { token_limit: 200, initial_token_count: 0 }, { contextWindow: 1 }, [], projectTextCounter("unit-framework-windows-small"));
    const counted = textsCountedHere() - before;
    expect(r.messages.length).toBeGreaterThan(5);
    expect(counted).toBeLessThanOrEqual(r.messages.length + 2);
    // The same window as one count of each joined suffix would give.
    const joined = new JoinedTexts(thread.map((m) => m.content as string), "cl100k_base");
    const start = r.sourceIndex[0];
    expect(joined.suffix(start)).toBeLessThanOrEqual(200);
    expect(joined.suffix(start - 1)).toBeGreaterThan(200);
  });
});

describe.each(variants)("llamaindex_memory keeps exactly what llamaindex's Memory.getLLM keeps: $name", ({ history, temporary: temporaryMessages, counter }) => {
  it("on generated histories, limits, context windows and call messages", async () => {
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        history,
        temporaryMessages,
        fc.integer({ min: 0, max: 400 }),
        fc.constantFrom(0, 0.3, 0.7, 1),
        fc.option(fc.integer({ min: 1, max: 500 }), { nil: null }),
        async (messages, temporary, tokenLimit, ratio, contextWindow) => {
          let theirs: string[] | "throws";
          try {
            const memory = new Memory([], { tokenLimit, shortTermTokenLimitRatio: ratio });
            for (const m of messages) await memory.add(toLlama(m) as never);
            const llm = { metadata: contextWindow ? { contextWindow } : {} };
            const out = (await memory.getLLM(llm as never, temporary.length ? (temporary.map(toLlama) as never) : undefined)) as LlamaMsg[];
            theirs = out.map(llamaKey);
          } catch {
            theirs = "throws";
          }
          let ours: string[] | "throws";
          try {
            const r = llamaindexMemoryStrategy(messages, { token_limit: tokenLimit, short_term_token_limit_ratio: ratio, context_window: contextWindow }, temporary, counter);
            ours = r.messages.map((m) => llamaKey(toLlama(m)));
          } catch (e) {
            if (!(e instanceof ValidationError)) throw e;
            ours = "throws";
          }
          if (theirs === "throws") refused++;
          expect(ours).toEqual(theirs);
        },
      ),
      { numRuns: 800, seed: 11 },
    );
    expect(refused).toBeGreaterThan(5);
  });
});

describe("a text counter's counts are tiktoken's", () => {
  it("of a text alone and after a space, cached or not", () => {
    fc.assert(
      fc.property(text, fc.constantFrom<EncodingName>("o200k_base", "cl100k_base"), (t, encoding) => {
        for (const counter of [cached, cached]) {
          expect(counter.spaced(t, encoding)).toEqual({ alone: countTextTokens(t, encoding), spaced: countTextTokens(` ${t}`, encoding) });
          expect(counter.count(t, encoding).tokens).toBe(countTextTokens(t, encoding));
        }
      }),
      { numRuns: 400, seed: 3 },
    );
  });
});

describe("JoinedTexts counts every prefix and suffix as one count of the joined string", () => {
  it("matches countTextTokens of the joined texts", () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 12 }), fc.constantFrom<EncodingName>("o200k_base", "cl100k_base"), (texts, encoding) => {
        const j = new JoinedTexts(texts, encoding);
        for (let k = 0; k <= texts.length; k++) {
          expect(j.prefix(k)).toBe(countTextTokens(texts.slice(0, k).join(" "), encoding));
          expect(j.suffix(k)).toBe(texts.length - k ? countTextTokens(texts.slice(k).join(" "), encoding) : 0);
        }
      }),
      { numRuns: 400, seed: 5 },
    );
  });
});
