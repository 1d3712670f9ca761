import "server-only";
import { randomUUID } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import { ConflictError, NotFoundError } from "../errors/domain-errors";
import type { EvalCase, EvalCaseInput, EvalSet } from "./schemas";

// Eval sets and their cases. Every statement names the project: another project's set or
// case is "not found", exactly as an id that never existed.

type SetRow = {
  id: string;
  name: string;
  description: string | null;
  case_count: string | number;
  run_count: string | number;
  last_run_id: string | null;
  last_run_at: Date | string | null;
  last_recall: number | string | null;
  created_at: Date | string;
  updated_at: Date | string;
};

const iso = (d: Date | string) => new Date(d).toISOString();

/**
 * A finished run (alias r). A run in progress has a row already (its cases are written as it
 * goes, run-eval.ts) whose metrics are JSON null until it ends: no reader shows it.
 */
export const RUN_DONE = `jsonb_typeof(r.metrics) = 'object'`;

const SET_SELECT = `
  SELECT s.id, s.name, s.description, s.created_at, s.updated_at,
         (SELECT count(*) FROM eval_cases c WHERE c.project_id = s.project_id AND c.set_id = s.id) AS case_count,
         (SELECT count(*) FROM eval_runs r WHERE r.project_id = s.project_id AND r.set_id = s.id AND ${RUN_DONE}) AS run_count,
         l.id AS last_run_id, l.created_at AS last_run_at, (l.metrics->'overall'->'recall'->>'value')::float8 AS last_recall
    FROM eval_sets s
    LEFT JOIN LATERAL (SELECT r.id, r.created_at, r.metrics FROM eval_runs r WHERE r.project_id = s.project_id AND r.set_id = s.id AND ${RUN_DONE} ORDER BY r.created_at DESC, r.id DESC LIMIT 1) l ON true`;

