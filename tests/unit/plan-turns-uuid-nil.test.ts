import { describe, expect, it } from "vitest";
import { planTurns } from "@/lib/messages/insert-turns";
import type { TokenCounts } from "@/lib/tokens/count-tokens-parallel";
import { UUID_NIL } from "@/lib/threads/uuid-nil";

// planTurns draws a UUID_NIL parent ("the next older row", Dify) in the tree: older in time,
// as Dify's walk reads rows, not the turn written before it in the batch.

const counts = (n: number): TokenCounts => ({
  o200k_base: new Uint32Array(2 * n),
  cl100k_base: new Uint32Array(2 * n),
  approximate: new Uint8Array(2 * n),
  path: "test",
} as unknown as TokenCounts);

function plan(turns: { id: string; parent_message_id?: string | null; created_at: string }[], newest: { id: string; created_at: string } | null = null) {
  const input = turns.map((t) => ({ ...t, query: "q", answer: "a", files: [] }));
  return planTurns("c", input as never, turns.map((t) => t.id), counts(turns.length), { newest, stored: new Set() }, { allowMissingParents: true }).map((p) => [p.id, p.parent, p.treeParent]);
}

describe("planTurns: UUID_NIL tree parents", () => {
  it("a UUID_NIL root written after a younger turn is still a root when nothing is older (an imported tree's oldest turn)", () => {
    expect(plan([
      { id: "b", parent_message_id: "R", created_at: "2026-01-01T00:00:02Z" },
      { id: "a", parent_message_id: UUID_NIL, created_at: "2026-01-01T00:00:01Z" },
      { id: "c", parent_message_id: "a", created_at: "2026-01-01T00:00:03Z" },
    ])).toEqual([["b", "R", null], ["a", UUID_NIL, null], ["c", "a", "a"]]);
  });

  it("Dify's legacy linear rows in time order: each under the one before, as before", () => {
    expect(plan([
      { id: "a", parent_message_id: null, created_at: "2026-01-01T00:00:01Z" },
      { id: "b", parent_message_id: UUID_NIL, created_at: "2026-01-01T00:00:02Z" },
      { id: "c", parent_message_id: UUID_NIL, created_at: "2026-01-01T00:00:02Z" },
    ])).toEqual([["a", null, null], ["b", UUID_NIL, "a"], ["c", UUID_NIL, "b"]]);
  });

  it("the stored newest row is the previous one when it is older than the turn and newer than the batch's older turns", () => {
    const newest = { id: "s", created_at: "2026-01-01T00:00:05Z" };
    expect(plan([
      { id: "x", parent_message_id: UUID_NIL, created_at: "2026-01-01T00:00:04Z" },
      { id: "y", parent_message_id: UUID_NIL, created_at: "2026-01-01T00:00:06Z" },
    ], newest)).toEqual([["x", UUID_NIL, "s"], ["y", UUID_NIL, "s"]]);
  });
});
