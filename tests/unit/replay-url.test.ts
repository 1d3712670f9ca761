import { describe, expect, it } from "vitest";
import { replayBody, stepDiff } from "@/client/ui/replay-model";
import { absoluteTime, plainTimes } from "@/client/ui/format";
import { encodeReplayQuery, parseReplayQuery, parseReplayRef, replayRef, variantLabel, type ReplayState } from "@/client/ui/replay-url";

// The replay page's state lives in its URL (issue 22, part 4): a reload must read back what was written.

const C = "0f2d6c1e-6f1a-4c53-9f3e-2b7a1c9d8e01";
const T = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const M = "11111111-2222-4333-8444-555555555555";

describe("replay URL", () => {
  it("round-trips the whole state: turn, leaf, tab, memory and a variant", () => {
    const s: ReplayState = { conversation: C, turn: T, leaf: T, tab: "whatif", memory: M, variant: { k: 10, min_score: 0.25, weights: { similarity: 0.4, importance: 0.5 }, strategy: "token_buffer", profile_version: 2 } };
    expect(parseReplayQuery(new URLSearchParams(encodeReplayQuery(s)))).toEqual(s);
    const captured: ReplayState = { ...s, tab: "captured", memory: null, variant: null };
    expect(parseReplayQuery(new URLSearchParams(encodeReplayQuery(captured)))).toEqual(captured);
  });

  it("leaves out what is not valid: a bad id, k out of bounds, an unknown strategy", () => {
    const sp = new URLSearchParams(`conversation=${C}&turn=${T}&leaf=nope&memory=x&v.k=0&v.strategy=magic&v.min=0.3`);
    expect(parseReplayQuery(sp)).toEqual({ conversation: C, turn: T, leaf: null, tab: "replay", memory: null, variant: { min_score: 0.3 } });
    expect(parseReplayQuery(new URLSearchParams(`conversation=${C}`))).toBeNull();
  });

  it("carries the replayed turn to other pages as conversation.turn", () => {
    expect(parseReplayRef(replayRef({ conversation: C, turn: T }))).toEqual({ conversation: C, turn: T });
    expect(parseReplayRef(`${C}.zz`)).toBeNull();
  });

  it("asks the API for the memory explained and the variant's overrides only", () => {
    expect(replayBody(C, T, { memory: M, variant: { k: 4 } })).toEqual({
      conversation_id: C,
      message_id: T,
      explain: [M],
      variants: [{ label: "k = 4", overrides: { memory: { k: 4 } } }],
    });
    expect(replayBody(C, T)).toEqual({ conversation_id: C, message_id: T });
  });

  it("a scrubber step: the messages new since the previous turn and the memories that came in or went out", () => {
    const ctx = (msgs: string[], mem: string[], total: number) => ({
      context: {
        messages: msgs.map((content) => ({ role: "user" as const, content })),
        memories: ["a", "b", "c"].map((id) => ({ id, memory_type: "fact" as const, content: id, score: 1, included: mem.includes(id) })),
        sections: { total },
      },
    });
    const d = stepDiff(ctx(["sys a b", "q1"], ["a", "b"], 10) as never, ctx(["sys c a", "q1", "a1", "q2"], ["c", "a"], 25) as never);
    expect(d).toEqual({ marks: ["only", "both", "only", "only"], newMessages: 3, goneMessages: 1, memoriesIn: ["c"], memoriesOut: ["b"], tokenDelta: 15 });
  });
});

describe("plain words for people", () => {
  it("a variant's label names each weight it sets, and only those", () => {
    expect(variantLabel({ weights: { similarity: 0.1, importance: 0.7 } })).toBe("weights: similarity 0.1, importance 0.7");
    expect(variantLabel({ k: 10, weights: { recency: 0 } })).toBe("k = 10 · weights: recency 0");
    expect(variantLabel({})).toBe("no change");
  });
  it("a reason's ISO times read as dates and times", () => {
    const text = plainTimes("created 2026-10-02T09:14:05.123Z, after this turn (2026-09-30T18:00:00.000Z)");
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    expect(text).toBe(`created ${absoluteTime("2026-10-02T09:14:05.123Z")}, after this turn (${absoluteTime("2026-09-30T18:00:00.000Z")})`);
    expect(text).toMatch(/Oct 2, 2026/);
  });
});
