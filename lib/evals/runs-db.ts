import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { NotFoundError, ValidationError } from "../errors/domain-errors";
import { UNSCORABLE_TAG } from "./benchmark-formats";
import { compareRuns, type CompareCase } from "./compare";
import type { CaseScores, Comparison, EvalConfig, EvalRun, ExpectedRank, RetrievedItem, RunCase, RunMetrics } from "./schemas";
import { requireSet, RUN_DONE } from "./sets-db";
import { ZExpected } from "./schemas";

// Stored runs and their cases (project-scoped like the sets: another project's run is not found).
// A run still in progress is not found either (RUN_DONE): its results are partial.

type RunRow = {
  id: string;
  set_id: string;
  label: string | null;
  config: EvalConfig;
  metrics: RunMetrics;
  case_count: number;
  failed_cases: string | number;
  duration_ms: number;
  embedding_model: string;
  created_at: Date | string;
};

const RUN_SELECT = `SELECT r.id, r.set_id, r.label, r.config, r.metrics, r.case_count, r.duration_ms, r.embedding_model, r.created_at,
    (SELECT count(*) FROM eval_run_cases c WHERE c.project_id = r.project_id AND c.run_id = r.id AND c.hit = false) AS failed_cases
  FROM eval_runs r`;

const toRun = (r: RunRow): EvalRun => ({
  id: r.id,
  set_id: r.set_id,
  label: r.label,
  // A run from before protocols were chosen was scored as memscope.
  config: { ...r.config, protocol: r.config.protocol ?? "memscope" },
  metrics: r.metrics,
  k: r.config.k,
  case_count: Number(r.case_count),
  failed_cases: Number(r.failed_cases),
  duration_ms: Number(r.duration_ms),
  embedding_model: r.embedding_model,
  created_at: new Date(r.created_at).toISOString(),
});

export async function getRun(sql: ProjectSql, id: string, field = "id"): Promise<EvalRun> {
  const [row] = await sql.query<RunRow>(`${RUN_SELECT} WHERE r.project_id = $1 AND r.id = $2 AND ${RUN_DONE}`, [sql.projectId, id]);
  if (!row) throw new NotFoundError("Eval run", id, field);
  return toRun(row);
}

/** A set's runs, oldest first (the chart's order), at most the newest 200. */
export async function listRuns(sql: ProjectSql, setId: string): Promise<EvalRun[]> {
  await requireSet(sql, setId);
  const rows = await sql.query<RunRow>(`SELECT * FROM (${RUN_SELECT} WHERE r.project_id = $1 AND r.set_id = $2 AND ${RUN_DONE} ORDER BY r.created_at DESC, r.id DESC LIMIT 200) x ORDER BY created_at, id`, [
    sql.projectId,
    setId,
  ]);
  return rows.map(toRun);
}

type RunCaseRow = {
  case_id: string;
  user_id: string;
  question: string;
  category: string | null;
  hit: boolean | null;
  unscorable: boolean;
  scores: CaseScores | null;
  expected_ranks: ExpectedRank[];
  latency_ms: number;
  tokens: number;
  expected?: unknown;
  retrieved?: RetrievedItem[];
};

const toRunCase = (r: RunCaseRow): RunCase => ({
  case_id: r.case_id,
  user_id: r.user_id,
  question: r.question,
  category: r.category,
  hit: r.hit,
  unscorable: r.unscorable,
  scores: r.scores,
  expected_ranks: r.expected_ranks,
  latency_ms: Number(r.latency_ms),
  tokens: Number(r.tokens),
});

