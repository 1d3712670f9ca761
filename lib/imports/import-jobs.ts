import "server-only";
import { randomUUID } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import { ConflictError, NotFoundError } from "../errors/domain-errors";
import type { ImportJob } from "./schemas";
import type { ImportProgress } from "./run-import";
import type { ImportFormat } from "./types";

// Import jobs as rows: the background run writes its progress here (throttled), and
// GET /api/v1/imports/{id} reads it. A job still "running" that no process of this server
// is running (a restart) reads as failed.

const COLUMNS = `id, format, label, dry_run, status, total, processed, conversations, turns, memories, skipped, failed,
  problems, unrepresented, error, actor, created_at, updated_at, finished_at`;

type Row = {
  id: string;
  format: ImportFormat;
  label: string;
  dry_run: boolean;
  status: ImportJob["status"];
  total: number;
  processed: number;
  conversations: number;
  turns: number;
  memories: number;
  skipped: number;
  failed: number;
  problems: ImportJob["problems"];
  unrepresented: Record<string, number> | null;
  error: string | null;
  actor: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  finished_at: Date | string | null;
};

const RUNNING = Symbol.for("memscope.import-jobs.running");
type Holder = { [RUNNING]?: Set<string> };
export function runningHere(): Set<string> {
  const g = globalThis as Holder;
  return (g[RUNNING] ??= new Set());
}

/** A job run by this process: how to stop it, and when it has ended. */
type Control = { controller: AbortController; ended: Promise<void>; end: () => void };
const CONTROLS = Symbol.for("memscope.import-jobs.controls");
type ControlHolder = { [CONTROLS]?: Map<string, Control> };
function controls(): Map<string, Control> {
  const g = globalThis as ControlHolder;
  return (g[CONTROLS] ??= new Map());
}

/** Called when a job's run starts here: the signal its run checks between transactions. */
export function controlJob(id: string): { signal: AbortSignal; ended: () => void } {
  let end!: () => void;
  const ended = new Promise<void>((r) => (end = r));
  const c: Control = { controller: new AbortController(), ended, end };
  controls().set(id, c);
  return {
    signal: c.controller.signal,
    ended: () => {
      controls().delete(id);
      end();
    },
  };
}

/** How long a cancel waits for the run to reach its next stop (between two transactions) before answering. */
const CANCEL_WAIT_MS = 30_000;

/**
 * POST /imports/{id}/cancel: the run stops before its next transaction; what it wrote stays and
 * its counts say so. Another project's job is a 404; a job that has ended (or that no process
 * of this server runs) is a 409. Answers the job once its run has stopped.
 */
export async function cancelJob(sql: ProjectSql, id: string): Promise<ImportJob> {
  const job = await getJob(sql, id);
  const c = controls().get(id);
  if ((job.status !== "running" && job.status !== "pending") || !c) {
    throw new ConflictError(`The import has already ended (${job.status})`, [{ field: "id", message: `status ${job.status}` }]);
  }
  c.controller.abort();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([c.ended, new Promise<void>((r) => (timer = setTimeout(r, CANCEL_WAIT_MS)))]);
  clearTimeout(timer);
  return getJob(sql, id);
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

function serialize(r: Row): ImportJob {
  const orphaned = (r.status === "running" || r.status === "pending") && !runningHere().has(r.id);
  return {
    id: r.id,
    format: r.format,
    label: r.label,
    dry_run: r.dry_run,
    status: orphaned ? "failed" : r.status,
    total: r.total,
    processed: r.processed,
    counts: { conversations: r.conversations, turns: r.turns, memories: r.memories, skipped: r.skipped, failed: r.failed },
    problems: r.problems,
    unrepresented: r.unrepresented ?? {},
    error: orphaned ? "The server stopped while this import ran; run it again (records already imported are skipped)." : r.error,
    actor: r.actor,
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
    finished_at: iso(r.finished_at),
  };
}

export async function createJob(sql: ProjectSql, j: { format: ImportFormat; label: string; dryRun: boolean; actor: string | null }): Promise<ImportJob> {
  const [row] = await sql.query<Row>(
    `INSERT INTO import_jobs (id, project_id, format, label, dry_run, actor) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [randomUUID(), sql.projectId, j.format, j.label.slice(0, 500), j.dryRun, j.actor?.slice(0, 500) ?? null],
  );
  runningHere().add(row.id);
  return serialize(row);
}

/** Another project's job is a 404, as if it did not exist. */
export async function getJob(sql: ProjectSql, id: string): Promise<ImportJob> {
  const [row] = await sql.query<Row>(`SELECT ${COLUMNS} FROM import_jobs WHERE id = $1 AND project_id = $2`, [id, sql.projectId]);
  if (!row) throw new NotFoundError("Import", id);
  return serialize(row);
}

export async function listJobs(sql: ProjectSql, limit = 20): Promise<ImportJob[]> {
  const rows = await sql.query<Row>(`SELECT ${COLUMNS} FROM import_jobs WHERE project_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [sql.projectId, limit]);
  return rows.map(serialize);
}

export async function saveProgress(sql: ProjectSql, id: string, p: ImportProgress & { total?: number; status?: "running" }) {
  await sql.query(
    `UPDATE import_jobs SET status = COALESCE($2, status), total = GREATEST(total, COALESCE($3, total), $4), processed = $4,
            conversations = $5, turns = $6, memories = $7, skipped = $8, failed = $9, problems = $10::jsonb,
            unrepresented = $12::jsonb, updated_at = now()
      WHERE id = $1 AND project_id = $11`,
    [id, p.status ?? null, p.total ?? null, p.processed, p.conversations, p.turns, p.memories, p.skipped, p.failed, JSON.stringify(p.problems), sql.projectId, JSON.stringify(p.unrepresented)],
  );
}

/** `cancelled`: stopped by a cancel (error is null then: nothing went wrong). */
export async function finishJob(sql: ProjectSql, id: string, p: ImportProgress | null, error: string | null, cancelled = false) {
  try {
    if (p) await saveProgress(sql, id, p);
    await sql.query(
      `UPDATE import_jobs SET status = $2, error = $3, total = GREATEST(total, processed), finished_at = now(), updated_at = now() WHERE id = $1 AND project_id = $4`,
      [id, cancelled ? "cancelled" : error ? "failed" : "done", error, sql.projectId],
    );
  } finally {
    runningHere().delete(id);
  }
}
