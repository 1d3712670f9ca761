import { describe, expect, it } from "vitest";
import { forgetTextCounts, projectTextCounter, TEXT_COUNTS_MAX_CHARS, textCountsSize } from "@/lib/strategies/text-counts";
import { countText } from "@/lib/tokens/count-tokens";

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
});