/** A run's cases: failed first, then by question. A case deleted from its set since keeps its result. */
export async function listRunCases(sql: ProjectSql, runId: string, opts: { only?: "failed" | "passed" } = {}): Promise<RunCase[]> {
  await getRun(sql, runId);
  const rows = await sql.query<RunCaseRow>(
    `SELECT rc.case_id, coalesce(c.user_id, '') AS user_id, coalesce(c.question, '(deleted case)') AS question, rc.category, rc.hit,
            coalesce('${UNSCORABLE_TAG}' = ANY(c.tags), false) AS unscorable,
            CASE WHEN jsonb_typeof(rc.scores) = 'object' THEN rc.scores END AS scores, rc.expected_ranks, rc.latency_ms, rc.tokens
       FROM eval_run_cases rc LEFT JOIN eval_cases c ON c.project_id = rc.project_id AND c.id = rc.case_id
      WHERE rc.project_id = $1 AND rc.run_id = $2 AND ($3::boolean IS NULL OR rc.hit = $3)
      ORDER BY rc.hit NULLS LAST, question, rc.case_id`,
    [sql.projectId, runId, opts.only === undefined ? null : opts.only === "passed"],
  );
  return rows.map(toRunCase);
}

export async function getRunCase(sql: ProjectSql, runId: string, caseId: string) {
  await getRun(sql, runId);
  const [r] = await sql.query<RunCaseRow>(
    `SELECT rc.case_id, coalesce(c.user_id, '') AS user_id, coalesce(c.question, '(deleted case)') AS question, rc.category, rc.hit,
            coalesce('${UNSCORABLE_TAG}' = ANY(c.tags), false) AS unscorable,
            CASE WHEN jsonb_typeof(rc.scores) = 'object' THEN rc.scores END AS scores, rc.expected_ranks, rc.latency_ms, rc.tokens,
            coalesce(c.expected, '{}'::jsonb) AS expected, rc.retrieved
       FROM eval_run_cases rc LEFT JOIN eval_cases c ON c.project_id = rc.project_id AND c.id = rc.case_id
      WHERE rc.project_id = $1 AND rc.run_id = $2 AND rc.case_id = $3`,
    [sql.projectId, runId, caseId],
  );
  if (!r) throw new NotFoundError("Eval case", caseId, "case_id");
  const expected = ZExpected.parse(r.expected);
  const ids = expected.memory_ids;
  const found = ids.length
    ? await sql.query<{ id: string; content: string; status: string }>(`SELECT id, content, status::text AS status FROM memories WHERE project_id = $1 AND id = ANY($2::uuid[])`, [sql.projectId, ids])
    : [];
  const byId = new Map(found.map((m) => [m.id, m]));
  const expected_memories = expected.memory_ids.map((id) => ({ id, content: byId.get(id)?.content ?? null, status: byId.get(id)?.status ?? null }));
  return { ...toRunCase(r), expected, retrieved: r.retrieved ?? [], expected_memories };
}

async function compareCases(sql: ProjectSql, runId: string): Promise<CompareCase[]> {
  return (await listRunCases(sql, runId)).map((c) => ({ ...c }));
}

/** `head` against `base` (either may be of any set of the project; cases pair by id). */
/** `headId` against `baseId`, or, without one, against the run of the same set made just before it. */
export async function compareStoredRuns(sql: ProjectSql, headId: string, baseId?: string): Promise<Comparison> {
  // The run first: an id of another project is a 404 whatever else the request says.
  const head = await getRun(sql, headId, "id");
  if (baseId === undefined) {
    const [prev] = await sql.query<{ id: string }>(
      `SELECT r.id FROM eval_runs r WHERE r.project_id = $1 AND r.set_id = $2 AND ${RUN_DONE} AND (r.created_at, r.id) < ($3::timestamptz, $4::uuid)
        ORDER BY r.created_at DESC, r.id DESC LIMIT 1`,
      [sql.projectId, head.set_id, head.created_at, head.id],
    );
    if (!prev) throw new ValidationError("This run is its set's first: name a run to compare against", [{ field: "base", message: "no earlier run of this set" }]);
    baseId = prev.id;
  }
  const base = await getRun(sql, baseId, "base");
  return compareRuns({ id: baseId, cases: await compareCases(sql, baseId), setup: base }, { id: headId, cases: await compareCases(sql, headId), setup: head });
}

export async function deleteRun(sql: ProjectSql, id: string): Promise<void> {
  const rows = await sql.query(`DELETE FROM eval_runs r WHERE r.project_id = $1 AND r.id = $2 AND ${RUN_DONE} RETURNING r.id`, [sql.projectId, id]);
  if (!rows.length) throw new NotFoundError("Eval run", id);
}
