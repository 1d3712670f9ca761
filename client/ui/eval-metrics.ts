// The evals' metric names as people read them, in one place: the chart, the runs table and the
// comparison of two runs say "Recall@k" and "Latency p95 (ms)", never the API's `hit_rate`.

export const METRIC_LABELS = {
  recall: "Recall@k",
  precision: "Precision@k",
  mrr: "MRR",
  ndcg: "nDCG@k",
  hit_rate: "Hit rate",
  tokens: "Tokens per case",
  latency_p50: "Latency p50 (ms)",
  latency_p95: "Latency p95 (ms)",
} as const;

export type MetricName = keyof typeof METRIC_LABELS;

export const metricLabel = (name: string): string => METRIC_LABELS[name as MetricName] ?? name;
