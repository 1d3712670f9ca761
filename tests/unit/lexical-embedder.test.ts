import { describe, expect, it } from "vitest";
import { embedLexical, LEXICAL_DIMENSIONS, LEXICAL_MODEL, lexicalTokens } from "../../lib/embeddings/lexical-embedder";
import { lexicalProvider } from "../../lib/embeddings/embedding-provider";

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (a: number[]) => Math.sqrt(dot(a, a));

describe("lexical embedder", () => {
  it("is deterministic: same text, same vector (bit for bit), across calls and via the provider", async () => {
    const t = "Prefers dark roast coffee in the morning";
    const a = embedLexical(t);
    const b = embedLexical(t);
    expect(b).toEqual(a);
    expect(a).toHaveLength(LEXICAL_DIMENSIONS);
    expect(LEXICAL_DIMENSIONS).toBe(256);
    expect(lexicalProvider).toMatchObject({ kind: "lexical", model: LEXICAL_MODEL, dimensions: 256 });
    expect(LEXICAL_MODEL).toBe("lexical-hash-v1");
    const [viaProvider] = await lexicalProvider.embed([t]);
    expect(viaProvider).toEqual(a);
  });

  it("normalizes case, width and punctuation before hashing", () => {
    expect(lexicalTokens("Hello, WORLD! ｆｕｌｌ-width 42")).toEqual(["hello", "world", "full", "width", "42"]);
    expect(embedLexical("Dark roast, COFFEE!")).toEqual(embedLexical("dark roast coffee"));
  });

  it("returns unit vectors (L2 norm 1), and the zero vector for text without letters or digits", () => {
    for (const t of ["a", "Lives in Lisbon", "Knows how to tune PostgreSQL autovacuum and work_mem", "日本語のテキスト", "x".repeat(5000)]) {
      expect(norm(embedLexical(t))).toBeCloseTo(1, 12);
    }
    const empty = embedLexical("  ...!?  ");
    expect(empty.every((x) => x === 0)).toBe(true);
    expect(embedLexical("abc", 16)).toHaveLength(16);
    expect(norm(embedLexical("abc", 16))).toBeCloseTo(1, 12);
  });

  it("puts texts that share words closer than unrelated texts", () => {
    const base = embedLexical("prefers dark roast coffee without sugar");
    const similar = embedLexical("likes dark roast coffee with no sugar");
    const wordPieces = embedLexical("coffees roasted darker");
    const unrelated = embedLexical("the marathon training plan has a rest day on friday");
    expect(dot(base, base)).toBeCloseTo(1, 12);
    expect(dot(base, similar)).toBeGreaterThan(0.5);
    expect(dot(base, unrelated)).toBeLessThan(0.2);
    expect(dot(base, similar)).toBeGreaterThan(dot(base, unrelated) + 0.3);
    // Character trigrams: inflected forms still overlap; meaning alone does not.
    expect(dot(base, wordPieces)).toBeGreaterThan(dot(base, unrelated));
    expect(dot(embedLexical("car"), embedLexical("automobile"))).toBeLessThan(0.3);
  });

  it("word order matters only through bigrams", () => {
    const a = embedLexical("coffee dark roast");
    const b = embedLexical("dark roast coffee");
    expect(dot(a, b)).toBeGreaterThan(0.8);
    expect(dot(a, b)).toBeLessThan(1 - 1e-9);
  });
});
