import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyStrategy } from "@/lib/strategies/apply-strategy";
import { listTokens, primeContentTokens, primeLongPiece } from "@/lib/strategies/message-tokens";
import { ZStrategy, type RoleMessage } from "@/lib/strategies/schemas";
import { forgetTextCounts, projectTextCounter, TEXT_COUNTS_MAX_CHARS, textCountsSize } from "@/lib/strategies/text-counts";
import { countSpaced, countText, countTextTokens, textsCountedHere } from "@/lib/tokens/count-tokens";

// The text counts POST /window keeps between requests: bounded by the texts' length (the
// oldest go first), dropped whole by an erasure; a count is tiktoken's either way.

describe("a project's text counter", () => {
  it("stays within its bound, forgetting the oldest texts first, and counts them again exactly", () => {
    forgetTextCounts();
    const counter = projectTextCounter("p1");
    const size = 1 << 20;
    const texts = Array.from({ length: Math.ceil(TEXT_COUNTS_MAX_CHARS / size) + 2 }, (_, i) => `${i} ${"ab ".repeat(size / 3)}`);
    for (const t of texts) expect(counter.count(t, "o200k_base")).toEqual(countText(t, "o200k_base"));
    const held = textCountsSize();
    expect(held.chars).toBeLessThanOrEqual(TEXT_COUNTS_MAX_CHARS);
    expect(held.texts).toBeLessThan(texts.length);
    expect(held.texts).toBeGreaterThan(texts.length - 4);
    // The first text is gone: counting it again adds it back, with the same answer.
    expect(counter.count(texts[0], "o200k_base")).toEqual(countText(texts[0], "o200k_base"));
    expect(textCountsSize().chars).toBeLessThanOrEqual(TEXT_COUNTS_MAX_CHARS);
    forgetTextCounts();
    expect(textCountsSize()).toEqual({ texts: 0, chars: 0 });
  });

  it("forgets across projects oldest first, whichever project added a text", () => {
    forgetTextCounts();
    const a = projectTextCounter("pa");
    const b = projectTextCounter("pb");
    const size = 1 << 20;
    const text = (i: number) => `${i} ${"ab ".repeat(size / 3)}`;
    const perBound = Math.floor(TEXT_COUNTS_MAX_CHARS / (text(0).length + 32));
    // The same text in two projects is two entries: a's count is never b's hit.
    a.count(text(0), "o200k_base");
    b.count(text(0), "o200k_base");
    expect(textCountsSize().texts).toBe(2);
    for (let i = 1; i < perBound; i++) b.count(text(i), "o200k_base");
    // Full: one more text forgets the oldest entry (a's), then b's copy of text 0.
    b.count(text(perBound), "o200k_base");
    expect(textCountsSize().texts).toBe(perBound);
    b.count(text(perBound + 1), "o200k_base");
    expect(textCountsSize().texts).toBe(perBound);
    expect(textCountsSize().chars).toBeLessThanOrEqual(TEXT_COUNTS_MAX_CHARS);
    // Whether a count is a hit: a miss counts the text (and adds one to textsCountedHere).
    const counted = (fn: () => unknown) => {
      const before = textsCountedHere();
      fn();
      return textsCountedHere() - before;
    };
    expect(counted(() => b.count(text(perBound + 1), "o200k_base"))).toBe(0);
    expect(counted(() => b.count(text(2), "o200k_base"))).toBe(0);
    // a's text 0 was the oldest: gone, counted again as a new entry, so the oldest left (b's text 1) goes.
    expect(counted(() => a.count(text(0), "o200k_base"))).toBe(1);
    expect(textCountsSize().texts).toBe(perBound);
    expect(counted(() => b.count(text(1), "o200k_base"))).toBe(1);
    forgetTextCounts();
  });

  it("counts a text once per encoding: after its spaced count, its own count is a lookup with the same answer", () => {
    forgetTextCounts();
    const counter = projectTextCounter("p-once");
    const counted = (fn: () => unknown) => {
      const before = textsCountedHere();
      fn();
      return textsCountedHere() - before;
    };
    // An ordinary text, and one with a piece long enough to be counted in segments (approximate).
    for (const t of ["LlamaIndex counts this text once.", `a ${"x".repeat(400)} b`]) {
      for (const encoding of ["cl100k_base", "o200k_base"] as const) {
        expect(counted(() => counter.spaced(t, encoding))).toBe(1);
        let c: unknown;
        expect(counted(() => (c = counter.count(t, encoding)))).toBe(0);
        expect(c).toEqual(countText(t, encoding));
      }
    }
    forgetTextCounts();
  });
});

