import "server-only";
import { randomUUID } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import { activeProvider } from "../embeddings/active-model";
import type { EmbeddingProvider } from "../embeddings/embedding-provider";
import { ConflictError, DomainError, NotFoundError, ValidationError } from "../errors/domain-errors";
import { searchMemoriesAsOf } from "../memories/as-of";
import { parseAsOf } from "../memories/as-of/parse-as-of";
import type { Breakdown, Memory } from "../memories/schemas";
import { searchMemoriesMany } from "../memories/search-memories";
import { countTextTokens } from "../tokens/count-tokens";
import { runMetricsYielding, scoreCase, type CaseOutcome, type MemoryFacts } from "./metrics";
import { scoreLoCoMo, scoreLongMemEval, searchDepth } from "./protocols";
import { getRun } from "./runs-db";
import type { EvalCase, EvalConfig, EvalProtocol, EvalRun, RetrievedItem } from "./schemas";
import { caseOrder, casesById, requireSet } from "./sets-db";
import { yieldingSql } from "./yielding-sql";

// A run: every case of a set through the product's own retrieval under one configuration,
// each case scored (metrics.ts).
//
// An evaluation is a read. It searches without logging the retrieval and without marking
// anything accessed (searchMemoriesMany: dry runs without a log; an as_of run reads the
// past and writes nothing): a run must not change the recency term of the very searches it
// measures, nor fill memories' access logs with test questions.
//
// Its cost is bounded so that the server goes on answering meanwhile (on the embedded
// database every statement runs on the server's one thread):
// - the set's order is read first (ids and users), then its cases a page of about PAGE at
//   a time, each user's together; each page's results are written when it is done: only
//   the small per-case scores stay in memory (the metrics need them), never the retrieved
//   memories of the whole run;
// - a user's cases of a page (at most SEARCH_BATCH) are searched together
//   (searchMemoriesMany): one read of their rows for all their exact candidates, one load
//   of the memories returned, the active model resolved once per run; a retrieved memory's
//   tokens are counted once per run;
// - a page's provenance (which turn each retrieved memory came from) is one statement;
// - the run yields to the event loop before each of its statements (yielding-sql.ts),
//   between batches and between steps of the metrics' bootstrap, so a request that
//   arrives meanwhile waits for at most one statement or step.
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
/**
 * Queries of one user searched together: their shared statement's time grows with them,
 * and a request waits for at most one statement (on 100 users of 1 000 memories: ~20 ms
 * of CPU to read a user's rows, ~3 ms per query; 16 queries held the thread ~70 ms).
 */
const SEARCH_BATCH = 8;
/** A run row whose heartbeat is older than this is a dead run's (a page takes seconds, not minutes). */
const STALE_AFTER_S = 120;
/** Tokens of retrieved memories are counted in this encoding (GPT-4o's). */
const TOKEN_ENCODING = "o200k_base";

