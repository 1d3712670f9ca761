import "server-only";
import { randomUUID } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import { activeProvider } from "../embeddings/active-model";
import { ConflictError, DomainError, NotFoundError, ValidationError } from "../errors/domain-errors";
import { searchMemoriesAsOf } from "../memories/as-of";
import { parseAsOf } from "../memories/as-of/parse-as-of";
import type { Breakdown, Memory } from "../memories/schemas";
import { searchMemories } from "../memories/search-memories";
import { countTextTokens } from "../tokens/count-tokens";
import { runMetrics, scoreCase, type MemoryFacts } from "./metrics";
import { getRun } from "./runs-db";
import type { EvalCase, EvalConfig, EvalRun, RetrievedItem } from "./schemas";
import { casePage, requireSet } from "./sets-db";
import { yieldingSql } from "./yielding-sql";

// A run: every case of a set through the product's own retrieval under one configuration,
// each case scored (metrics.ts).
//
// An evaluation is a read. It searches without logging the retrieval and without marking
// anything accessed (searchMemories with log: false; an as_of run reads the past and
// writes nothing): a run must not change the recency term of the very searches it
// measures, nor fill memories' access logs with test questions.
//
// Its cost is bounded so that the server goes on answering meanwhile (on the embedded
// database every statement runs on the server's one thread):
// - the set is read a page of PAGE cases at a time, and each page's results are written
//   when it is done: only the small per-case scores of earlier pages stay in memory (the
//   metrics need them), never the retrieved memories of the whole run;
// - a page's provenance (which turn each retrieved memory came from) is one statement;
// - the run yields to the event loop before each of its statements (yielding-sql.ts) and
//   between cases, so a request that arrives meanwhile waits for at most one statement.
// The run's row is written first with metrics JSON null (runs-db.ts shows no such run) and
// receives its metrics at the end; a run that fails is deleted with what it wrote, so no
// half-written run is ever visible. While its heartbeat (the row's duration_ms, the time
// run so far) is fresh, another run of the same set is refused (409 eval_run_in_progress,
// on any instance: the check reads the database); a row whose heartbeat stopped (a server
// that died mid-run) is removed by the next run of its set.

/** Larger sets are split over several runs. */
export const MAX_RUN_CASES = 5000;
/** Cases read, searched and written together. */
const PAGE = 50;
/** A run row whose heartbeat is older than this is a dead run's (a page takes seconds, not minutes). */
const STALE_AFTER_S = 120;
/** Tokens of retrieved memories are counted in this encoding (GPT-4o's). */
const TOKEN_ENCODING = "o200k_base";

type Retrieved = { memory: Memory; breakdown: Breakdown };
type Source = { source_session_id: string | null; source_message_id: string | null };
/** What the metrics need of a case, kept for the whole run (small). */
type CaseScore = { category: string | null; scores: ReturnType<typeof scoreCase>["scores"]; hit: boolean | null; tokens: number; latency_ms: number };
type CaseRow = CaseScore & { case_id: string; expected_ranks: ReturnType<typeof scoreCase>["expected_ranks"]; retrieved: RetrievedItem[] };

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

export async function runEval(db: ProjectSql, setId: string, input: { config: EvalConfig; label?: string }): Promise<EvalRun> {
  const sql = yieldingSql(db);
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
  const runId = await claimRun(sql, setId, config, input.label ?? null, model);
  const started = performance.now();
  try {
    const scores: CaseScore[] = [];
    let after: { created_at: string; id: string } | null = null;
    while (scores.length < MAX_RUN_CASES) {
      const cases = await casePage(sql, setId, after, Math.min(PAGE, MAX_RUN_CASES - scores.length));
      if (!cases.length) break;
      after = cases[cases.length - 1];
      const searched: { c: EvalCase; retrieved: Retrieved[]; latency: number }[] = [];
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
          retrieved = (await searchMemories(sql, c.user_id, { ...search, dry_run: true }, { recordAccess: false, log: false })).data;
        }
        searched.push({ c, retrieved: retrieved.slice(0, config.k), latency: performance.now() - t0 });
        await yieldToLoop();
      }
      const sources = await sourcesOf(sql, searched.flatMap((s) => s.retrieved.map((r) => r.memory.id)));
      const rows = searched.map((s) => scoreOne(s.c, s.retrieved, sources, config.k, s.latency));
      await writePage(sql, runId, rows, performance.now() - started);
      for (const r of rows) scores.push({ category: r.category, scores: r.scores, hit: r.hit, tokens: r.tokens, latency_ms: r.latency_ms });
      await yieldToLoop();
    }
    const metrics = runMetrics(scores);
    await sql.query(
      `UPDATE eval_runs SET metrics = $3::jsonb, case_count = $4, duration_ms = $5, embedding_model = $6 WHERE project_id = $1 AND id = $2`,
      [sql.projectId, runId, JSON.stringify(metrics), scores.length, performance.now() - started, model ?? (await activeProvider(sql)).model],
    );
  } catch (e) {
    // Nothing of a failed run stays (its cases go with it: ON DELETE CASCADE).
    await sql.query(`DELETE FROM eval_runs WHERE project_id = $1 AND id = $2`, [sql.projectId, runId]).catch(() => {});
    // The set deleted meanwhile (its runs with it): the write that failed is no fault of ours.
    if (!(e instanceof DomainError)) {
      const [still] = await sql.query(`SELECT 1 FROM eval_sets WHERE project_id = $1 AND id = $2`, [sql.projectId, setId]).catch(() => [1]);
      if (!still) throw new NotFoundError("Eval set", setId);
    }
    throw e;
  }
  return getRun(sql, runId);
}

