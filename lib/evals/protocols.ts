import type { CaseOutcome, MemoryFacts } from "./metrics";
import type { EvalCase, EvalProtocol, ExpectedRank } from "./schemas";

// Scoring a case as a published benchmark's own evaluation code does, so that a team's
// figures compare with the published ones (issue 40, item 9). Pure functions; run-eval.ts
// picks one per run (config.protocol). What each benchmark's code does, in our words:
//
// LongMemEval (xiaowu0162/LongMemEval, src/retrieval/run_retrieval.py and eval_utils.py):
// - the index holds the USER turns only (turn granularity; a session document is its user
//   turns joined); an assistant turn is never retrieved, and its has_answer label is not a
//   target;
// - the targets are the user turns whose has_answer is true (in the answer sessions);
// - a question whose id marks it as an abstention (_abs), or that has no user turn labelled,
//   is left out of the averages;
// - per question and k: recall_any@k (some target among the first k documents), recall_all@k
//   (every target among them; the figure the paper and print_retrieval_metrics.py report as
//   recall) and ndcg_any@k with binary gains, where the first two ranks both weigh 1 and rank
//   r > 2 weighs 1 / log2(r) (DCG = rel_1 + sum_{r>=2} rel_r / log2(r)), the ideal being all
//   targets first.
// Here: recall = recall_all@k, hit = recall_any@k, ndcg = ndcg_any@k, over the ranking of
// distinct user turns the retrieved memories come from (the memories of an assistant half,
// and those of no benchmark turn, are not in that index and are left out).
//
// LoCoMo (snap-research/locomo, branch "code": task_eval/evaluate_gpts.py and evaluation.py,
// retrieval over dialogs): the index holds every dialog turn of both speakers; the top k
// retrieved turns give their dia_ids; a question's recall is the share of its evidence ids
// among them (ids the conversation does not have count as misses), a question with no
// evidence scores 1, and every question counts, adversarial ones (category 5) included.
// Here: recall as that, over the first k distinct turns the retrieved memories come from; the
// number of evidence ids the file gave (valid or not) is the case's "locomo-evidence:N" tag
// (benchmark-formats.ts), so a question whose evidence names no turn scores 0, one without
// evidence 1. LoCoMo's code compares a whole evidence string with the ids, so an entry that
// holds two ids ("D8:6; D9:17") never matches there; Memscope's import splits it in two (and
// counts two), the one deliberate difference.
//
// Both: precision@k (relevant turns / k) and MRR over the same turn ranking are Memscope's
// additions (neither benchmark reports them); tokens and latency are the memories' as always.

export const PROTOCOLS = ["memscope", "longmemeval", "locomo"] as const;

/** How many memories a protocol run asks the retrieval for, to rank k distinct turns of its index. */
export function searchDepth(protocol: EvalProtocol, k: number): number {
  return protocol === "memscope" ? k : Math.min(100, k * 4);
}

export const LOCOMO_EVIDENCE_TAG = "locomo-evidence:";

type TurnRank = { key: string; memories: number[] };

/** The distinct turns of the retrieved memories that `inIndex` keeps, in rank order, the first k. */
function turnRanking(retrieved: readonly MemoryFacts[], k: number, inIndex: (m: MemoryFacts) => boolean): TurnRank[] {
  const out: TurnRank[] = [];
  const at = new Map<string, TurnRank>();
  retrieved.forEach((m, i) => {
    if (!m.source_message_id || !inIndex(m)) return;
    const key = m.source_message_id;
    const seen = at.get(key);
    if (seen) {
      seen.memories.push(i);
      return;
    }
    if (out.length >= k) return;
    const r = { key, memories: [i] };
    at.set(key, r);
    out.push(r);
  });
  return out;
}

const shownOf = (ranking: readonly TurnRank[]) => ranking.flatMap((r) => r.memories).sort((a, b) => a - b);
const skipped = (retrieved: readonly MemoryFacts[], expected_ranks: ExpectedRank[], ranking: readonly TurnRank[]): CaseOutcome => ({ scores: null, hit: null, expected_ranks, relevant: retrieved.map(() => false), shown: shownOf(ranking) });

