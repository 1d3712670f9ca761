// Linear runs of a long conversation fold into one "… N turns" node, so a 5 000-turn thread
// is a handful of boxes instead of a strip of dots. Pure and O(n): it runs again whenever the
// selected thread (and so the set of turns that must stay visible) changes.

export type CollapseInput = { id: string; tree_parent_id: string | null };

export type CollapsedRun = {
  /** "run:" + the id of the run's first (oldest) turn: stable while the run keeps its first turn. */
  id: string;
  /** Oldest first. */
  members: string[];
  /** The visible turn above the run (null: the run starts at a root). */
  parent: string | null;
};

export type Collapsed = {
  /** The layout's input: visible turns and run nodes, in the original order (a run where its first turn was). */
  items: { id: string; tree_parent_id: string | null; run?: CollapsedRun }[];
  runs: Map<string, CollapsedRun>;
  /** Hidden turn id -> the run that holds it. */
  hiddenIn: Map<string, string>;
};

/** A run shorter than this stays drawn: folding three boxes into one saves nothing. */
export const MIN_RUN = 4;

export const runKey = (firstId: string) => `run:${firstId}`;

/**
 * Turns that have a parent with one child and exactly one child themselves are "in a run";
 * maximal chains of them that are not pinned (the selected thread's newest turns, the window
 * start, the focused node, the turns of runs the user expanded, ...) become one run node. Roots,
 * branch points, the first turn of each branch and leaves always stay visible.
 */
export function collapseRuns(
  items: readonly CollapseInput[],
  children: ReadonlyMap<string, readonly string[]>,
  pinned: ReadonlySet<string>,
  minRun = MIN_RUN,
): Collapsed {
  const ids = new Set(items.map((m) => m.id));
  const parentOf = (m: CollapseInput) => (m.tree_parent_id && m.tree_parent_id !== m.id && ids.has(m.tree_parent_id) ? m.tree_parent_id : null);
  const parents = new Map<string, string | null>();
  for (const m of items) parents.set(m.id, parentOf(m));
  const foldable = (id: string) => {
    if (pinned.has(id)) return false;
    const p = parents.get(id);
    if (!p) return false;
    return (children.get(p)?.length ?? 0) === 1 && (children.get(id)?.length ?? 0) === 1;
  };

  const runs = new Map<string, CollapsedRun>();
  const hiddenIn = new Map<string, string>();
  for (const m of items) {
    if (!foldable(m.id)) continue;
    const p = parents.get(m.id)!;
    if (foldable(p)) continue; // not the start of its run
    const members: string[] = [];
    let cur: string | undefined = m.id;
    // A cycle cannot pass here: every member has exactly one child and a parent with one child,
    // and the walk stops at the first turn seen twice all the same.
    const seen = new Set<string>();
    while (cur && foldable(cur) && !seen.has(cur)) {
      seen.add(cur);
      members.push(cur);
      cur = children.get(cur)![0];
    }
    const key = runKey(members[0]);
    if (members.length < minRun) continue;
    const run = { id: key, members, parent: p };
    runs.set(key, run);
    for (const id of members) hiddenIn.set(id, key);
  }

  const out: Collapsed["items"] = [];
  for (const m of items) {
    const r = hiddenIn.get(m.id);
    if (r) {
      const run = runs.get(r)!;
      if (run.members[0] === m.id) out.push({ id: run.id, tree_parent_id: run.parent, run });
      continue;
    }
    const p = parents.get(m.id) ?? null;
    out.push({ id: m.id, tree_parent_id: p ? (hiddenIn.get(p) ?? p) : null });
  }
  return { items: out, runs, hiddenIn };
}

export type BranchLeaf = { id: string; query: string; depth: number; created_at: string };

/** Every leaf of the tree with its depth (turns from the root, 1-based), newest first. */
export function branchLeaves(
  items: readonly { id: string; query: string; created_at: string }[],
  children: ReadonlyMap<string, readonly string[]>,
  depthOf: (id: string) => number,
): BranchLeaf[] {
  const out: BranchLeaf[] = [];
  for (const m of items) if (!children.get(m.id)?.length) out.push({ id: m.id, query: m.query, depth: depthOf(m.id) + 1, created_at: m.created_at });
  return out.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
}