type Retrieved = { memory: Memory; breakdown: Breakdown };
type Source = { source_session_id: string | null; source_message_id: string | null; source_half: "user" | "assistant" | null };
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
  // A live run reads the active model's vectors: resolved once, so every case of the run is
  // searched under the same model (and no case reads the setting again).
  let provider: EmbeddingProvider | null = null;
  if (asOf === undefined) {
    provider = await activeProvider(sql);
    model = provider.model;
    checkModel(config, model);
  }
  const runId = await claimRun(sql, setId, config, input.label ?? null, model);
  const started = performance.now();
  try {
    // The set's order, then its cases grouped by user (pagesByUser): a user's cases share
    // the work of their searches (searchMemoriesMany). Results go back to the set's order
    // for the metrics (their intervals resample by position).
    // A benchmark's protocol ranks distinct turns of its own index: more memories are read
    // than k, so that k turns remain once memories outside that index and repeats are left out.
    const protocol: EvalProtocol = config.protocol ?? "memscope";
    const depth = searchDepth(protocol, config.k);
    const search = { k: depth, memory_types: config.memory_types, weights: config.weights, min_score: config.min_score, status: config.status };
    const order = await caseOrder(sql, setId, MAX_RUN_CASES);
    const scores: (CaseScore | undefined)[] = new Array(order.length);
    const tokenCounts = new TokenCounts();
    for (const page of pagesByUser(order)) {
      const byId = new Map((await casesById(sql, setId, page.map((i) => order[i].id))).map((c) => [c.id, c]));
      const cases = page.map((at) => ({ at, c: byId.get(order[at].id) })).filter((x): x is { at: number; c: EvalCase } => x.c !== undefined); // a case deleted since the run began is left out
      const searched: { at: number; c: EvalCase; retrieved: Retrieved[]; latency: number }[] = [];
      if (asOf === undefined) {
        // A live run: each user's cases of the page in one searchMemoriesMany (the work
        // they share done once), a turn of the event loop between users.
        for (const group of groupsOfUser(cases)) {
          const results = await searchMemoriesMany(sql, group[0].c.user_id, group.map((x) => x.c.question), search, provider!);
          group.forEach((x, i) => searched.push({ ...x, retrieved: results[i].data.slice(0, depth), latency: results[i].latency_ms }));
          await yieldToLoop();
        }
      } else {
        for (const { at, c } of cases) {
          const t0 = performance.now();
          const r = await searchMemoriesAsOf(sql, { userId: c.user_id, asOf, input: { query: c.question, ...search } });
          if (model === null) {
            model = r.embedding_model;
            checkModel(config, model);
          }
          searched.push({ at, c, retrieved: r.data.slice(0, depth), latency: performance.now() - t0 });
          await yieldToLoop();
        }
      }
      const sources = await sourcesOf(sql, searched.flatMap((s) => s.retrieved.map((r) => r.memory.id)));
      const rows = searched.map((s) => scoreOne(s.c, s.retrieved, sources, config.k, protocol, s.latency, tokenCounts));
      await writePage(sql, runId, rows, performance.now() - started);
      rows.forEach((r, i) => (scores[searched[i].at] = { category: r.category, scores: r.scores, hit: r.hit, tokens: r.tokens, latency_ms: r.latency_ms }));
      await yieldToLoop();
    }
    const done = scores.filter((x): x is CaseScore => x !== undefined);
    // The bootstrap intervals take ~1 s of CPU for 1 000 cases: in steps, with turns between.
    const metrics = await runMetricsYielding(done, yieldToLoop);
    await sql.query(
      `UPDATE eval_runs SET metrics = $3::jsonb, case_count = $4, duration_ms = $5, embedding_model = $6 WHERE project_id = $1 AND id = $2`,
      [sql.projectId, runId, JSON.stringify(metrics), done.length, performance.now() - started, model ?? (await activeProvider(sql)).model],
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
 * The positions of `order` in pages of about PAGE cases, each user's cases together (in
 * their set order), users in the order of their first case; a user with more than PAGE
 * cases spans several pages.
 */
export function pagesByUser(order: readonly { user_id: string }[], size = PAGE): number[][] {
  const byUser = new Map<string, number[]>();
  order.forEach((c, i) => {
    const list = byUser.get(c.user_id);
    if (list) list.push(i);
    else byUser.set(c.user_id, [i]);
  });
  const pages: number[][] = [];
  let page: number[] = [];
  for (const list of byUser.values()) {
    for (let i = 0; i < list.length; i += size) {
      page.push(...list.slice(i, i + size));
      if (page.length >= size) {
        pages.push(page);
        page = [];
      }
    }
  }
  if (page.length) pages.push(page);
  return pages;
}

/** Consecutive cases of one user, at most SEARCH_BATCH together (a page holds each user's cases together: pagesByUser). */
function groupsOfUser<T extends { c: { user_id: string } }>(cases: readonly T[]): T[][] {
  const groups: T[][] = [];
  for (const x of cases) {
    const last = groups[groups.length - 1];
    if (last && last[0].c.user_id === x.c.user_id && last.length < SEARCH_BATCH) last.push(x);
    else groups.push([x]);
  }
  return groups;
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
    `SELECT id, source_session_id, source_message_id, structured_data->>'source_half' AS source_half FROM memories WHERE project_id = $1 AND id = ANY($2::uuid[])`,
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

/**
 * Tokens of retrieved memories, counted once per memory in a run: a user's memories come
 * back for many of their cases. Keyed by id, checked against the text (an edit meanwhile).
 */
class TokenCounts {
  private readonly counted = new Map<string, { content: string; tokens: number }>();
  of(m: Memory): number {
    const hit = this.counted.get(m.id);
    if (hit && hit.content === m.content) return hit.tokens;
    const tokens = countTextTokens(m.content, TOKEN_ENCODING);
    this.counted.set(m.id, { content: m.content, tokens });
    return tokens;
  }
}

function scoreOne(c: EvalCase, retrieved: Retrieved[], sources: Map<string, Source>, k: number, protocol: EvalProtocol, latency: number, tokenCounts: TokenCounts): CaseRow {
  const facts: MemoryFacts[] = retrieved.map((r) => ({
    id: r.memory.id,
    content: r.memory.content,
    source_conversation_id: sources.get(r.memory.id)?.source_session_id ?? null,
    source_message_id: sources.get(r.memory.id)?.source_message_id ?? null,
    source_half: sources.get(r.memory.id)?.source_half ?? null,
  }));
  const outcome: CaseOutcome = protocol === "longmemeval" ? scoreLongMemEval(c, facts, k) : protocol === "locomo" ? scoreLoCoMo(c, facts, k) : scoreCase(c.expected, facts, k);
  // The memories the score read: the first k, or under a protocol those behind its k turns.
  const shown = outcome.shown ?? retrieved.slice(0, k).map((_, i) => i);
  const tokens = shown.reduce((n, i) => n + tokenCounts.of(retrieved[i].memory), 0);
  return {
    case_id: c.id,
    category: c.category,
    hit: outcome.hit,
    scores: outcome.scores,
    expected_ranks: outcome.expected_ranks,
    retrieved: shown.map((i) => {
      const r = retrieved[i];
      return {
        rank: i + 1,
        memory_id: r.memory.id,
        content: r.memory.content,
        memory_type: r.memory.memory_type,
        relevant: outcome.relevant[i] ?? false,
        source_conversation_id: facts[i].source_conversation_id,
        source_message_id: facts[i].source_message_id,
        breakdown: r.breakdown,
      };
    }),
    latency_ms: latency,
    tokens,
  };
}
