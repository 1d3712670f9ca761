import { describe, expect, it } from "vitest";
import { configChangeText, configValueText } from "@/client/ui/eval-config";
import { configChanges } from "@/lib/evals/compare";

// The compare page's configuration warning in plain words (issue 40 item 6): the API's JSON
// values (weights, memory types) read as the replay's variant labels do.

describe("eval configuration changes in plain words", () => {
  const setup = (config: Record<string, unknown>) => ({ config: { k: 5, status: "active", ...config } as never, embedding_model: "lexical-hash-v1" });

  it("names each weight with its value, in the variant labels' order, without JSON", () => {
    const [w] = configChanges(setup({}), setup({ weights: { importance: 0.7, similarity: 0.1 } }));
    expect(w.field).toBe("weights");
    const text = configChangeText(w);
    expect(text).toBe("weights: similarity 0.6, recency 0.2, importance 0.2 in the base run, similarity 0.1, recency 0.2, importance 0.7 in this one");
    expect(text).not.toMatch(/[{}"[\]]/);
  });

  it("lists memory types as words, says unset for a missing value, and names fields in words", () => {
    const changes = configChanges(setup({ memory_types: ["preference", "fact"] }), setup({ min_score: 0.3 }));
    expect(changes.map(configChangeText)).toEqual([
      "min score: unset in the base run, 0.3 in this one",
      "memory types: fact, preference in the base run, unset in this one",
    ]);
  });

  it("keeps plain strings as they are and shows an instant as a date", () => {
    expect(configValueText("embedding_model", "lexical-hash-v1")).toBe("lexical-hash-v1");
    expect(configValueText("protocol", "longmemeval")).toBe("longmemeval");
    expect(configValueText("k", "10")).toBe("10");
    expect(configValueText("as_of", "2020-01-01T00:00:00.000Z")).toMatch(/2020/);
    expect(configValueText("as_of", "2020-01-01T00:00:00.000Z")).not.toMatch(/T00:00/);
  });
});
