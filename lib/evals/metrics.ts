import type { CaseScores, Expected, ExpectedRank, Interval, MetricName, MetricSet, RunMetrics } from "./schemas";

// The metrics of a run, computed from each case's ranked retrieval (pure functions, so the
// unit tests check them against values worked out by hand).
//
// A case's targets are its expected items: each memory id, each evidence turn, each text.
// A retrieved memory is relevant when it matches any target. Within the top k:
// - recall@k    = targets matched / targets
// - precision@k = relevant memories retrieved / k (k, not the number returned: a short
//                 answer is not rewarded for returning less)
// - RR          = 1 / rank of the first relevant memory (0 when none); MRR is its mean
// - nDCG@k      = DCG / IDCG with binary gain; a memory gains only when it matches a target
//                 no earlier memory matched (two memories of one evidence turn count once),
//                 IDCG = the best order for min(targets, k) targets
// - hit         = at least one target matched
// The order is the retrieval's (score, then memory id on ties), so ties rank the same way
// on every run. A case without targets is not scored (tokens and latency still count).

/** source_half: which half of its turn a benchmark memory was made from (the question or the answer; null: not known). */
export type MemoryFacts = { id: string; content: string; source_conversation_id: string | null; source_message_id: string | null; source_half?: "user" | "assistant" | null };

type Target = { kind: ExpectedRank["kind"]; target: string; matches: (m: MemoryFacts) => boolean };

export function targetsOf(e: Expected): Target[] {
  return [
    ...e.memory_ids.map((id) => ({ kind: "memory" as const, target: id, matches: (m: MemoryFacts) => m.id === id })),
    ...e.turns.map((t) => ({
      kind: "turn" as const,
      target: `${t.conversation_id}:${t.message_id}`,
      matches: (m: MemoryFacts) => m.source_message_id === t.message_id && (m.source_conversation_id === null || m.source_conversation_id === t.conversation_id),
    })),
    ...e.texts.map((text) => {
      const needle = text.toLowerCase();
      return { kind: "text" as const, target: text, matches: (m: MemoryFacts) => m.content.toLowerCase().includes(needle) };
    }),
  ];
}

/** shown: under a benchmark's protocol, the retrieved memories (by position) behind the k turns it ranked; absent: the first k. */
export type CaseOutcome = { scores: CaseScores | null; hit: boolean | null; expected_ranks: ExpectedRank[]; relevant: boolean[]; shown?: number[] };

/** One case: `retrieved` in rank order (only the first k are read). */
export function scoreCase(expected: Expected, retrieved: readonly MemoryFacts[], k: number): CaseOutcome {
  const targets = targetsOf(expected);
  const top = retrieved.slice(0, k);
  const matchedBy = top.map((m) => targets.map((t, i) => (t.matches(m) ? i : -1)).filter((i) => i >= 0));
  const relevant = matchedBy.map((ids) => ids.length > 0);
  const firstRank = targets.map((_, i) => {
    const r = matchedBy.findIndex((ids) => ids.includes(i));
    return r < 0 ? null : r + 1;
  });
  const expected_ranks = targets.map((t, i) => ({ kind: t.kind, target: t.target, rank: firstRank[i] }));
  if (!targets.length) return { scores: null, hit: null, expected_ranks, relevant };

  const found = firstRank.filter((r) => r !== null).length;
  const relevantCount = relevant.filter(Boolean).length;
  const first = relevant.indexOf(true);
  const seen = new Set<number>();
  let dcg = 0;
  matchedBy.forEach((ids, i) => {
    const fresh = ids.filter((t) => !seen.has(t));
    if (fresh.length) dcg += 1 / Math.log2(i + 2);
    for (const t of ids) seen.add(t);
  });
  let idcg = 0;
  for (let i = 0; i < Math.min(targets.length, k); i++) idcg += 1 / Math.log2(i + 2);
  return {
    scores: { recall: found / targets.length, precision: relevantCount / k, rr: first < 0 ? 0 : 1 / (first + 1), ndcg: idcg ? dcg / idcg : 0 },
    hit: found > 0,
    expected_ranks,
    relevant,
  };
}

/** What aggregation needs of a case. */
export type CaseRow = { category: string | null; scores: CaseScores | null; hit: boolean | null; tokens: number; latency_ms: number };

