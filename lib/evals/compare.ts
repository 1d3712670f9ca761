import { metricStat, minCasesForPercentileInterval, percentile, ResampledStat, seededRandom, seedOf, type CaseRow } from "./metrics";
import { DEFAULT_WEIGHTS } from "../memories/schemas";
import { METRIC_NAMES, type Comparison, type EvalConfig, type MetricDelta, type MetricName } from "./schemas";

// Run against run: which cases broke or were mended, and for each metric whether the
// difference is more than noise.
//
// The test is a paired bootstrap over the cases both runs hold: resample case indices with
// replacement, recompute the metric on both runs' values of those same cases, and take the
// 2.5th/97.5th percentiles of head minus base. Paired, because both runs answered the very
// same questions (the case-to-case spread, far larger than a change's effect, cancels out).
// Bootstrap rather than Wilcoxon or a sign test: per-case recall is mostly exactly 0 or 1,
// so most differences are zero ties (Wilcoxon drops them and its normal approximation is
// poor), a sign test ignores how large a change is, and latency p95 is no mean of per-case
// differences at all; the bootstrap tests the very statistic the report shows.

export const COMPARE_RESAMPLES = 10_000;
const QUALITY: readonly MetricName[] = ["recall", "precision", "mrr", "ndcg", "hit_rate"];
/** For these, more is worse. */
const COSTS: readonly MetricName[] = ["tokens", "latency_p50", "latency_p95"];

export type CompareCase = CaseRow & { case_id: string; question: string };

/** What decides a run's retrieval: its config and the model it read. */
export type RunSetup = { config: Omit<EvalConfig, "protocol"> & { protocol?: EvalConfig["protocol"] }; embedding_model: string };

/**
 * Where two runs' retrieval differs: k, the effective weights (defaults filled in), min_score,
 * memory_types (as a set), status, the model read, as_of and the scoring protocol (a run from
 * before protocols were chosen was scored as memscope). Runs that differ there measure
 * different things, so a delta between them is no verdict on a change of the memory.
 */
export function configChanges(base: RunSetup, head: RunSetup): Comparison["config_changes"] {
  const view = (r: RunSetup): Record<string, unknown> => ({
    k: r.config.k,
    protocol: r.config.protocol ?? "memscope",
    weights: { ...DEFAULT_WEIGHTS, ...r.config.weights },
    min_score: r.config.min_score ?? null,
    memory_types: r.config.memory_types ? [...r.config.memory_types].sort() : null,
    status: r.config.status,
    embedding_model: r.embedding_model,
    as_of: r.config.as_of ? (Number.isNaN(Date.parse(r.config.as_of)) ? r.config.as_of : new Date(r.config.as_of).toISOString()) : null,
  });
  const b = view(base);
  const h = view(head);
  const text = (v: unknown) => (v === null || v === undefined ? null : typeof v === "string" ? v : JSON.stringify(v));
  return Object.keys(b)
    .filter((f) => text(b[f]) !== text(h[f]))
    .map((field) => ({ field, base: text(b[field]), head: text(h[field]) }));
}

export function compareRuns(
  base: { id: string; cases: readonly CompareCase[]; setup?: RunSetup },
  head: { id: string; cases: readonly CompareCase[]; setup?: RunSetup },
  resamples = COMPARE_RESAMPLES,
): Comparison {
  const byId = new Map(base.cases.map((c) => [c.case_id, c]));
  const pairs = head.cases.filter((c) => byId.has(c.case_id)).map((h) => [byId.get(h.case_id)!, h] as const);
  const line = (c: CompareCase) => ({ case_id: c.case_id, question: c.question, category: c.category });
  const newly_failed = pairs.filter(([b, h]) => b.hit === true && h.hit === false).map(([, h]) => line(h));
  const newly_passed = pairs.filter(([b, h]) => b.hit === false && h.hit === true).map(([, h]) => line(h));
  const deltas = METRIC_NAMES.map((m) => metricDelta(m, pairs, resamples));
  return {
    base_run_id: base.id,
    head_run_id: head.id,
    paired_cases: pairs.length,
    test: "paired_bootstrap",
    newly_failed,
    newly_passed,
    deltas,
    regressed: deltas.some((d) => d.worse && QUALITY.includes(d.metric)),
    config_changes: base.setup && head.setup ? configChanges(base.setup, head.setup) : [],
  };
}

function metricDelta(metric: MetricName, pairs: readonly (readonly [CaseRow, CaseRow])[], resamples: number): MetricDelta {
  const s = metricStat[metric];
  // Only pairs where both runs have a value (a case scored in both).
  const vals = pairs.map(([b, h]) => [s.pick(b), s.pick(h)] as const).filter((p): p is readonly [number, number] => p[0] !== null && p[1] !== null);
  const base = s.stat(vals.map((p) => p[0]));
  const head = s.stat(vals.map((p) => p[1]));
  if (base === null || head === null) return { metric, base, head, delta: null, low: null, high: null, p_value: null, significant: false, worse: false };
  const delta = head - base;
  // A percentile of too few cases has no interval (metrics.ts): nothing can be called significant.
  if (s.kind.kind === "percentile" && vals.length < minCasesForPercentileInterval(s.kind.q)) {
    return { metric, base, head, delta, low: null, high: null, p_value: null, significant: false, worse: false };
  }
  const rand = seededRandom(seedOf(`compare:${metric}`));
  const n = vals.length;
  const diffs: number[] = [];
  // Each resample's statistic from its drawn indices (metrics.ts ResampledStat: the values
  // a copied and sorted resample gives, in linear time; 10 000 resamples of 1 000 cases
  // sorted twice each held the server's thread for seconds).
  const b = new ResampledStat(vals.map((p) => p[0]), s.kind);
  const h = new ResampledStat(vals.map((p) => p[1]), s.kind);
  let atOrBelow = 0;
  let atOrAbove = 0;
  for (let r = 0; r < resamples; r++) {
    b.reset();
    h.reset();
    for (let i = 0; i < n; i++) {
      const at = Math.floor(rand() * n);
      b.add(at);
      h.add(at);
    }
    const d = h.value() - b.value();
    diffs.push(d);
    if (d <= 0) atOrBelow++;
    if (d >= 0) atOrAbove++;
  }
  diffs.sort((x, y) => x - y);
  const low = percentile(diffs, 0.025)!;
  const high = percentile(diffs, 0.975)!;
  // No variation at all (identical runs): nothing to test.
  const significant = delta !== 0 && (low > 0 || high < 0);
  const p_value = delta === 0 ? 1 : Math.min(1, (2 * Math.min(atOrBelow, atOrAbove)) / resamples);
  const worse = significant && (COSTS.includes(metric) ? delta > 0 : delta < 0);
  return { metric, base, head, delta, low, high, p_value, significant, worse };
}
