import { z } from "zod";
import { ZBreakdown, ZMemoryStatus, ZMemoryType, ZWeights } from "../memories/schemas";
import { ZUserIdInput } from "../http/user-id";

// Contracts of memory evals (issue 23), shared by routes, OpenAPI, the CLI and the UI.
// Client-safe: zod only.

export const ZEvidenceTurn = z
  .object({
    conversation_id: z.uuid(),
    message_id: z.uuid(),
    labelled: z
      .enum(["user", "assistant", "both"])
      .optional()
      .describe("Which half of the turn (its question, its answer) the benchmark labels as evidence (LongMemEval's has_answer); absent: the turn as a whole. The longmemeval protocol counts only turns labelled on the user's side."),
  })
  .strict();

/**
 * What a right answer is. Each listed item is one target: a memory id (that memory), an
 * evidence turn (any memory whose source turn it is) or a text (any memory whose content
 * contains it, case-insensitively). A case without targets is kept but not scored.
 */
export const ZExpected = z
  .object({
    memory_ids: z.array(z.uuid()).max(100).default([]),
    turns: z.array(ZEvidenceTurn).max(100).default([]),
    texts: z.array(z.string().trim().min(1).max(2000)).max(100).default([]),
  })
  .strict();
export type Expected = z.infer<typeof ZExpected>;

const ZTag = z.string().trim().min(1).max(100);

export const ZEvalCaseInput = z
  .object({
    user_id: ZUserIdInput,
    question: z.string().trim().min(1).max(5000),
    expected: ZExpected.default({ memory_ids: [], turns: [], texts: [] }),
    category: z.string().trim().min(1).max(100).nullish(),
    tags: z.array(ZTag).max(50).default([]),
    external_id: z.string().trim().min(1).max(200).nullish().describe("The case's id in its source (re-imports skip it)."),
  })
  .strict();
export type EvalCaseInput = z.infer<typeof ZEvalCaseInput>;

export const ZEvalCase = z.object({
  id: z.string(),
  set_id: z.string(),
  user_id: z.string(),
  question: z.string(),
  expected: ZExpected,
  category: z.string().nullable(),
  tags: z.array(z.string()),
  external_id: z.string().nullable(),
  created_at: z.string(),
});
export type EvalCase = z.infer<typeof ZEvalCase>;

export const ZEvalSetCreate = z
  .object({
    name: z.string().trim().min(1).max(200).regex(/^[^\s/][^/]*$/, "no slash, not starting with a space"),
    description: z.string().max(2000).nullish(),
  })
  .strict();

export const ZEvalSet = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  case_count: z.number().int(),
  run_count: z.number().int(),
  last_run: z.object({ id: z.string(), created_at: z.string(), recall: z.number().nullable() }).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type EvalSet = z.infer<typeof ZEvalSet>;

export const MAX_CASES_PER_REQUEST = 1000;
export const ZCasesCreate = z.object({ cases: z.array(ZEvalCaseInput).min(1).max(MAX_CASES_PER_REQUEST) }).strict();

export const CASE_FILE_FORMATS = ["jsonl", "csv"] as const;
export const BENCHMARK_FORMATS = ["longmemeval", "locomo"] as const;
const ZUserPrefix = z.string().trim().min(1).max(100).optional().describe("LongMemEval/LoCoMo: the end-user id prefix (default the format's name).");
const ZExtraction = z
  .enum(["turns", "rules", "chat"])
  .default("turns")
  .describe(
    "LongMemEval/LoCoMo: how turns become memories: every turn verbatim (turns), Memscope's rule-based extractor (rules), or the configured chat model (chat: MEMSCOPE_CHAT_BASE_URL and MEMSCOPE_CHAT_MODEL; 409 chat_not_configured without one), which reads each session and names the turn each memory comes from.",
  );

const ZImportDryRun = z.boolean().default(false).describe("Read the whole file and answer 200 with what it holds and every defect (LongMemEval/LoCoMo), writing nothing.");

export const ZCaseImport = z
  .object({
    format: z.enum([...CASE_FILE_FORMATS, ...BENCHMARK_FORMATS]),
    content: z.string().min(1).describe("The file's text. JSONL: one case (the case body) per line. CSV: a header row with user_id, question, expected_memory_ids, expected_texts, expected_turns (conversation_id:message_id), category, tags; lists separated by |. LongMemEval / LoCoMo: the published JSON file."),
    user_prefix: ZUserPrefix,
    extraction: ZExtraction,
    dry_run: ZImportDryRun,
  })
  .strict();
