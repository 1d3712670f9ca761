import { describe, expect, it } from "vitest";
import { extractiveSummary, splitSentences } from "@/lib/strategies/extractive-summary";

describe("extractive summary", () => {
  it("splits after . ! ? (ASCII and full-width) followed by whitespace, and at newlines", () => {
    expect(splitSentences("A b. C d!  E\nF")).toEqual(["A b.", "C d!", "E", "F"]);
    expect(splitSentences("Version 2.0 ships. Price $4.99 today")).toEqual(["Version 2.0 ships.", "Price $4.99 today"]);
    expect(splitSentences("Café au lait。 Next one！ last\r\n\n  ")).toEqual(["Café au lait。", "Next one！", "last"]);
    expect(splitSentences("  \n\n ")).toEqual([]);
  });

  it("keeps the highest-scoring sentences in their original order", () => {
    const texts = ["Paris trip planning starts.", "Weather is mild.", "Paris museums on the trip.", "Random aside here.", "Trip budget for Paris hotels."];
    // museums scores 7/sqrt(3); planning and budget tie at 8/2 and the earlier one wins
    expect(extractiveSummary(texts, 2)).toEqual(["Paris trip planning starts.", "Paris museums on the trip."]);
    expect(extractiveSummary(texts.slice(0, 2), 5)).toEqual(["Paris trip planning starts.", "Weather is mild."]);
  });

  it("summarizes a repeated sentence once", () => {
    const texts = Array.from({ length: 6 }, (_, i) => `Noted, the trip budget is saved. Day ${i} plan: museums in Paris.`);
    const summary = extractiveSummary(texts, 3);
    expect(summary).toHaveLength(3);
    expect(new Set(summary.map((x) => x.toLowerCase())).size).toBe(3);
  });
});