/** LongMemEval's DCG: the first two ranks weigh 1, rank r > 2 weighs 1 / log2(r). */
function lmeDcg(rel: readonly number[]): number {
  let d = 0;
  rel.forEach((g, i) => (d += i === 0 ? g : g / Math.log2(i + 1)));
  return d;
}

export function scoreLongMemEval(c: Pick<EvalCase, "expected" | "tags">, retrieved: readonly MemoryFacts[], k: number): CaseOutcome {
  // Turns labelled on the user's side. A turn with no label (evidence taken from
  // answer_session_ids, a set imported before labels were kept, a hand-written case) is not
  // one LongMemEval would score: such a question is left out, as LongMemEval leaves out a
  // question with no user turn labelled.
  const targets = c.expected.turns.filter((t) => t.labelled === "user" || t.labelled === "both");
  const ranking = turnRanking(retrieved, k, (m) => m.source_half !== "assistant");
  const rankOf = new Map(ranking.map((r, i) => [r.key, i + 1]));
  const expected_ranks: ExpectedRank[] = targets.map((t) => ({ kind: "turn", target: `${t.conversation_id}:${t.message_id}`, rank: rankOf.get(t.message_id) ?? null }));
  if (c.tags.includes("abstention") || !targets.length) return skipped(retrieved, expected_ranks, ranking);
  const wanted = new Set(targets.map((t) => t.message_id));
  const rel = ranking.map((r) => (wanted.has(r.key) ? 1 : 0));
  const found = expected_ranks.filter((r) => r.rank !== null).length;
  const ideal = lmeDcg(Array.from({ length: Math.min(wanted.size, k) }, () => 1));
  const first = rel.indexOf(1);
  const relevant = retrieved.map(() => false);
  ranking.forEach((r) => {
    if (wanted.has(r.key)) for (const i of r.memories) relevant[i] = true;
  });
  return {
    scores: { recall: found === wanted.size ? 1 : 0, precision: rel.filter(Boolean).length / k, rr: first < 0 ? 0 : 1 / (first + 1), ndcg: ideal ? lmeDcg(rel) / ideal : 0 },
    hit: found > 0,
    expected_ranks,
    relevant,
    shown: shownOf(ranking),
  };
}

export function scoreLoCoMo(c: Pick<EvalCase, "expected" | "tags">, retrieved: readonly MemoryFacts[], k: number): CaseOutcome {
  const targets = c.expected.turns;
  const tag = c.tags.find((t) => t.startsWith(LOCOMO_EVIDENCE_TAG));
  // The file's evidence ids, valid or not (an import before issue 40 recorded only the valid ones).
  const entries = Math.max(targets.length, tag ? Number(tag.slice(LOCOMO_EVIDENCE_TAG.length)) || 0 : targets.length);
  const ranking = turnRanking(retrieved, k, () => true);
  const rankOf = new Map(ranking.map((r, i) => [r.key, i + 1]));
  const expected_ranks: ExpectedRank[] = targets.map((t) => ({ kind: "turn", target: `${t.conversation_id}:${t.message_id}`, rank: rankOf.get(t.message_id) ?? null }));
  const wanted = new Set(targets.map((t) => t.message_id));
  const relevant = retrieved.map(() => false);
  ranking.forEach((r) => {
    if (wanted.has(r.key)) for (const i of r.memories) relevant[i] = true;
  });
  const rel = ranking.map((r) => wanted.has(r.key));
  const found = expected_ranks.filter((r) => r.rank !== null).length;
  // No evidence at all: LoCoMo's code scores the question 1 (and counts it).
  if (entries === 0) return { scores: { recall: 1, precision: 0, rr: 0, ndcg: 0 }, hit: null, expected_ranks, relevant, shown: shownOf(ranking) };
  const first = rel.indexOf(true);
  let dcg = 0;
  rel.forEach((g, i) => (dcg += g ? 1 / Math.log2(i + 2) : 0));
  let idcg = 0;
  for (let i = 0; i < Math.min(wanted.size, k); i++) idcg += 1 / Math.log2(i + 2);
  return {
    scores: { recall: found / entries, precision: rel.filter(Boolean).length / k, rr: first < 0 ? 0 : 1 / (first + 1), ndcg: idcg ? dcg / idcg : 0 },
    hit: found > 0,
    expected_ranks,
    relevant,
    shown: shownOf(ranking),
  };
}
