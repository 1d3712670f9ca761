import { describe, expect, it } from "vitest";
import { compareRuns, configChanges, type CompareCase } from "@/lib/evals/compare";
import { bootstrapInterval, bootstrapStat, metricSet, metricStat, minCasesForPercentileInterval, percentile, runMetrics, runMetricsYielding, scoreCase, seededRandom, seedOf, type CaseRow, type MemoryFacts } from "@/lib/evals/metrics";
import { parseCsvCases, parseJsonlCases } from "@/lib/evals/parse-cases";
import { ZExpected, type EvalConfig } from "@/lib/evals/schemas";

// Every metric of lib/evals/metrics.ts against values worked out by hand (k = 3).

const C1 = "00000000-0000-4000-8000-0000000000c1";
const T1 = "00000000-0000-4000-8000-0000000000a1";
const T2 = "00000000-0000-4000-8000-0000000000a2";
const mem = (id: string, content = id, turn: string | null = null): MemoryFacts => ({ id, content, source_conversation_id: turn ? C1 : null, source_message_id: turn });
const ex = (e: Partial<{ memory_ids: string[]; texts: string[]; turns: { conversation_id: string; message_id: string }[] }>) => ZExpected.parse(e);
const M = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const L3 = 1 / Math.log2(3); // the discount of rank 2: 0.6309
const L4 = 1 / Math.log2(4); // rank 3: 0.5

describe("scoreCase", () => {
  it("several expected items, the first relevant at rank 2", () => {
    const r = scoreCase(ex({ memory_ids: [M(1), M(2)] }), [mem(M(3)), mem(M(1)), mem(M(2))], 3);
    expect(r.scores!.recall).toBe(1);
    expect(r.scores!.precision).toBeCloseTo(2 / 3, 12);
    expect(r.scores!.rr).toBe(0.5);
    // DCG = 1/log2(3) + 1/log2(4); IDCG = 1 + 1/log2(3)
    expect(r.scores!.ndcg).toBeCloseTo((L3 + L4) / (1 + L3), 12);
    expect(r.scores!.ndcg).toBeCloseTo(0.693426, 5);
    expect(r.hit).toBe(true);
    expect(r.expected_ranks.map((x) => x.rank)).toEqual([2, 3]);
  });

  it("fewer than k memories retrieved: precision still divides by k", () => {
    const r = scoreCase(ex({ texts: ["ESPRESSO"] }), [mem("a", "Likes espresso at noon")], 3);
    expect(r.scores).toEqual({ recall: 1, precision: 1 / 3, rr: 1, ndcg: 1 });
  });

  it("no expected item: kept, not scored", () => {
    const r = scoreCase(ex({}), [mem("a")], 3);
    expect(r.scores).toBeNull();
    expect(r.hit).toBeNull();
  });

  it("an evidence turn: only memories from that turn count, two of them count once in nDCG", () => {
    const miss = scoreCase(ex({ turns: [{ conversation_id: C1, message_id: T1 }] }), [mem("x", "x", T2)], 3);
    expect(miss.scores).toEqual({ recall: 0, precision: 0, rr: 0, ndcg: 0 });
    expect(miss.hit).toBe(false);
    const twice = scoreCase(ex({ turns: [{ conversation_id: C1, message_id: T1 }] }), [mem("a", "a", T1), mem("b", "b", T1), mem("c")], 3);
    expect(twice.scores).toEqual({ recall: 1, precision: 2 / 3, rr: 1, ndcg: 1 });
  });

  it("only the first k count; tied scores keep the retrieval's order (score, then id)", () => {
    const r = scoreCase(ex({ memory_ids: [M(9)] }), [mem(M(1)), mem(M(2)), mem(M(3)), mem(M(9))], 3);
    expect(r.scores).toEqual({ recall: 0, precision: 0, rr: 0, ndcg: 0 });
    expect(r.expected_ranks[0].rank).toBeNull();
  });
});

