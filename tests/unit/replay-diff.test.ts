import { describe, expect, it } from "vitest";
import type { ContextResult } from "../../lib/context/schemas";
import { replayDiff } from "../../lib/replay/replay-diff";
import type { Why } from "../../lib/replay/schemas";

// The difference between two replays of one turn, on hand-made prompts.

type Msg = ContextResult["messages"][number];
const sections = (o: Partial<ContextResult["sections"]> = {}): ContextResult["sections"] => ({
  system: 10, memories: 20, history: 30, query: 5, temporary: 0, reserved_output: 100, free: 835, context_window: 1000, total: 65, ...o,
});
function ctx(messages: [ContextResult["message_sections"][number], Msg][], s = sections()): ContextResult {
  return {
    messages: messages.map(([, m]) => m),
    message_sections: messages.map(([x]) => x),
    sections: s,
    fits: true,
    memories: [],
    retrieval_id: null,
    memory_access_recorded: false,
    history_source: "conversation",
    strategy: { type: "message_window" },
    dropped: [],
    transformed: [],
    model: "gpt-4o",
    encoding: "o200k_base",
    exact: true,
    approximate: false,
  };
}
const why = (memory_id: string, rank: number, rule: Why["rule"]): Why => ({ memory_id, rank, rule, in_prompt: rule === "included", reason: "", score: 1, score_parts: null, state: null });
const sys = (c: string): Msg => ({ role: "system", content: c });
const u = (c: string): Msg => ({ role: "user", content: c });
const a = (c: string): Msg => ({ role: "assistant", content: c });

describe("replayDiff", () => {
  const original = ctx([["system", sys("S + m1")], ["history", u("q1")], ["history", a("a1")], ["history", u("q2")], ["history", a("a2")], ["query", u("q3")]]);

  it("identical replays: an empty diff", () => {
    const d = replayDiff({ context: original, why: [why("m1", 1, "included")], included: ["m1"] }, { context: structuredClone(original), why: [why("m1", 1, "included")], included: ["m1"] });
    expect(d).toEqual({ empty: true, messages: { added: [], dropped: [], changed: [] }, memories: { in: [], out: [] }, tokens: {} });
  });

  it("a shorter window drops the oldest turn; another memory set changes the system message", () => {
    const variant = ctx([["system", sys("S + m2")], ["history", u("q2")], ["history", a("a2")], ["query", u("q3")]], sections({ memories: 22, history: 15, free: 848, total: 52 }));
    const d = replayDiff(
      { context: original, why: [why("m1", 1, "included"), why("m2", 2, "k")], included: ["m1"] },
      { context: variant, why: [why("m2", 1, "included"), why("m1", 2, "k")], included: ["m2"] },
    );
    expect(d.messages).toEqual({
      added: [],
      dropped: [
        { index: 1, section: "history", message: u("q1") },
        { index: 2, section: "history", message: a("a1") },
      ],
      changed: [{ index: 0, original_index: 0, section: "system", before: sys("S + m1"), after: sys("S + m2") }],
    });
    expect(d.memories).toEqual({ in: [{ memory_id: "m2", rank: 1, original_rank: 2, original_rule: "k" }], out: [{ memory_id: "m1", original_rank: 1, rank: 2, rule: "k" }] });
    expect(d.tokens).toEqual({
      memories: { original: 20, variant: 22, delta: 2 },
      history: { original: 30, variant: 15, delta: -15 },
      free: { original: 835, variant: 848, delta: 13 },
      total: { original: 65, variant: 52, delta: -13 },
    });
    expect(d.empty).toBe(false);
  });

  it("an added temporary message is added, not changed", () => {
    const variant = ctx([...original.messages.map((m, i) => [original.message_sections[i], m] as [ContextResult["message_sections"][number], Msg]), ["temporary", u("t")]]);
    const d = replayDiff({ context: original, why: [], included: [] }, { context: variant, why: [], included: [] });
    expect(d.messages).toEqual({ added: [{ index: 6, section: "temporary", message: u("t") }], dropped: [], changed: [] });
  });
});
