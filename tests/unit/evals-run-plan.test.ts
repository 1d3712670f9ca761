import { describe, expect, it } from "vitest";
import { pagesByUser } from "@/lib/evals/run-eval";

// How a run orders its cases (lib/evals/run-eval.ts): one user's cases searched together,
// every case exactly once.

describe("pagesByUser", () => {
  const order = ["a", "b", "a", "c", "b", "a", "a", "c"].map((user_id) => ({ user_id }));
  it("groups each user's cases in their set order, users by their first case, every position once", () => {
    const pages = pagesByUser(order, 3);
    expect(pages.flat()).toEqual([0, 2, 5, 6, 1, 4, 3, 7]);
    expect(pages.flat().sort()).toEqual(order.map((_, i) => i));
  });
  it("pages of about `size`: whole users while they fit, a larger user over several pages", () => {
    expect(pagesByUser(order, 3)).toEqual([[0, 2, 5], [6, 1, 4], [3, 7]]);
    expect(pagesByUser(order, 2)).toEqual([[0, 2], [5, 6], [1, 4], [3, 7]]);
    expect(pagesByUser(order, 100)).toEqual([[0, 2, 5, 6, 1, 4, 3, 7]]);
    expect(pagesByUser([], 3)).toEqual([]);
  });
});