describe("aggregates", () => {
  const rows: CaseRow[] = [
    { category: "x", scores: { recall: 1, precision: 2 / 3, rr: 0.5, ndcg: (L3 + L4) / (1 + L3) }, hit: true, tokens: 10, latency_ms: 10 },
    { category: "x", scores: { recall: 1, precision: 1 / 3, rr: 1, ndcg: 1 }, hit: true, tokens: 20, latency_ms: 20 },
    { category: "y", scores: null, hit: null, tokens: 0, latency_ms: 30 },
    { category: "y", scores: { recall: 0, precision: 0, rr: 0, ndcg: 0 }, hit: false, tokens: 30, latency_ms: 40 },
  ];
  it("means over scored cases; tokens and latency over all", () => {
    const m = metricSet(rows, "overall", 200);
    expect(m.cases).toBe(4);
    expect(m.scored_cases).toBe(3);
    expect(m.recall.value).toBeCloseTo(2 / 3, 12);
    expect(m.precision.value).toBeCloseTo(1 / 3, 12);
    expect(m.mrr.value).toBeCloseTo(0.5, 12);
    expect(m.ndcg.value).toBeCloseTo((1 + (L3 + L4) / (1 + L3)) / 3, 12);
    expect(m.hit_rate.value).toBeCloseTo(2 / 3, 12);
    expect(m.tokens.value).toBe(15);
    expect(m.latency_p50.value).toBe(20);
    expect(m.latency_p95.value).toBe(40);
  });
  it("per category", () => {
    const m = runMetrics(rows, 200);
    expect(Object.keys(m.by_category)).toEqual(["x", "y"]);
    expect(m.by_category.x.recall.value).toBe(1);
    expect(m.by_category.y.recall.value).toBe(0);
    expect(m.by_category.y.scored_cases).toBe(1);
  });
  it("percentiles by nearest rank, ties included", () => {
    expect(percentile([5, 9, 5, 5], 0.5)).toBe(5);
    expect(percentile([5, 9, 5, 5], 0.95)).toBe(9);
    expect(percentile([], 0.5)).toBeNull();
  });
  it("the bootstrap interval is seeded (same input, same interval), holds the value, and is a point for constant values", () => {
    const xs = [0, 1, 1, 0, 1, 1, 1, 0, 1, 1];
    const mean = (v: readonly number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    const a = bootstrapInterval(xs, mean, 7);
    expect(bootstrapInterval(xs, mean, 7)).toEqual(a);
    expect(a.value).toBe(0.7);
    expect(a.low!).toBeLessThan(0.7);
    expect(a.high!).toBeGreaterThan(0.7);
    expect(a.low!).toBeGreaterThanOrEqual(0.3);
    expect(bootstrapInterval([1, 1, 1], mean, 7)).toEqual({ value: 1, low: 1, high: 1 });
  });
});

describe("resampled statistics without copying or sorting each resample", () => {
  // Values with ties (per-case recall is mostly 0 or 1; latencies repeat) and without.
  const data = (n: number, seed: number) => {
    const r = seededRandom(seed);
    return Array.from({ length: n }, () => (r() < 0.2 ? 0 : r() < 0.25 ? 1 : r() * 50));
  };
  const mean = (v: readonly number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  it("bootstrapStat gives the very interval bootstrapInterval gives by copying and sorting each resample", () => {
    for (const n of [1, 2, 7, 100, 333]) {
      const xs = data(n, n);
      expect(bootstrapStat(xs, { kind: "mean" }, 11, 300)).toEqual(bootstrapInterval(xs, mean, 11, 300));
      for (const q of [0.025, 0.5, 0.95, 1]) {
        const reference = bootstrapInterval(xs, (v) => percentile(v, q), 12, 300);
        const expected = n < minCasesForPercentileInterval(q) ? { value: reference.value, low: null, high: null } : reference;
        expect(bootstrapStat(xs, { kind: "percentile", q }, 12, 300)).toEqual(expected);
      }
    }
    expect(bootstrapStat([], { kind: "mean" }, 1)).toEqual({ value: null, low: null, high: null });
  });
  it("a percentile of too few cases has no interval, rather than the sample's [min, max] for p50 and p95 alike", () => {
    expect(minCasesForPercentileInterval(0.5)).toBe(6);
    expect(minCasesForPercentileInterval(0.95)).toBe(72);
    const rows = (n: number): CaseRow[] => Array.from({ length: n }, (_, i) => ({ category: null, scores: null, hit: null, tokens: 1, latency_ms: 2 + ((i * 7) % 11) * 3 }));
    const few = metricSet(rows(5));
    expect(few.latency_p50).toMatchObject({ low: null, high: null });
    expect(few.latency_p95).toMatchObject({ low: null, high: null });
    expect(few.latency_p95.value).toBe(32);
    const some = metricSet(rows(30));
    expect(some.latency_p50.low).not.toBeNull();
    expect(some.latency_p95).toMatchObject({ low: null, high: null });
    const many = metricSet(rows(200));
    expect([many.latency_p50.low, many.latency_p50.high]).not.toEqual([many.latency_p95.low, many.latency_p95.high]);
    expect(many.latency_p95.low).not.toBeNull();
  });
  it("runMetricsYielding gives runMetrics' metrics and lets the event loop in between", async () => {
    const rows: CaseRow[] = data(300, 3).map((v, i) => ({ category: i % 3 ? "a" : "b", scores: { recall: v > 1 ? 1 : v, precision: v / 10, rr: v > 1 ? 0.5 : v, ndcg: v / 5 }, hit: v > 0, tokens: 10 + i, latency_ms: v * 3 }));
    let turns = 0;
    const yielded = await runMetricsYielding(rows, async () => void turns++, 1000);
    expect(yielded).toEqual(runMetrics(rows, 1000));
    expect(turns).toBeGreaterThan(8 * 3);
  });
});

describe("compareRuns (paired bootstrap)", () => {
  const runOf = (hits: boolean[]): CompareCase[] =>
    hits.map((h, i) => ({ case_id: `c${i}`, question: `q${i}`, category: null, hit: h, scores: { recall: h ? 1 : 0, precision: h ? 0.1 : 0, rr: h ? 1 : 0, ndcg: h ? 1 : 0 }, tokens: 10, latency_ms: 5 }));
  it("a change that breaks half the cases is more than noise and lists them", () => {
    const base = runOf(Array(30).fill(true));
    const head = runOf(Array.from({ length: 30 }, (_, i) => i % 2 === 0));
    const c = compareRuns({ id: "a", cases: base }, { id: "b", cases: head }, 2000);
    const recall = c.deltas.find((d) => d.metric === "recall")!;
    expect(recall.delta).toBeCloseTo(-0.5, 12);
    expect(recall.significant).toBe(true);
    expect(recall.worse).toBe(true);
    expect(recall.high!).toBeLessThan(0);
    expect(c.regressed).toBe(true);
    expect(c.newly_failed.map((x) => x.case_id)).toEqual(head.filter((h) => !h.hit).map((h) => h.case_id));
    expect(c.newly_passed).toEqual([]);
  });
  it("the paired intervals and p-values are those of copying and sorting each resample", () => {
    // A reference written the plain way: each resample copied, each statistic recomputed on it.
    const reference = (metric: "recall" | "latency_p95", base: CompareCase[], head: CompareCase[], resamples: number) => {
      const s = metricStat[metric];
      const vals = base.map((b, i) => [s.pick(b)!, s.pick(head[i])!] as const);
      const rand = seededRandom(seedOf(`compare:${metric}`));
      const n = vals.length;
      const diffs: number[] = [];
      let below = 0;
      let above = 0;
      for (let r = 0; r < resamples; r++) {
        const pick = Array.from({ length: n }, () => vals[Math.floor(rand() * n)]);
        const d = s.stat(pick.map((p) => p[1]))! - s.stat(pick.map((p) => p[0]))!;
        diffs.push(d);
        if (d <= 0) below++;
        if (d >= 0) above++;
      }
      diffs.sort((x, y) => x - y);
      return { low: percentile(diffs, 0.025), high: percentile(diffs, 0.975), p: Math.min(1, (2 * Math.min(below, above)) / resamples) };
    };
    const r = seededRandom(5);
    const mk = (p: number) => Array.from({ length: 120 }, (_, i) => ({ ...runOf([r() < p])[0], case_id: `c${i}`, latency_ms: Math.floor(r() * 12) }));
    const base = mk(0.8);
    const head = mk(0.6).map((c) => ({ ...c, scores: { ...c.scores!, recall: c.hit ? 1 : 0 } }));
    const c = compareRuns({ id: "a", cases: base }, { id: "b", cases: head }, 700);
    for (const m of ["recall", "latency_p95"] as const) {
      const d = c.deltas.find((x) => x.metric === m)!;
      const ref = reference(m, base, head, 700);
      expect({ low: d.low, high: d.high, p: d.p_value }).toEqual(ref);
    }
  });
  it("latency percentiles of too few paired cases get no interval and are never significant", () => {
    const slow = (ms: number) => runOf([true, true, true]).map((c, i) => ({ ...c, latency_ms: ms + i * 10 }));
    const c = compareRuns({ id: "a", cases: slow(300) }, { id: "b", cases: slow(100) }, 500);
    for (const m of ["latency_p50", "latency_p95"] as const) {
      expect(c.deltas.find((d) => d.metric === m)).toMatchObject({ delta: -200, low: null, high: null, p_value: null, significant: false, worse: false });
    }
    expect(c.deltas.find((d) => d.metric === "tokens")!.low).not.toBeNull();
  });
  it("one flipped case of 30 is noise; identical runs are no difference", () => {
    const base = runOf(Array(30).fill(true));
    const one = compareRuns({ id: "a", cases: base }, { id: "b", cases: runOf([false, ...Array(29).fill(true)]) }, 2000);
    expect(one.deltas.find((d) => d.metric === "recall")!.significant).toBe(false);
    expect(one.regressed).toBe(false);
    expect(one.newly_failed).toHaveLength(1);
    const same = compareRuns({ id: "a", cases: base }, { id: "b", cases: base }, 500);
    expect(same.deltas.every((d) => !d.significant && (d.delta === 0 || d.delta === null))).toBe(true);
  });
});

describe("configChanges: runs compared like with like", () => {
  const setup = (config: Partial<EvalConfig>, model = "lexical-hash-v1") => ({ config: { k: 10, status: "active" as const, ...config }, embedding_model: model });
  it("names each field the runs' retrieval differs in, with both values; defaults and order do not count as differences", () => {
    expect(configChanges(setup({}), setup({ weights: { similarity: 0.6 }, memory_types: undefined }))).toEqual([]);
    expect(configChanges(setup({ memory_types: ["fact", "skill"] }), setup({ memory_types: ["skill", "fact"] }))).toEqual([]);
    expect(configChanges(setup({ as_of: "2026-01-01T00:00:00Z" }), setup({ as_of: "2026-01-01T01:00:00+01:00" }))).toEqual([]);
    expect(configChanges(setup({ k: 3 }), setup({ k: 10, weights: { similarity: 0 }, min_score: 0.2, status: "archived", as_of: "2026-01-01T00:00:00Z" }, "other-model"))).toEqual([
      { field: "k", base: "3", head: "10" },
      { field: "weights", base: '{"similarity":0.6,"recency":0.2,"importance":0.2}', head: '{"similarity":0,"recency":0.2,"importance":0.2}' },
      { field: "min_score", base: null, head: "0.2" },
      { field: "status", base: "active", head: "archived" },
      { field: "embedding_model", base: "lexical-hash-v1", head: "other-model" },
      { field: "as_of", base: null, head: "2026-01-01T00:00:00.000Z" },
    ]);
  });
  it("compareRuns carries them when it knows the runs' setup", () => {
    const cases: CompareCase[] = [{ case_id: "c", question: "q", category: null, hit: true, scores: { recall: 1, precision: 1, rr: 1, ndcg: 1 }, tokens: 1, latency_ms: 1 }];
    expect(compareRuns({ id: "a", cases, setup: setup({ k: 3 }) }, { id: "b", cases, setup: setup({ k: 5 }) }, 10).config_changes).toEqual([{ field: "k", base: "3", head: "5" }]);
  });
});

describe("case files", () => {
  it("JSONL and CSV read the same case; bad records are named by line and field", () => {
    const j = parseJsonlCases(`{"user_id":"u1","question":"Where do I live?","expected":{"texts":["Berlin"]},"category":"fact","tags":["home"]}\n\n`);
    const c = parseCsvCases(`user_id,question,expected_texts,category,tags\nu1,"Where do I live?",Berlin,fact,home\n`);
    expect(c).toEqual(j);
    expect(() => parseJsonlCases(`{"user_id":"u1","question":"ok"}\n{"user_id":"u1"}\nnot json`)).toThrow(/line 2: question/);
    try {
      parseJsonlCases(`{"user_id":"u1","question":"ok"}\n{"user_id":"u1"}\nnot json`);
    } catch (e) {
      expect((e as { details: { field: string }[] }).details.map((d) => d.field)).toEqual(["line 2: question", "line 3"]);
    }
    expect(() => parseCsvCases(`user_id,question,expected_memory_ids\nu1,q,not-a-uuid\n`)).toThrow(/line 2: expected\.memory_ids\.0/);
  });
});