export type CaseImport = z.infer<typeof ZCaseImport>;

/** POST /evals/sets/{id}/import/upload: the file is the body; these are its query parameters. */
export const ZBenchmarkUploadQuery = z
  .object({
    format: z.enum(BENCHMARK_FORMATS),
    user_prefix: ZUserPrefix,
    extraction: ZExtraction,
    dry_run: z
      .enum(["true", "false"])
      .default("false")
      .transform((v) => v === "true")
      .describe("true: read the whole file and answer 200 with what it holds and every defect, writing nothing."),
  })
  .strict();
export type BenchmarkUploadQuery = z.infer<typeof ZBenchmarkUploadQuery>;

export const MAX_LISTED_DEFECTS = 1000;
export const ZImportDefect = z.object({
  record: z.string().describe("The record, by its position and id (\"record 3 (question_id q7)\")."),
  external_id: z.string().nullable().describe("The question's case (its external_id); null for a record that could not be read."),
  field: z.string(),
  message: z.string(),
  unscorable: z.boolean().describe("The question has no evidence left: no run can score it (its case is tagged \"unscorable\"); a record that could not be read is not imported at all."),
});
export const ZImportSummary = z.object({
  cases: z.number().int(),
  skipped: z.number().int(),
  conversations: z.number().int(),
  turns: z.number().int(),
  memories: z.number().int(),
  dry_run: z.boolean().describe("Nothing was written: the counts are what the file holds (records already imported included, skipped 0)."),
  defects: z.array(ZImportDefect).describe(`LongMemEval/LoCoMo: every reference that names nothing (an answer_session_ids session not in the haystack, an evidence id no turn has) and every question left without evidence, per question; in a dry run also every record that cannot be read. The first ${MAX_LISTED_DEFECTS}.`),
  defect_count: z.number().int(),
});
export type ImportSummaryOut = z.infer<typeof ZImportSummary>;

export const EVAL_PROTOCOLS = ["memscope", "longmemeval", "locomo"] as const;
export type EvalProtocol = (typeof EVAL_PROTOCOLS)[number];

/** The retrieval a run evaluates under. */
export const ZEvalConfig = z
  .object({
    k: z.number().int().min(1).max(100).default(10),
    protocol: z
      .enum(EVAL_PROTOCOLS)
      .default("memscope")
      .describe(
        "How cases are scored. memscope: every expected item is a target, any memory matching it counts. longmemeval / locomo: as that benchmark's own evaluation code scores retrieval (README, Evals: which questions it leaves out, which turns it indexes, turn-level recall), so a figure compares with published ones.",
      ),
    weights: ZWeights.partial().optional(),
    min_score: z.number().min(-10).max(10).optional(),
    memory_types: z.array(ZMemoryType).min(1).optional(),
    status: ZMemoryStatus.default("active"),
    embedding_model: z.string().trim().min(1).max(200).optional().describe("The model the run must read (the active one; a run under another model answers 422: re-embed first)."),
    as_of: z.string().max(64).optional().describe("ISO 8601 instant with offset: evaluate the memory as it was then."),
  })
  .strict();
export type EvalConfig = z.infer<typeof ZEvalConfig>;

export const ZRunCreate = z
  .object({
    config: ZEvalConfig.default({ k: 10, protocol: "memscope", status: "active" }),
    label: z.string().trim().min(1).max(200).optional(),
  })
  .strict();

export const METRIC_NAMES = ["recall", "precision", "mrr", "ndcg", "hit_rate", "tokens", "latency_p50", "latency_p95"] as const;
export type MetricName = (typeof METRIC_NAMES)[number];

export const ZInterval = z.object({
  value: z.number().nullable(),
  low: z.number().nullable().describe("95% bootstrap interval; null with no value, or for a percentile of too few cases to bound it (6 for p50, 72 for p95)."),
  high: z.number().nullable(),
});
export type Interval = z.infer<typeof ZInterval>;
export const ZMetricSet = z.object({
  cases: z.number().int(),
  scored_cases: z.number().int().describe("Cases with at least one expected item (the others count for tokens and latency only)."),
  recall: ZInterval,
  precision: ZInterval,
  mrr: ZInterval,
  ndcg: ZInterval,
  hit_rate: ZInterval,
  tokens: ZInterval,
  latency_p50: ZInterval,
  latency_p95: ZInterval,
});
export type MetricSet = z.infer<typeof ZMetricSet>;
export const ZRunMetrics = z.object({ overall: ZMetricSet, by_category: z.record(z.string(), ZMetricSet) });
export type RunMetrics = z.infer<typeof ZRunMetrics>;

