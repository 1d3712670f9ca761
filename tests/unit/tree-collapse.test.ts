import { describe, expect, it } from "vitest";
import { branchLeaves, collapseRuns } from "@/client/ui/tree-collapse";
import { layoutTree } from "@/client/ui/tree-layout";

// A chain 0-1-...-n-1, with a regenerated sibling of turn `fork` when given.
function chain(n: number, fork?: number) {
  const items = Array.from({ length: n }, (_, i) => ({ id: `t${i}`, tree_parent_id: i ? `t${i - 1}` : null, query: `q${i}`, created_at: new Date(1_000 * i).toISOString() }));
  if (fork !== undefined) items.push({ id: "alt", tree_parent_id: `t${fork - 1}`, query: "alt", created_at: new Date(1_000 * n).toISOString() });
  return items;
}

describe("collapseRuns", () => {
  it("folds a long linear run into one node, keeping the root, the pinned tail and the leaf", () => {
    const items = chain(200);
    const { children } = layoutTree(items, 1, 1);
    const pinned = new Set(["t199", "t198", "t197"]);
    const c = collapseRuns(items, children, pinned);
    expect(c.runs.size).toBe(1);
    const [run] = [...c.runs.values()];
    // t0 is the root; t1..t196 have one parent with one child and one child each.
    expect(run.members).toEqual(Array.from({ length: 196 }, (_, i) => `t${i + 1}`));
    expect(run.parent).toBe("t0");
    expect(c.items.map((i) => i.id)).toEqual(["t0", run.id, "t197", "t198", "t199"]);
    expect(c.items.find((i) => i.id === "t197")!.tree_parent_id).toBe(run.id);
  });

  it("keeps branch points, the first turn of each branch and short runs; a pinned turn splits a run", () => {
    const items = chain(30, 10); // t9 has two children: t10 and alt
    const { children } = layoutTree(items, 1, 1);
    const c = collapseRuns(items, children, new Set(["t20", "t29"]));
    const visible = c.items.filter((i) => !i.run).map((i) => i.id);
    expect(visible).toEqual(expect.arrayContaining(["t0", "t9", "t10", "alt", "t20", "t29"]));
    // t1..t8 (t9 is the branch point, so t8 has one child t9; t9's parent t8 has one child, but t9 has two children)
    const runs = [...c.runs.values()].map((r) => [r.members[0], r.members.at(-1), r.members.length]);
    expect(runs).toEqual([
      ["t1", "t8", 8],
      ["t11", "t19", 9],
      ["t21", "t28", 8],
    ]);
    // Fewer than MIN_RUN turns stay drawn.
    expect(collapseRuns(chain(5), layoutTree(chain(5), 1, 1).children, new Set(["t4"])).runs.size).toBe(0);
  });

  it("expanded turns are pinned: nothing of them folds again", () => {
    const items = chain(50);
    const { children } = layoutTree(items, 1, 1);
    const first = collapseRuns(items, children, new Set(["t49"]));
    const members = [...first.runs.values()][0].members;
    const after = collapseRuns(items, children, new Set(["t49", ...members]));
    expect(after.runs.size).toBe(0);
    expect(after.items).toHaveLength(50);
  });

  it("a 5 000-turn thread becomes three nodes: the root, one run, the leaf", () => {
    const items = chain(5000);
    const { children } = layoutTree(items, 1, 1);
    const c = collapseRuns(items, children, new Set(["t4999"]));
    expect(c.items.map((i) => i.id)).toEqual(["t0", "run:t1", "t4999"]);
    expect(c.hiddenIn.size).toBe(4998);
  });
});

describe("branchLeaves", () => {
  it("lists every leaf with its turn number (depth, 1-based), newest first", () => {
    const items = chain(12, 5);
    const layout = layoutTree(items, 1, 1);
    const leaves = branchLeaves(items, layout.children, (id) => layout.positions.get(id)!.depth);
    expect(leaves.map((l) => [l.id, l.depth, l.query])).toEqual([
      ["alt", 6, "alt"], // a regeneration of turn 6 (its parent is t4)
      ["t11", 12, "q11"],
    ]);
  });
});
