import { describe, expect, it } from "vitest";
import { forgetTextCounts, projectTextCounter, textCountHash, textCountsSize } from "@/lib/strategies/text-counts";
import { countSpaced, countText, textsCountedHere } from "@/lib/tokens/count-tokens";

// The project's text counts keep texts as bytes in typed arrays, found by a 32-bit hash: a hit
// must still be the same text (whole comparison), at either width (one byte a character for an
// ASCII text, else UTF-16), past the arrays' growth and compaction.

const counted = (fn: () => unknown) => {
  const before = textsCountedHere();
  fn();
  return textsCountedHere() - before;
};

describe("the text counts' table", () => {
  it("keeps two texts filed under the same 32-bit hash apart, each with its own count", () => {
    forgetTextCounts();
    const project = "p-collide";
    // Texts of one length (so only their characters tell them apart) whose counts differ: letters,
    // spaces, digits and dots in every order; a birthday search finds two under one hash.
    const candidate = (i: number) => i.toString(7).padStart(10, "0").replace(/[0-6]/g, (d) => "ab 1.xZ"[Number(d)]);
    const seen = new Map<number, string>();
    let pair: [string, string] | null = null;
    for (let i = 0; i < 2_000_000 && !pair; i++) {
      const t = candidate(i);
      const h = textCountHash(project, t);
      const other = seen.get(h);
      if (other !== undefined && countText(other, "o200k_base").tokens !== countText(t, "o200k_base").tokens) pair = [other, t];
      else seen.set(h, t);
    }
    expect(pair).not.toBeNull();
    const [a, b] = pair!;
    expect(textCountHash(project, a)).toBe(textCountHash(project, b));
    const counter = projectTextCounter(project);
    expect(counter.count(a, "o200k_base")).toEqual(countText(a, "o200k_base"));
    // Same hash, another text: a miss, counted.
    let c: unknown;
    expect(counted(() => (c = counter.count(b, "o200k_base")))).toBe(1);
    expect(c).toEqual(countText(b, "o200k_base"));
    // A new counter (a new request): both found by their characters, neither counted again.
    const next = projectTextCounter(project);
    const [ca, cb] = [countText(a, "o200k_base"), countText(b, "o200k_base")];
    expect(counted(() => expect(next.count(a, "o200k_base")).toEqual(ca))).toBe(0);
    expect(counted(() => expect(next.count(b, "o200k_base")).toEqual(cb))).toBe(0);
    expect(textCountsSize().texts).toBe(2);
    forgetTextCounts();
  });

  it("finds texts of both widths, across projects, past the arrays' growth, with tiktoken's counts", () => {
    forgetTextCounts();
    // Pairs of one length whose characters' low bytes agree (é é / é Ā), prefixes, the empty text, emoji.
    const fixed = ["\u00e9\u00e9", "\u00e9\u0100", "A\u0000", "A", "Ab", "", "\u0141", "🙂 ok", "日本語のテキスト", "naïve café"];
    const texts = [...fixed, ...Array.from({ length: 3000 }, (_, i) => (i % 5 === 0 ? `第${i}回 — ${i}` : `message ${i}: ${"lorem ".repeat(i % 9)}é${i}`))];
    const pa = projectTextCounter("p-width-a");
    for (const t of texts) {
      expect(pa.spaced(t, "cl100k_base")).toEqual((({ alone, spaced }) => ({ alone, spaced }))(countSpaced(t, "cl100k_base")));
      pa.record!(t, "o200k_base", countText(t, "o200k_base"));
    }
    // Another project: nothing known there, though the texts are the same.
    const pb = projectTextCounter("p-width-b");
    expect(texts.some((t) => pb.known!(t, "o200k_base"))).toBe(false);
    // A new request of project a: every text found (no count made), each with its own counts.
    const again = projectTextCounter("p-width-a");
    const expected = texts.map((t) => [countText(t, "o200k_base"), countText(t, "cl100k_base")]);
    const n = counted(() => {
      texts.forEach((t, i) => {
        expect(again.known!(t, "o200k_base")).toBe(true);
        expect(again.count(t, "o200k_base")).toEqual(expected[i][0]);
        expect(again.count(t, "cl100k_base")).toEqual(expected[i][1]);
      });
    });
    expect(n).toBe(0);
    expect(textCountsSize().texts).toBe(texts.length);
    // Not kept: a text differing from a kept one in its last character only, or one character longer.
    expect(again.known!("\u00e9\u0101", "o200k_base")).toBe(false);
    expect(again.known!("Abc", "o200k_base")).toBe(false);
    // After forgetting, a counter made before knows nothing either.
    forgetTextCounts();
    expect(again.known!(texts[20], "o200k_base")).toBe(false);
    expect(textCountsSize()).toEqual({ texts: 0, chars: 0 });
  });
});