/**
 * The run's row, unless a live run of the set holds it (409). The set's row is locked for
 * the check and the insert, so two requests (on any instance) cannot both pass.
 */
async function claimRun(sql: ProjectSql, setId: string, config: EvalConfig, label: string | null, model: string | null): Promise<string> {
  const runId = randomUUID();
  await sql.transaction(async (tx) => {
    await tx.query(`SELECT id FROM eval_sets WHERE project_id = $1 AND id = $2 FOR UPDATE`, [tx.projectId, setId]);
    const [live] = await tx.query<{ id: string }>(
      `SELECT id FROM eval_runs WHERE project_id = $1 AND set_id = $2 AND jsonb_typeof(metrics) = 'null'
          AND created_at + make_interval(secs => duration_ms / 1000 + $3) > now()
        LIMIT 1`,
      [tx.projectId, setId, STALE_AFTER_S],
    );
    if (live) throw new ConflictError("This eval set is being run right now: wait for that run to end, then start yours", [{ field: "id", message: "a run of this set is in progress" }], "eval_run_in_progress");
    await tx.query(`DELETE FROM eval_runs WHERE project_id = $1 AND set_id = $2 AND jsonb_typeof(metrics) = 'null'`, [tx.projectId, setId]);
    await tx.query(
      `INSERT INTO eval_runs (project_id, id, set_id, label, config, metrics, case_count, duration_ms, embedding_model) VALUES ($1, $2, $3, $4, $5::jsonb, 'null'::jsonb, 0, 0, $6)`,
      [tx.projectId, runId, setId, label, JSON.stringify(config), model ?? ""],
    );
  });
  return runId;
}

/** Which turn each memory came from (provenance is not part of the memory's public shape). */
async function sourcesOf(sql: ProjectSql, ids: string[]): Promise<Map<string, Source>> {
  if (!ids.length) return new Map();
  const rows = await sql.query<Source & { id: string }>(
    `SELECT id, source_session_id, source_message_id FROM memories WHERE project_id = $1 AND id = ANY($2::uuid[])`,
    [sql.projectId, [...new Set(ids)]],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** A page's results, and the run's heartbeat, in one transaction. */
async function writePage(sql: ProjectSql, runId: string, rows: CaseRow[], elapsedMs: number) {
  await sql.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO eval_run_cases (project_id, run_id, case_id, category, hit, scores, expected_ranks, retrieved, latency_ms, tokens)
       SELECT $1, $2, x.case_id, x.category, x.hit, coalesce(x.scores, 'null'::jsonb), x.expected_ranks, x.retrieved, x.latency_ms, x.tokens
         FROM jsonb_to_recordset($3::jsonb) AS x(case_id uuid, category text, hit boolean, scores jsonb, expected_ranks jsonb, retrieved jsonb, latency_ms float8, tokens int)
       ON CONFLICT DO NOTHING`,
      [tx.projectId, runId, JSON.stringify(rows)],
    );
    await tx.query(`UPDATE eval_runs SET duration_ms = $3, case_count = case_count + $4 WHERE project_id = $1 AND id = $2`, [tx.projectId, runId, elapsedMs, rows.length]);
  });
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

function scoreOne(c: EvalCase, retrieved: Retrieved[], sources: Map<string, Source>, k: number, latency: number): CaseRow {
  const facts: MemoryFacts[] = retrieved.map((r) => ({
    id: r.memory.id,
    content: r.memory.content,
    source_conversation_id: sources.get(r.memory.id)?.source_session_id ?? null,
    source_message_id: sources.get(r.memory.id)?.source_message_id ?? null,
  }));
  const outcome = scoreCase(c.expected, facts, k);
  const tokens = retrieved.reduce((n, r) => n + countTextTokens(r.memory.content, TOKEN_ENCODING), 0);
  return {
    case_id: c.id,
    category: c.category,
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
