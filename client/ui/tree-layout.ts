// Tidy-ish tree layout in O(n): a node's column span is the number of leaves under it,
// so regenerated siblings sit side by side and a linear thread is one straight column.
// Iterative on purpose: a 5 000-turn thread is 5 000 levels deep, too deep for recursion.
// With a `spine` (the selected thread), each spine node sits straight above its spine child
// instead of centred over all its children: the thread is one column however wide the
// branches beside it are, so its newest turns fit one view (the turn-97 branch of a 640-turn
// conversation sat three columns right of its parent, out of sight of the thread above it).

export type LayoutInput = { id: string; tree_parent_id: string | null };
export type LayoutPoint = { x: number; y: number; depth: number };
export type TreeLayout = {
  positions: Map<string, LayoutPoint>;
  children: Map<string, string[]>;
  columns: number;
  depth: number;
};

export function layoutTree(items: readonly LayoutInput[], colWidth: number, rowHeight: number, spine?: ReadonlySet<string>): TreeLayout {
  const n = items.length;
  const index = new Map<string, number>();
  for (let i = 0; i < n; i++) index.set(items[i].id, i);

  // Children in input order (the API returns oldest first, so siblings read left to right by age).
  const kids: number[][] = Array.from({ length: n }, () => []);
  const roots: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = items[i].tree_parent_id;
    const pi = p == null ? undefined : index.get(p);
    if (pi === undefined || pi === i) roots.push(i);
    else kids[pi].push(i);
  }

  // Pre-order walk from the roots; anything never reached sits in a cycle, so we promote it to a root.
  const order: number[] = [];
  const depth = new Int32Array(n);
  const seen = new Uint8Array(n);
  const walk = (start: number) => {
    const stack = [start];
    seen[start] = 1;
    while (stack.length) {
      const v = stack.pop()!;
      order.push(v);
      const ks = kids[v];
      for (let k = ks.length - 1; k >= 0; k--) {
        const c = ks[k];
        if (seen[c]) continue;
        seen[c] = 1;
        depth[c] = depth[v] + 1;
        stack.push(c);
      }
    }
  };
  for (const r of roots) walk(r);
  for (let i = 0; i < n; i++) {
    if (!seen[i]) {
      roots.push(i);
      walk(i);
    }
  }

  // Leaf counts bottom-up (reverse pre-order visits children before parents), and where in its
  // span each node sits (columns from its left edge): centred, or above its spine child.
  const span = new Float64Array(n);
  const anchor = new Float64Array(n);
  for (let k = order.length - 1; k >= 0; k--) {
    const v = order[k];
    let s = 0;
    let at = -1;
    for (const c of kids[v]) {
      if (at < 0 && spine?.has(items[c].id)) at = s + anchor[c];
      s += span[c];
    }
    span[v] = Math.max(1, s);
    anchor[v] = at >= 0 ? at : span[v] / 2 - 0.5;
  }

  // Left edges top-down.
  const left = new Float64Array(n);
  let cursor = 0;
  for (const r of roots) {
    left[r] = cursor;
    cursor += span[r];
  }
  const positions = new Map<string, LayoutPoint>();
  const children = new Map<string, string[]>();
  let maxDepth = 0;
  for (const v of order) {
    let l = left[v];
    for (const c of kids[v]) {
      left[c] = l;
      l += span[c];
    }
    positions.set(items[v].id, { x: (left[v] + anchor[v]) * colWidth, y: depth[v] * rowHeight, depth: depth[v] });
    if (kids[v].length) children.set(items[v].id, kids[v].map((c) => items[c].id));
    if (depth[v] > maxDepth) maxDepth = depth[v];
  }
  return { positions, children, columns: cursor, depth: maxDepth };
}