function toSet(r: SetRow): EvalSet {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    case_count: Number(r.case_count),
    run_count: Number(r.run_count),
    last_run: r.last_run_id ? { id: r.last_run_id, created_at: iso(r.last_run_at!), recall: r.last_recall === null ? null : Number(r.last_recall) } : null,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export async function listSets(sql: ProjectSql, opts: { name?: string } = {}): Promise<EvalSet[]> {
  const rows = await sql.query<SetRow>(`${SET_SELECT} WHERE s.project_id = $1 AND ($2::text IS NULL OR s.name = $2) ORDER BY s.name LIMIT 500`, [sql.projectId, opts.name ?? null]);
  return rows.map(toSet);
}

export async function requireSet(sql: ProjectSql, id: string, field = "id"): Promise<EvalSet> {
  const [row] = await sql.query<SetRow>(`${SET_SELECT} WHERE s.project_id = $1 AND s.id = $2`, [sql.projectId, id]);
  if (!row) throw new NotFoundError("Eval set", id, field);
  return toSet(row);
}

export async function createSet(sql: ProjectSql, input: { name: string; description?: string | null }): Promise<EvalSet> {
  const id = randomUUID();
  const rows = await sql.query<{ id: string }>(
    `INSERT INTO eval_sets (project_id, id, name, description) VALUES ($1, $2, $3, $4) ON CONFLICT (project_id, name) DO NOTHING RETURNING id`,
    [sql.projectId, id, input.name, input.description ?? null],
  );
  if (!rows.length) throw new ConflictError(`An eval set named "${input.name}" exists already`, [{ field: "name", message: "taken in this project" }], "eval_set_name_taken");
  return requireSet(sql, id);
}

/** The set named `name`, made when there is none (imports and the playground's Save as test). */
export async function setByName(sql: ProjectSql, name: string): Promise<EvalSet> {
  await sql.query(`INSERT INTO eval_sets (project_id, id, name) VALUES ($1, $2, $3) ON CONFLICT (project_id, name) DO NOTHING`, [sql.projectId, randomUUID(), name]);
  const [s] = await listSets(sql, { name });
  return s;
}

export async function deleteSet(sql: ProjectSql, id: string): Promise<void> {
  const rows = await sql.query(`DELETE FROM eval_sets WHERE project_id = $1 AND id = $2 RETURNING id`, [sql.projectId, id]);
  if (!rows.length) throw new NotFoundError("Eval set", id);
}

type CaseRow = {
  id: string;
  set_id: string;
  user_id: string;
  question: string;
  expected: EvalCase["expected"];
  category: string | null;
  tags: string[];
  external_id: string | null;
  created_at: Date | string;
};

const toCase = (r: CaseRow): EvalCase => ({ ...r, tags: r.tags ?? [], created_at: iso(r.created_at) });

/**
 * Adds cases in one transaction (all or none). A case whose external_id the set holds
 * already is skipped (re-imports). Answers the cases written.
 */
export async function addCases(sql: ProjectSql, setId: string, cases: readonly EvalCaseInput[]): Promise<{ data: EvalCase[]; skipped: number }> {
  await requireSet(sql, setId);
  if (!cases.length) return { data: [], skipped: 0 };
  return sql.transaction(async (tx) => {
    const rows = await tx.query<CaseRow>(
      `INSERT INTO eval_cases (project_id, id, set_id, user_id, question, expected, category, tags, external_id)
       SELECT $1, x.id, $2, x.user_id, x.question, x.expected, x.category, ARRAY(SELECT jsonb_array_elements_text(x.tags)), x.external_id
         FROM jsonb_to_recordset($3::jsonb) AS x(id uuid, user_id text, question text, expected jsonb, category text, tags jsonb, external_id text)
       ON CONFLICT (project_id, set_id, external_id) DO NOTHING
       RETURNING id, set_id, user_id, question, expected, category, tags, external_id, created_at`,
      [
        tx.projectId,
        setId,
        JSON.stringify(cases.map((c) => ({ id: randomUUID(), user_id: c.user_id, question: c.question, expected: c.expected, category: c.category ?? null, tags: c.tags, external_id: c.external_id ?? null }))),
      ],
    );
    await tx.query(`UPDATE eval_sets SET updated_at = now() WHERE project_id = $1 AND id = $2`, [tx.projectId, setId]);
    return { data: rows.map(toCase), skipped: cases.length - rows.length };
  });
}

export async function listCases(sql: ProjectSql, setId: string): Promise<EvalCase[]> {
  await requireSet(sql, setId);
  const rows = await sql.query<CaseRow>(
    `SELECT id, set_id, user_id, question, expected, category, tags, external_id, created_at FROM eval_cases WHERE project_id = $1 AND set_id = $2 ORDER BY created_at, id`,
    [sql.projectId, setId],
  );
  return rows.map(toCase);
}

/**
 * A set's cases in their order (created_at, id), id and user only, at most `limit`: a run
 * plans from this which cases it searches together (those of one user) and keeps its
 * results in this order.
 */
export async function caseOrder(sql: ProjectSql, setId: string, limit: number): Promise<{ id: string; user_id: string }[]> {
  return sql.query<{ id: string; user_id: string }>(`SELECT id, user_id FROM eval_cases WHERE project_id = $1 AND set_id = $2 ORDER BY created_at, id LIMIT $3`, [sql.projectId, setId, limit]);
}

/** Cases of a set by id (a run's page; a case deleted since is missing). */
export async function casesById(sql: ProjectSql, setId: string, ids: readonly string[]): Promise<EvalCase[]> {
  if (!ids.length) return [];
  const rows = await sql.query<CaseRow>(
    `SELECT id, set_id, user_id, question, expected, category, tags, external_id, created_at FROM eval_cases WHERE project_id = $1 AND set_id = $2 AND id = ANY($3::uuid[])`,
    [sql.projectId, setId, ids],
  );
  return rows.map(toCase);
}

export async function deleteCase(sql: ProjectSql, setId: string, caseId: string): Promise<void> {
  const rows = await sql.query(`DELETE FROM eval_cases WHERE project_id = $1 AND set_id = $2 AND id = $3 RETURNING id`, [sql.projectId, setId, caseId]);
  if (!rows.length) throw new NotFoundError("Eval case", caseId, "case_id");
}
