import "server-only";
import { randomUUID } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import { activeProvider } from "../embeddings/active-model";
import { ValidationError } from "../errors/domain-errors";
import { searchMemoriesAsOf } from "../memories/as-of";
import { parseAsOf } from "../memories/as-of/parse-as-of";
import type { Breakdown, Memory } from "../memories/schemas";
import { searchMemories } from "../memories/search-memories";
import { countTextTokens } from "../tokens/count-tokens";
import { runMetrics, scoreCase, type MemoryFacts } from "./metrics";
import { getRun } from "./runs-db";
import type { EvalCase, EvalConfig, EvalRun, RetrievedItem } from "./schemas";
import { listCases, requireSet } from "./sets-db";

// A run: every case of a set through the product's own retrieval under one configuration,
// each case scored (metrics.ts), the whole stored in one transaction.
//
// An evaluation is a read. It searches without logging the retrieval and without marking
// anything accessed (searchMemories with log: false; an as_of run reads the past and
// writes nothing): a run must not change the recency term of the very searches it
// measures, nor fill memories' access logs with test questions.

/** Larger sets are split over several runs (a run answers within one request). */
export const MAX_RUN_CASES = 5000;
const WRITE_CHUNK = 250;
/** Tokens of retrieved memories are counted in this encoding (GPT-4o's). */
const TOKEN_ENCODING = "o200k_base";

type Retrieved = { memory: Memory; breakdown: Breakdown };
type CaseResult = {
  c: EvalCase;
  hit: boolean | null;
  scores: ReturnType<typeof scoreCase>["scores"];
  expected_ranks: ReturnType<typeof scoreCase>["expected_ranks"];
  retrieved: RetrievedItem[];
  latency_ms: number;
  tokens: number;
};

export async function runEval(sql: ProjectSql, setId: string, input: { config: EvalConfig; label?: string }): Promise<EvalRun> {
  const set = await requireSet(sql, setId);
  if (set.case_count > MAX_RUN_CASES) {
    throw new ValidationError(`A run evaluates at most ${MAX_RUN_CASES} cases; this set holds ${set.case_count}`, [{ field: "set_id", message: "too many cases" }], "unprocessable");
  }
  const config = input.config;
  const asOf = config.as_of === undefined ? undefined : parseAsOf(config.as_of);
  let model: string | null = null;
  if (asOf === undefined) {
    model = (await activeProvider(sql)).model;
    checkModel(config, model);
  }
  const cases = await listCases(sql, setId);
  const started = performance.now();
  const results: CaseResult[] = [];
  for (const c of cases) {
    const t0 = performance.now();
    const search = { query: c.question, k: config.k, memory_types: config.memory_types, weights: config.weights, min_score: config.min_score, status: config.status };
    let retrieved: Retrieved[];
    if (asOf !== undefined) {
      const r = await searchMemoriesAsOf(sql, { userId: c.user_id, asOf, input: search });
      if (model === null) {
        model = r.embedding_model;
        checkModel(config, model);
      }
      retrieved = r.data;
    } else {
      const r = await searchMemories(sql, c.user_id, { ...search, dry_run: true }, { recordAccess: false, log: false });
      retrieved = r.data;
    }
    const latency = performance.now() - t0;
    results.push(await scoreOne(sql, c, retrieved, config.k, latency));
    // The embedded database answers on this thread: let other requests in between cases.
    await new Promise((r) => setImmediate(r));
  }
  const duration = performance.now() - started;
  const metrics = runMetrics(results.map((r) => ({ category: r.c.category, scores: r.scores, hit: r.hit, tokens: r.tokens, latency_ms: r.latency_ms })));
  const runId = randomUUID();
  await sql.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO eval_runs (project_id, id, set_id, label, config, metrics, case_count, duration_ms, embedding_model) VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8, $9)`,
      [tx.projectId, runId, setId, input.label ?? null, JSON.stringify(config), JSON.stringify(metrics), results.length, duration, model ?? (await activeProvider(tx)).model],
    );
    for (let i = 0; i < results.length; i += WRITE_CHUNK) {
      const rows = results.slice(i, i + WRITE_CHUNK).map((r) => ({
        case_id: r.c.id,
        category: r.c.category,
        hit: r.hit,
        scores: r.scores,
        expected_ranks: r.expected_ranks,
        retrieved: r.retrieved,
        latency_ms: r.latency_ms,
        tokens: r.tokens,
      }));
      await tx.query(
        `INSERT INTO eval_run_cases (project_id, run_id, case_id, category, hit, scores, expected_ranks, retrieved, latency_ms, tokens)
         SELECT $1, $2, x.case_id, x.category, x.hit, coalesce(x.scores, 'null'::jsonb), x.expected_ranks, x.retrieved, x.latency_ms, x.tokens
           FROM jsonb_to_recordset($3::jsonb) AS x(case_id uuid, category text, hit boolean, scores jsonb, expected_ranks jsonb, retrieved jsonb, latency_ms float8, tokens int)`,
        [tx.projectId, runId, JSON.stringify(rows)],
      );
    }
  });
  return getRun(sql, runId);
}

function checkModel(config: EvalConfig, model: string) {
  if (config.embedding_model !== undefined && config.embedding_model !== model) {
    throw new ValidationError(
      `Retrieval reads ${model}'s vectors; a run under ${config.embedding_model} needs its vectors: configure it and let the re-embedding finish first`,
      [{ field: "config.embedding_model", message: `not the active model (${model})` }],
      "unprocessable",
    );
  }
}

async function scoreOne(sql: ProjectSql, c: EvalCase, retrieved: Retrieved[], k: number, latency: number): Promise<CaseResult> {
  const ids = retrieved.map((r) => r.memory.id);
  // Provenance (the source turn) is not part of the memory's public shape: read it here.
  const sources = ids.length
    ? await sql.query<{ id: string; source_session_id: string | null; source_message_id: string | null }>(
        `SELECT id, source_session_id, source_message_id FROM memories WHERE project_id = $1 AND id = ANY($2::uuid[])`,
        [sql.projectId, ids],
      )
    : [];
  const src = new Map(sources.map((s) => [s.id, s]));
  const facts: MemoryFacts[] = retrieved.map((r) => ({
    id: r.memory.id,
    content: r.memory.content,
    source_conversation_id: src.get(r.memory.id)?.source_session_id ?? null,
    source_message_id: src.get(r.memory.id)?.source_message_id ?? null,
  }));
  const outcome = scoreCase(c.expected, facts, k);
  const tokens = retrieved.reduce((n, r) => n + countTextTokens(r.memory.content, TOKEN_ENCODING), 0);
  return {
    c,
    hit: outcome.hit,
    scores: outcome.scores,
    expected_ranks: outcome.expected_ranks,
    retrieved: retrieved.slice(0, k).map((r, i) => ({
      rank: i + 1,
      memory_id: r.memory.id,
      content: r.memory.content,
      memory_type: r.memory.memory_type,
      relevant: outcome.relevant[i] ?? false,
      source_conversation_id: facts[i].source_conversation_id,
      source_message_id: facts[i].source_message_id,
      breakdown: r.breakdown,
    })),
    latency_ms: latency,
    tokens,
  };
}