/** The q-quantile by nearest rank (q in (0, 1]): an observed value, no interpolation. */
export function percentile(values: readonly number[], q: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length))) - 1];
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** A small seeded PRNG (mulberry32): the same seed, the same resamples, the same intervals. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stable seed per statistic name, so intervals do not depend on which metrics were asked before. */
export function seedOf(name: string, base = 23): number {
  let h = 2166136261 ^ base;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return h >>> 0;
}

export const BOOTSTRAP_RESAMPLES = 2000;

/** How a metric's statistic is computed from its per-case values. */
export type StatKind = { kind: "mean" } | { kind: "percentile"; q: number };

/**
 * The statistic of one resample, built from the drawn indices without copying or sorting
 * the resample: a mean sums the drawn values in draw order (the very additions `mean` makes
 * on the resample, so the same number to the last bit); a percentile counts the draws per
 * position in the sorted values and walks the counts to the nearest rank (the resample's
 * k-th smallest value, as `percentile` finds it by sorting). O(n) per resample instead of
 * O(n log n) with a copy: 2 000 resamples of 1 000 latencies took ~100 ms each by sorting.
 */
export class ResampledStat {
  private sum = 0;
  private readonly rankOf: Int32Array | null = null;
  private readonly sorted: Float64Array | null = null;
  private readonly counts: Int32Array | null = null;

  constructor(
    private readonly values: readonly number[],
    private readonly stat: StatKind,
  ) {
    if (stat.kind === "percentile") {
      const order = values.map((_, i) => i).sort((a, b) => values[a] - values[b]);
      this.sorted = Float64Array.from(order, (i) => values[i]);
      this.rankOf = new Int32Array(values.length);
      order.forEach((i, r) => (this.rankOf![i] = r));
      this.counts = new Int32Array(values.length);
    }
  }

  reset() {
    this.sum = 0;
    this.counts?.fill(0);
  }

  /** One draw: the value at index `i` joins the resample. */
  add(i: number) {
    if (this.counts) this.counts[this.rankOf![i]]++;
    else this.sum += this.values[i];
  }

  /** The statistic of a resample of n = values.length draws. */
  value(): number {
    const n = this.values.length;
    if (this.stat.kind === "mean") return this.sum / n;
    const target = Math.min(n, Math.max(1, Math.ceil(this.stat.q * n)));
    let seen = 0;
    for (let r = 0; r < n; r++) {
      seen += this.counts![r];
      if (seen >= target) return this.sorted![r];
    }
    return this.sorted![n - 1];
  }
}

export const statOf = (kind: StatKind) => (xs: readonly number[]) => (kind.kind === "mean" ? mean(xs) : percentile(xs, kind.q));

/**
 * A statistic with its 95% percentile-bootstrap interval: the cases are resampled with
 * replacement B times (seeded), the statistic recomputed on each resample, and the 2.5th
 * and 97.5th percentiles of those values bound it.
 */
export function bootstrapInterval(values: readonly number[], stat: (xs: readonly number[]) => number | null, seed: number, resamples = BOOTSTRAP_RESAMPLES): Interval {
  const value = stat(values);
  if (value === null || values.length === 0) return { value: null, low: null, high: null };
  const rand = seededRandom(seed);
  const n = values.length;
  const stats: number[] = [];
  const sample = new Array<number>(n);
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < n; i++) sample[i] = values[Math.floor(rand() * n)];
    const s = stat(sample);
    if (s !== null) stats.push(s);
  }
  stats.sort((a, b) => a - b);
  return { value, low: percentile(stats, 0.025), high: percentile(stats, 0.975) };
}

/** bootstrapInterval for a mean or a percentile, the same interval (same draws, same values) in linear time per resample. */
export function bootstrapStat(values: readonly number[], kind: StatKind, seed: number, resamples = BOOTSTRAP_RESAMPLES): Interval {
  return drain(bootstrapSteps(values, kind, seed, resamples));
}

/** Resamples drawn between two steps (a few ms for 1 000 cases). */
const RESAMPLES_PER_STEP = 250;

/**
 * The fewest cases for which a percentile has a 95% interval at all: with fewer, the chance
 * that every case lies above the percentile (or every one below) is over 2.5 %, so any
 * interval, bootstrap or exact, reaches the sample's smallest or largest value. A p95 of 5
 * cases then "has" the interval [min, max], the very one of its p50. 6 cases for a median,
 * 72 for a p95.
 */
export function minCasesForPercentileInterval(q: number): number {
  return Math.ceil(Math.log(0.025) / Math.log(Math.max(q, 1 - q)));
}