export const ZEvalRun = z.object({
  id: z.string(),
  set_id: z.string(),
  label: z.string().nullable(),
  config: ZEvalConfig,
  metrics: ZRunMetrics,
  k: z.number().int(),
  case_count: z.number().int(),
  failed_cases: z.number().int(),
  duration_ms: z.number(),
  embedding_model: z.string(),
  created_at: z.string(),
});
export type EvalRun = z.infer<typeof ZEvalRun>;

export const ZCaseScores = z.object({ recall: z.number(), precision: z.number(), rr: z.number(), ndcg: z.number() });
export type CaseScores = z.infer<typeof ZCaseScores>;

export const ZExpectedRank = z.object({
  kind: z.enum(["memory", "turn", "text"]),
  target: z.string().describe("The memory id, conversation_id:message_id, or the text."),
  rank: z.number().int().nullable().describe("1-based rank of the first retrieved memory that matches it within k; null when none did."),
});
export type ExpectedRank = z.infer<typeof ZExpectedRank>;

export const ZRetrievedItem = z.object({
  rank: z.number().int(),
  memory_id: z.string(),
  content: z.string(),
  memory_type: ZMemoryType,
  relevant: z.boolean(),
  source_conversation_id: z.string().nullable(),
  source_message_id: z.string().nullable(),
  breakdown: ZBreakdown,
});
export type RetrievedItem = z.infer<typeof ZRetrievedItem>;

export const ZRunCase = z.object({
  case_id: z.string(),
  user_id: z.string(),
  question: z.string(),
  category: z.string().nullable(),
  hit: z.boolean().nullable().describe("At least one expected item within k; null for a case without expected items."),
  unscorable: z.boolean().describe('The benchmark file left the question without evidence (its case is tagged "unscorable"; the import named the defect): no run can score it.'),
  scores: ZCaseScores.nullable(),
  expected_ranks: z.array(ZExpectedRank),
  latency_ms: z
    .number()
    .describe("The case's retrieval time: a run searches a user's cases together, so this is the case's own statements (its full-text candidates, its ranking) plus an equal share of the work its batch shared (embedding, the user's exact vector candidates, loading the memories)."),
  tokens: z.number().int(),
});
export type RunCase = z.infer<typeof ZRunCase>;
export const ZExpectedMemory = z.object({
  id: z.string(),
  content: z.string().nullable().describe("The memory's text now; null when it no longer exists."),
  status: z.string().nullable(),
});
export const ZRunCaseDetail = ZRunCase.extend({
  expected: ZExpected,
  retrieved: z.array(ZRetrievedItem),
  expected_memories: z.array(ZExpectedMemory).describe("The expected memories (expected.memory_ids) with their text, so a reader sees what was expected, not an id."),
});

export const ZMetricDelta = z.object({
  metric: z.enum(METRIC_NAMES),
  base: z.number().nullable(),
  head: z.number().nullable(),
  delta: z.number().nullable(),
  low: z.number().nullable().describe("95% paired-bootstrap interval of the delta (head minus base)."),
  high: z.number().nullable(),
  p_value: z.number().nullable().describe("Two-sided paired-bootstrap p-value of no difference."),
  significant: z.boolean().describe("The interval excludes 0: more than noise."),
  worse: z.boolean().describe("Significant and in the bad direction (lower quality, or more tokens or latency)."),
});
export type MetricDelta = z.infer<typeof ZMetricDelta>;

export const ZComparison = z.object({
  base_run_id: z.string(),
  head_run_id: z.string(),
  paired_cases: z.number().int(),
  test: z.literal("paired_bootstrap").describe("Paired bootstrap over the cases both runs scored (10 000 resamples, seeded)."),
  newly_failed: z.array(z.object({ case_id: z.string(), question: z.string(), category: z.string().nullable() })),
  newly_passed: z.array(z.object({ case_id: z.string(), question: z.string(), category: z.string().nullable() })),
  deltas: z.array(ZMetricDelta),
  regressed: z.boolean().describe("A quality metric (recall, precision, MRR, nDCG, hit rate) is significantly worse."),
  config_changes: z
    .array(z.object({ field: z.string(), base: z.string().nullable(), head: z.string().nullable() }))
    .describe("Where the two runs' retrieval differs (k, weights, min_score, memory_types, status, embedding_model, as_of; values as JSON, null when unset): their scores do not compare like with like. Empty when alike."),
});
export type Comparison = z.infer<typeof ZComparison>;
