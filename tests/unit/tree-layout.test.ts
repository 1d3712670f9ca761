import { describe, expect, it } from "vitest";
import { layoutTree } from "@/client/ui/tree-layout";

// Turn 0-1-2-3, turn 3 regenerated as "alt" (a sibling under 2), and turn 3's branch going on
// with two further regenerations below it: 2's main child spans three columns, "alt" one.
const items = [
  { id: "t0", tree_parent_id: null },
  { id: "t1", tree_parent_id: "t0" },
  { id: "t2", tree_parent_id: "t1" },
  { id: "t3", tree_parent_id: "t2" },
  { id: "t4a", tree_parent_id: "t3" },
  { id: "t4b", tree_parent_id: "t3" },
  { id: "t4c", tree_parent_id: "t3" },
  { id: "alt", tree_parent_id: "t2" },
];
const x = (l: ReturnType<typeof layoutTree>, id: string) => l.positions.get(id)!.x;

describe("layoutTree", () => {
  it("centres a node over its children without a spine", () => {
    const l = layoutTree(items, 1, 1);
    // t3 spans columns 0-2 (centre 1), alt column 3; t2 is centred over all four (1.5).
    expect([x(l, "t3"), x(l, "alt"), x(l, "t2"), x(l, "t0")]).toEqual([1, 3, 1.5, 1.5]);
  });

  it("puts the selected thread in one straight column, whatever branches beside it", () => {
    const l = layoutTree(items, 10, 1, new Set(["t0", "t1", "t2", "alt"]));
    // alt sits in column 3; its ancestors straight above it; t3's branch keeps its place to the left.
    expect(["t0", "t1", "t2", "alt"].map((id) => x(l, id))).toEqual([30, 30, 30, 30]);
    expect([x(l, "t3"), x(l, "t4a"), x(l, "t4c")]).toEqual([10, 0, 20]);
    // The other thread as the spine: t4b under t3 under t2, all in column 1.
    const m = layoutTree(items, 10, 1, new Set(["t0", "t1", "t2", "t3", "t4b"]));
    expect(["t0", "t2", "t3", "t4b"].map((id) => x(m, id))).toEqual([10, 10, 10, 10]);
  });
});
