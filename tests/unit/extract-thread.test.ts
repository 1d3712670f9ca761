import { describe, expect, it } from "vitest";
import { extractThread, ThreadWalker } from "@/lib/threads/extract-thread";
import { UUID_NIL } from "@/lib/threads/uuid-nil";

// Rows are given newest first, as Dify's query returns them.
const row = (id: string, parentMessageId: string | null) => ({ id, parentMessageId });
const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

describe("extractThread (Dify extract_thread_messages)", () => {
  it("follows parents through regenerated siblings", () => {
    // 1 <- 2 <- 3a, 3b (regenerated, newer) <- 4 on 3b
    const rows = [row("4", "3b"), row("3b", "2"), row("3a", "2"), row("2", "1"), row("1", null)];
    expect(ids(extractThread(rows))).toEqual(["4", "3b", "2", "1"]);
  });

  it("always takes the newest row, even when it sits on an old branch", () => {
    // The newest row regenerates turn 2 (parent 1); the newer-looking 3 is skipped.
    const rows = [row("2b", "1"), row("3", "2"), row("2", "1"), row("1", null)];
    expect(ids(extractThread(rows))).toEqual(["2b", "1"]);
  });

  it("treats UUID_NIL as 'the next older row, whatever its id'", () => {
    const rows = [row("c", UUID_NIL), row("b", UUID_NIL), row("a", null)];
    expect(ids(extractThread(rows))).toEqual(["c", "b", "a"]);
  });

  it("switches from explicit parents to UUID_NIL legacy rows", () => {
    const rows = [row("n2", "n1"), row("n1", "l3"), row("l3", UUID_NIL), row("x", UUID_NIL), row("l1", null)];
    // l3's parent is UUID_NIL: x is taken whatever its id, then x's UUID_NIL takes l1.
    expect(ids(extractThread(rows))).toEqual(["n2", "n1", "l3", "x", "l1"]);
  });

  it("stops at the first older row with a null or empty parent, even off-thread", () => {
    const rows = [row("3", "2"), row("other", null), row("2", "1"), row("1", null)];
    expect(ids(extractThread(rows))).toEqual(["3", "other"]);
    const empty = [row("3", "2"), row("other", ""), row("2", "1")];
    expect(ids(extractThread(empty))).toEqual(["3", "other"]);
  });

  it("returns just the newest row when it has no parent", () => {
    expect(ids(extractThread([row("1", null), row("0", null)]))).toEqual(["1"]);
  });

  it("keeps walking past a parent that is not in the rows (limit cut it off)", () => {
    const rows = [row("3", "2"), row("2", "missing")];
    expect(ids(extractThread(rows))).toEqual(["3", "2"]);
  });

  it("is empty for no rows", () => {
    expect(extractThread([])).toEqual([]);
  });

  it("ThreadWalker matches extractThread when fed row by row", () => {
    const rows = [row("4", "3b"), row("3b", "2"), row("3a", "2"), row("2", UUID_NIL), row("q", "p"), row("1", null), row("0", null)];
    const w = new ThreadWalker();
    for (const r of rows) if (!w.push(r)) break;
    expect(ids(w.thread)).toEqual(ids(extractThread(rows)));
    expect(w.done).toBe(true);
  });
});
