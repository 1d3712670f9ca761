import type { ImportTurn } from "./types";

/**
 * Oldest first (Dify answers newest first, and files may hold any order). Turns with the
 * same second keep their given order, except that a parent always comes before its child:
 * the thread rule reads rows by time, then by insertion.
 */
export function orderTurns(turns: ImportTurn[]): ImportTurn[] {
  const time = (t: ImportTurn) => (t.created_at ? Date.parse(t.created_at) : 0);
  const sorted = turns.map((t, i) => ({ t, i })).sort((a, b) => time(a.t) - time(b.t) || a.i - b.i);
  const out: ImportTurn[] = [];
  for (let s = 0; s < sorted.length; ) {
    let e = s + 1;
    while (e < sorted.length && time(sorted[e].t) === time(sorted[s].t)) e++;
    out.push(...parentsFirst(sorted.slice(s, e).map((x) => x.t)));
    s = e;
  }
  return out;
}

function parentsFirst(group: ImportTurn[]): ImportTurn[] {
  if (group.length < 2) return group;
  const ids = new Set(group.map((t) => t.id));
  const placed = new Set<string>();
  const out: ImportTurn[] = [];
  const visit = (t: ImportTurn, depth: number) => {
    if (placed.has(t.id) || depth > group.length) return;
    const p = t.parent_message_id;
    if (p && ids.has(p) && !placed.has(p)) visit(group.find((g) => g.id === p)!, depth + 1);
    if (!placed.has(t.id)) {
      placed.add(t.id);
      out.push(t);
    }
  };
  for (const t of group) visit(t, 0);
  return out;
}