// POST /window's strategies with a project's counter, on texts it has never seen: each kept
// text is counted once per encoding that needs it (the one that decides, the model's for
// total_tokens), and messages whose counts are known (stored turns) are not counted again.
describe("applyStrategy with a project's counter", () => {
  let mark = 0;
  const thread = (n: number): RoleMessage[] =>
    Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `[${++mark}] message ${i}: the weather in Lisbon is fine today.` }));
  const counted = async (fn: () => Promise<unknown>) => {
    const before = textsCountedHere();
    await fn();
    return textsCountedHere() - before;
  };

  it("counts a kept text once in the encoding that decides, and once more only for another model encoding", async () => {
    const counter = projectTextCounter("p-apply");
    const strategy = ZStrategy.parse({ type: "llamaindex_buffer" });
    // LlamaIndex decides in cl100k; gpt-4's total_tokens is cl100k too: one count per text.
    // (A first call per model also counts the roles' overheads, once per process.)
    let r = await applyStrategy(thread(40), strategy, { model: "gpt-4", textCounts: counter });
    await applyStrategy(thread(2), strategy, { model: "gpt-4o", textCounts: counter });
    expect(r.messages).toHaveLength(40);
    expect(await counted(() => applyStrategy(thread(40), strategy, { model: "gpt-4", textCounts: counter }))).toBe(40);
    // gpt-4o's total_tokens is o200k: a second count of each kept text, in that encoding only.
    expect(await counted(() => applyStrategy(thread(40), strategy, { model: "gpt-4o", textCounts: counter }))).toBe(80);
    // LangChain's model counter decides in the model's encoding: the texts it reached, once.
    const lc = ZStrategy.parse({ type: "langchain_trim", max_tokens: 60, strategy: "last", token_counter: "model" });
    const b = thread(40);
    const n = await counted(async () => {
      r = await applyStrategy(b, lc, { model: "gpt-4o", textCounts: counter });
    });
    expect(r.messages.length).toBeGreaterThan(1);
    expect(n).toBe(r.messages.length + 1);
    expect(r.total_tokens).toBe(listTokens(structuredClone(r.messages), "o200k_base"));
  });

  it("takes a stored turn's known counts as they are", async () => {
    const counter = projectTextCounter("p-apply-stored");
    const stored = thread(20);
    for (const m of stored) {
      primeContentTokens(m, "o200k_base", countTextTokens(m.content as string, "o200k_base"));
      primeLongPiece(m, "o200k_base", false);
    }
    let r: Awaited<ReturnType<typeof applyStrategy>> | undefined;
    const strategy = ZStrategy.parse({ type: "mastra_last_messages", last_messages: 10 });
    expect(await counted(async () => (r = await applyStrategy(stored, strategy, { model: "gpt-4o", textCounts: counter })))).toBe(0);
    expect(r!.total_tokens).toBe(listTokens(structuredClone(r!.messages), "o200k_base"));
  });
});

// A text alone and after a space from one pass in step (LlamaIndex's per-text counts): the
// pieces that decide where the two scans meet again are at the text's start, so texts start
// with every kind of piece: white space runs and newlines, Unicode letters and digits,
// contractions, symbols, and pieces long enough to be counted in segments.
const START = ["", " ", "  ", "\n", " \n", "\t", "\u00A0", "\u3000 ", "'s", "'ll", "'", "ſ", "42", "1234", "é", "日本", "🙂", "—", "...", "//", "\r\n", "A", "ABc", "x".repeat(300), " ".repeat(70), "-".repeat(300)];
const startText = fc
  .tuple(fc.constantFrom(...START), fc.constantFrom(...START), fc.string({ unit: "grapheme", maxLength: 30 }), fc.string({ maxLength: 20 }))
  .map(([a, b, c, d]) => a + b + c + d);

describe("countSpaced", () => {
  it("is tiktoken's count of the text and of a space and the text, in both encodings, and says when the text's own count is approximate", () => {
    fc.assert(
      fc.property(startText, fc.constantFrom("o200k_base" as const, "cl100k_base" as const), (t, encoding) => {
        const alone = countText(t, encoding);
        expect(countSpaced(t, encoding)).toEqual({ alone: alone.tokens, spaced: countTextTokens(` ${t}`, encoding), approximate: alone.approximate });
      }),
      { numRuns: 600, seed: 42 },
    );
  });
});