function* bootstrapSteps(values: readonly number[], kind: StatKind, seed: number, resamples: number): Generator<void, Interval> {
  const n = values.length;
  if (n === 0) return { value: null, low: null, high: null };
  if (kind.kind === "percentile" && n < minCasesForPercentileInterval(kind.q)) return { value: statOf(kind)(values), low: null, high: null };
  const rand = seededRandom(seed);
  const acc = new ResampledStat(values, kind);
  const stats = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    acc.reset();
    for (let i = 0; i < n; i++) acc.add(Math.floor(rand() * n));
    stats[b] = acc.value();
    if ((b + 1) % RESAMPLES_PER_STEP === 0) yield;
  }
  stats.sort();
  const at = (q: number) => stats[Math.min(resamples, Math.max(1, Math.ceil(q * resamples))) - 1];
  return { value: statOf(kind)(values), low: at(0.025), high: at(0.975) };
}

const STAT: Record<MetricName, { pick: (c: CaseRow) => number | null; kind: StatKind; stat: (xs: readonly number[]) => number | null }> = {
  recall: { pick: (c) => c.scores?.recall ?? null, ...byKind({ kind: "mean" }) },
  precision: { pick: (c) => c.scores?.precision ?? null, ...byKind({ kind: "mean" }) },
  mrr: { pick: (c) => c.scores?.rr ?? null, ...byKind({ kind: "mean" }) },
  ndcg: { pick: (c) => c.scores?.ndcg ?? null, ...byKind({ kind: "mean" }) },
  hit_rate: { pick: (c) => (c.hit === null ? null : c.hit ? 1 : 0), ...byKind({ kind: "mean" }) },
  tokens: { pick: (c) => c.tokens, ...byKind({ kind: "mean" }) },
  latency_p50: { pick: (c) => c.latency_ms, ...byKind({ kind: "percentile", q: 0.5 }) },
  latency_p95: { pick: (c) => c.latency_ms, ...byKind({ kind: "percentile", q: 0.95 }) },
};
function byKind(kind: StatKind) {
  return { kind, stat: statOf(kind) };
}
export const metricStat = STAT;

/**
 * The metrics of some cases as steps (RESAMPLES_PER_STEP resamples each), so a caller on
 * the server's thread can let requests in between (runMetricsYielding); metricSet and runMetrics run the steps straight through.
 */
function* metricSetSteps(cases: readonly CaseRow[], scope: string, resamples: number): Generator<void, MetricSet> {
  const out = { cases: cases.length, scored_cases: cases.filter((c) => c.scores !== null).length } as MetricSet;
  for (const [name, s] of Object.entries(STAT) as [MetricName, (typeof STAT)[MetricName]][]) {
    const values = cases.map(s.pick).filter((v): v is number => v !== null);
    out[name] = yield* bootstrapSteps(values, s.kind, seedOf(`${scope}:${name}`), resamples);
  }
  return out;
}

function* runMetricsSteps(cases: readonly CaseRow[], resamples: number): Generator<void, RunMetrics> {
  const byCategory = new Map<string, CaseRow[]>();
  for (const c of cases) {
    if (!c.category) continue;
    const rows = byCategory.get(c.category);
    if (rows) rows.push(c);
    else byCategory.set(c.category, [c]);
  }
  const overall = yield* metricSetSteps(cases, "overall", resamples);
  const by_category: Record<string, MetricSet> = {};
  for (const [cat, rows] of [...byCategory.entries()].sort(([a], [b]) => a.localeCompare(b))) by_category[cat] = yield* metricSetSteps(rows, `category:${cat}`, resamples);
  return { overall, by_category };
}

function drain<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** The metrics of some cases, each with its interval (seeded by `scope` and the metric's name). */
export function metricSet(cases: readonly CaseRow[], scope = "overall", resamples = BOOTSTRAP_RESAMPLES): MetricSet {
  return drain(metricSetSteps(cases, scope, resamples));
}

export function runMetrics(cases: readonly CaseRow[], resamples = BOOTSTRAP_RESAMPLES): RunMetrics {
  return drain(runMetricsSteps(cases, resamples));
}

/** runMetrics, with `turn()` awaited after each step (a run gives the event loop a turn). */
export async function runMetricsYielding(cases: readonly CaseRow[], turn: () => Promise<void>, resamples = BOOTSTRAP_RESAMPLES): Promise<RunMetrics> {
  const steps = runMetricsSteps(cases, resamples);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await turn();
  }
}
