import { describe, expect, it } from "vitest";
import { answerList, greedyClusters, localProposals } from "@/lib/memories/compress-memories";
import { cleanValue, extractByRules, thirdPerson } from "@/lib/memories/curation-rules";
import { joinDistinctSentences, mostCommon, splitSentences } from "@/lib/memories/curation-text";
import { embedLexical } from "@/lib/embeddings/lexical-embedder";

const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;

describe("local clustering", () => {
  it("groups vectors by cosine to the cluster's first item", () => {
    const v = [
      [1, 0, 0],
      [0.9, 0.1, 0],
      [0, 1, 0],
      [0.1, 0.95, 0],
      [0, 0, 1],
    ];
    expect(greedyClusters(v, 0.8)).toEqual([[0, 1], [2, 3], [4]]);
    expect(greedyClusters(v, 0.999)).toEqual([[0], [1], [2], [3], [4]]);
    expect(greedyClusters([null, [1, 0], null], 0.5)).toEqual([[0], [1], [2]]);
  });

  it("proposes one compressed memory per multi-member cluster, leaving loners alone", () => {
    const group = [
      "Likes dark roast coffee.",
      "Likes dark roast coffee in the morning.",
      "Has a cat named Miso.",
      "Has a cat named Miso. The cat is grey.",
      "Plays chess on Sundays.",
    ].map((content, i) => ({ id: id(i), content, importance_score: 0.1 * (i + 1) }));
    const proposals = localProposals("fact", group, group.map((g) => embedLexical(g.content)), 0.5);
    expect(proposals).toHaveLength(1);
    const [p] = proposals;
    expect(p.method).toBe("local-cluster");
    expect(p.source_ids).toEqual([id(0), id(1), id(2), id(3)]);
    expect(p.compressed.map((c) => c.source_ids)).toEqual([[id(0), id(1)], [id(2), id(3)]]);
    expect(p.compressed[1].content).toBe("Has a cat named Miso. The cat is grey.");
    expect(p.compressed[0].importance_score).toBeCloseTo(0.2);
  });

  it("falls back to one cluster for the whole group when nothing is similar (or no vectors)", () => {
    const group = ["Alpha.", "Beta.", "Gamma."].map((content, i) => ({ id: id(i), content, importance_score: 0.5 }));
    const [p] = localProposals("fact", group, [null, null, null], 0.5);
    expect(p.source_ids).toHaveLength(3);
    expect(p.compressed).toEqual([{ content: "Alpha. Beta. Gamma.", importance_score: 0.5, source_ids: [id(0), id(1), id(2)] }]);
  });

  it("never puts more than 3 compressed memories in one proposal", () => {
    const group = Array.from({ length: 8 }, (_, i) => ({ id: id(i), content: `c${Math.floor(i / 2)}`, importance_score: 0.5 }));
    const vectors = group.map((_, i) => [Math.floor(i / 2) === 0 ? 1 : 0, Math.floor(i / 2) === 1 ? 1 : 0, Math.floor(i / 2) === 2 ? 1 : 0, Math.floor(i / 2) === 3 ? 1 : 0]);
    const proposals = localProposals("pattern", group, vectors, 0.9);
    expect(proposals.map((p) => p.compressed.length)).toEqual([3, 1]);
    expect(proposals.flatMap((p) => p.source_ids)).toHaveLength(8);
  });

  it("reads a model's list answer bare or wrapped", () => {
    expect(answerList([1])).toEqual([1]);
    expect(answerList({ memories: [2] })).toEqual([2]);
    expect(() => answerList({ x: 1 })).toThrow();
  });
});

describe("curation text helpers", () => {
  it("joins distinct sentences, ignoring case and end punctuation", () => {
    expect(splitSentences("A b. C d!  E\nF")).toEqual(["A b.", "C d!", "E", "F"]);
    expect(joinDistinctSentences(["Likes tea. Lives in Oslo", "likes tea!", "Has a dog"])).toBe("Likes tea. Lives in Oslo. Has a dog.");
    expect(mostCommon(["fact", "skill", "skill", "fact"])).toBe("fact");
  });
  it("a sentence that says no more than a kept one is left out; one that says more takes its place; negations stay apart", () => {
    expect(joinDistinctSentences(["Prefers window seats on flights.", "Prefers a window seat on flights."])).toBe("Prefers window seats on flights.");
    expect(joinDistinctSentences(["Likes cats.", "Likes cats and dogs.", "Lives in Oslo."])).toBe("Likes cats and dogs. Lives in Oslo.");
    expect(joinDistinctSentences(["Likes tea", "Likes coffee", "Likes tea and coffee"])).toBe("Likes tea and coffee.");
    expect(joinDistinctSentences(["Eats meat.", "Does not eat meat."])).toBe("Eats meat. Does not eat meat.");
    expect(joinDistinctSentences(["Does not eat meat.", "Eats meat."])).toBe("Does not eat meat. Eats meat.");
  });
});

describe("rule-based extraction", () => {
  const contents = (t: string) => extractByRules(t).map((c) => `${c.memory_type}: ${c.content}`);

  it("finds plain first-person statements", () => {
    expect(contents("Hi, my name is Ana and I work at Acme Corp.")).toEqual(["fact: Name is Ana", "fact: Works at Acme Corp"]);
    expect(contents("I prefer dark mode in every editor.")).toEqual(["preference: Prefers dark mode in every editor"]);
    expect(contents("Please call me Annie.")).toEqual(["preference: Prefers to be called Annie"]);
    expect(contents("I don't eat meat, because of reasons.")).toEqual(["preference: Does not eat meat"]);
    expect(contents("I always write tests first")).toEqual(["pattern: Always writes tests first"]);
    expect(contents("I use Neovim with my own config")).toEqual(["preference: Uses Neovim with their own config"]);
    expect(contents("Every Monday I write the weekly report.")).toEqual(["pattern: Writes the weekly report every Monday"]);
    expect(contents("I'm allergic to peanuts.")).toEqual(["fact: Is allergic to peanuts"]);
    expect(contents("My timezone is CET.")).toEqual(["fact: Timezone is CET"]);
    expect(contents("I'm a senior backend engineer")).toEqual(["fact: Is a senior backend engineer"]);
  });

  it("skips questions, requests, conditionals and vague objects", () => {
    expect(contents("Do I prefer tabs?")).toEqual([]);
    expect(contents("Can you call me tomorrow")).toEqual([]);
    expect(contents("If I prefer tabs, what then.")).toEqual([]);
    expect(contents("I like that idea.")).toEqual([]);
    expect(contents("What's the weather today")).toEqual([]);
  });

  it("cleans values and conjugates", () => {
    expect(cleanValue("dark mode, but not always")).toBe("dark mode");
    expect(cleanValue("it")).toBeNull();
    expect(thirdPerson("go")).toBe("goes");
    expect(thirdPerson("try")).toBe("tries");
    expect(thirdPerson("play")).toBe("plays");
    expect(thirdPerson("check")).toBe("checks");
  });
});
