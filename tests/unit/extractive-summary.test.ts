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

  it("scores a sentence by the document frequency of its content words over the square root of their count; ties go to the earlier one", () => {
    // alpha in 3 sentences, beta 2, gamma 2, delta 1, epsilon 1:
    // S0 (3 + 2)/√2 = 3.54, S1 (3 + 2)/√2 = 3.54, S2 2/√2 = 1.41, S3 7/√3 = 4.04
    const texts = ["alpha beta.", "alpha gamma.", "delta epsilon.", "alpha beta gamma."];
    expect(extractiveSummary(texts, 2)).toEqual(["alpha beta.", "alpha beta gamma."]);
    expect(extractiveSummary(texts, 3)).toEqual(["alpha beta.", "alpha gamma.", "alpha beta gamma."]);
    expect(extractiveSummary(texts, 1)).toEqual(["alpha beta gamma."]);
    expect(extractiveSummary(texts, 4)).toEqual(texts);
    expect(extractiveSummary([], 2)).toEqual([]);
  });

  it("stop words and words of two letters or fewer carry no weight; a word repeated in one sentence counts once for frequency", () => {
    // "the", "is", "of", "an" (stop words) and "ox" (two letters) never count; zeta occurs twice in S1 but in one sentence.
    const texts = ["The ox is of an age.", "zeta zeta theta.", "theta.", "Word."];
    // freq: age 1 (S0 has "age": 3 letters, not a stop word), zeta 1, theta 2, word 1.
    // S0 age 1/1 = 1; S1 (1 + 1 + 2)/√3 = 2.31; S2 2/1 = 2; S3 1/1 = 1
    expect(extractiveSummary(texts, 2)).toEqual(["zeta zeta theta.", "theta."]);
    expect(extractiveSummary(["The is of an.", "word word."], 1)).toEqual(["word word."]);
  });

  it("a sentence said again, in another case, is one sentence", () => {
    expect(extractiveSummary(["Alpha beta.", "alpha beta.", "ALPHA BETA."], 5)).toEqual(["Alpha beta."]);
  });

  it("non-ASCII text takes the Unicode path: accented words count", () => {
    // café in two sentences: "Café crème." (2 + 1)/√2 = 2.12; "Le café noir." (2 + 1)/√2 (noir) = 2.12; "Bonjour." 1
    expect(extractiveSummary(["Bonjour.", "Café crème.", "Le café noir."], 2)).toEqual(["Café crème.", "Le café noir."]);
  });
});
