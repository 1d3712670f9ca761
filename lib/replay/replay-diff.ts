import type { ContextResult } from "../context/schemas";
import type { RoleMessage } from "../strategies/schemas";
import type { ReplayDiff, Why } from "./schemas";

// The difference between two replays of one turn. Pure (no database): unit-testable.

type Section = ContextResult["message_sections"][number];
type Item = { key: string; section: Section; message: RoleMessage; index: number };

const TOKEN_SECTIONS = ["system", "memories", "history", "query", "temporary", "reserved_output", "free", "context_window", "total"] as const;

function items(c: ContextResult): Item[] {
  return c.messages.map((m, i) => ({ key: `${c.message_sections[i]}\u0000${JSON.stringify(m)}`, section: c.message_sections[i], message: m, index: i }));
}

/** The longest common subsequence's edit script between a and b (common head and tail trimmed first). */
function editScript(a: Item[], b: Item[]): { dropped: Item[]; added: Item[]; runs: { dropped: Item[]; added: Item[] }[] } {
  let head = 0;
  while (head < a.length && head < b.length && a[head].key === b[head].key) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail].key === b[b.length - 1 - tail].key) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  // lcs[i][j]: the common subsequence's length of x[i..] and y[j..].
  const lcs = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
  for (let i = x.length - 1; i >= 0; i--) for (let j = y.length - 1; j >= 0; j--) lcs[i][j] = x[i].key === y[j].key ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const runs: { dropped: Item[]; added: Item[] }[] = [];
  let run = { dropped: [] as Item[], added: [] as Item[] };
  const close = () => {
    if (run.dropped.length || run.added.length) runs.push(run);
    run = { dropped: [], added: [] };
  };
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i].key === y[j].key) {
      close();
      i++;
      j++;
    } else if (j >= y.length || (i < x.length && lcs[i + 1][j] >= lcs[i][j + 1])) run.dropped.push(x[i++]);
    else run.added.push(y[j++]);
  }
  close();
  return { dropped: runs.flatMap((r) => r.dropped), added: runs.flatMap((r) => r.added), runs };
}

type Ranked = { context: ContextResult; why: Why[]; included: string[] };

/**
 * What a variant changes against the original: messages (a dropped and an added message of
 * the same run, section and role are one changed message), memories in and out of the
 * prompt with their ranks, and tokens per section.
 */
export function replayDiff(original: Ranked, variant: Ranked): ReplayDiff {
  const { runs } = editScript(items(original.context), items(variant.context));
  const messages: ReplayDiff["messages"] = { added: [], dropped: [], changed: [] };
  for (const run of runs) {
    const added = [...run.added];
    for (const d of run.dropped) {
      const k = added.findIndex((a) => a.section === d.section && a.message.role === d.message.role);
      if (k >= 0) {
        const [a] = added.splice(k, 1);
        messages.changed.push({ index: a.index, original_index: d.index, section: d.section, before: d.message, after: a.message });
      } else messages.dropped.push({ index: d.index, section: d.section, message: d.message });
    }
    for (const a of added) messages.added.push({ index: a.index, section: a.section, message: a.message });
  }

  const whyO = new Map(original.why.map((w) => [w.memory_id, w]));
  const whyV = new Map(variant.why.map((w) => [w.memory_id, w]));
  const inO = new Set(original.included);
  const inV = new Set(variant.included);
  const memories: ReplayDiff["memories"] = {
    in: variant.included
      .filter((id) => !inO.has(id))
      .map((id) => ({ memory_id: id, rank: whyV.get(id)?.rank ?? null, original_rank: whyO.get(id)?.rank ?? null, original_rule: whyO.get(id)?.rule ?? "not_a_candidate" })),
    out: original.included
      .filter((id) => !inV.has(id))
      .map((id) => ({ memory_id: id, original_rank: whyO.get(id)?.rank ?? null, rank: whyV.get(id)?.rank ?? null, rule: whyV.get(id)?.rule ?? "not_a_candidate" })),
  };

  const tokens: ReplayDiff["tokens"] = {};
  for (const s of TOKEN_SECTIONS) {
    const o = original.context.sections[s];
    const v = variant.context.sections[s];
    if (o !== v) tokens[s] = { original: o, variant: v, delta: v - o };
  }
  const empty = !messages.added.length && !messages.dropped.length && !messages.changed.length && !memories.in.length && !memories.out.length && !Object.keys(tokens).length;
  return { empty, messages, memories, tokens };
}
