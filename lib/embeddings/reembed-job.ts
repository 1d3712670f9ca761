import { randomUUID } from "node:crypto";
import os from "node:os";
import type { SqlRunner } from "../db/migrations";
import { projectSql, type ProjectSql } from "../db/project-sql";
import { readActiveModel, writeActiveModel, type ActiveModel } from "./active-model";
import { configuredEmbeddingProvider, toVectorLiteral, type EmbeddingProvider } from "./embedding-provider";
import { ensureVectorIndex } from "./ensure-vector-index";

// Re-embedding after a model change. When the configured embedder differs from the
// active one (the model retrieval reads), every memory is embedded again with the new
// model in the background, page by page in id order. Progress (done, last_memory_id)
// is committed with each page, so a restart resumes where it stopped. Retrieval keeps
// using the old model's vectors until the job switches the active model at the end;
// writes made meanwhile already embed with both (writeProviders).
//
// Several instances on one database: the job runs on one instance at a time. The runner
// claims a lease on the job row (FOR UPDATE SKIP LOCKED: a claim never waits on another),
// renews it with a heartbeat and checks it with every page it commits. An instance that
// dies stops renewing; when the lease expires, another instance's watcher takes the job
// over and resumes it from the last committed page.
//
// The active model is per project, and so are jobs: each project's memories are
// re-embedded by a job of its own (one process runs them one after another).

export type JobStatus = "pending" | "running" | "done" | "failed" | "cancelled";

export type EmbeddingJob = {
  id: string;
  provider: string;
  model: string;
  dimensions: number;
  status: JobStatus;
  total: number;
  done: number;
  last_memory_id: string | null;
  error: string | null;
  started_at: string;
  updated_at: string;
  finished_at: string | null;
};

type JobRow = Omit<EmbeddingJob, "started_at" | "updated_at" | "finished_at"> & {
  created_at: Date | string;
  updated_at: Date | string;
  finished_at: Date | string | null;
};

const JOB_COLUMNS = `id, provider, model, dimensions, status, total, done, last_memory_id, error, created_at, updated_at, finished_at`;

/** Memories per page: one embed call (the OpenAI embedder splits it in 64s), one upsert, one progress commit. */
export function reembedPageSize(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.MEMSCOPE_REEMBED_PAGE_SIZE || 100);
  return Number.isInteger(n) && n >= 1 && n <= 2000 ? n : 100;
}

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

function toJob(r: JobRow): EmbeddingJob {
  return {
    id: r.id,
    provider: r.provider,
    model: r.model,
    dimensions: Number(r.dimensions),
    status: r.status,
    total: Number(r.total),
    done: Number(r.done),
    last_memory_id: r.last_memory_id,
    error: r.error,
    started_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
    finished_at: iso(r.finished_at),
  };
}

/** How long a claim on a job lasts without a heartbeat; renewed every third of it. */
export function reembedLeaseMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.MEMSCOPE_REEMBED_LEASE_MS || 30_000);
  return Number.isInteger(n) && n >= 500 ? n : 30_000;
}

// This process, as a lease owner. On globalThis for the same reason as RUNNER below.
const OWNER = Symbol.for("memscope.reembed.owner");
function instanceId(): string {
  const g = globalThis as { [OWNER]?: string };
  g[OWNER] ??= `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  return g[OWNER];
}

/**
 * The project's newest job, and whether this process is working on it now: it runs the job
 * AND holds its lease. The runner alone is not enough: a process that has started a runner
 * but lost the claim (another instance holds the lease) is about to stop, not working.
 */
export async function latestJob(sql: ProjectSql): Promise<(EmbeddingJob & { runningHere: boolean }) | null> {
  const [row] = await sql.query<JobRow & { held_here: boolean }>(
    `SELECT ${JOB_COLUMNS}, (status = 'running' AND lease_owner = $2 AND lease_expires_at > now()) AS held_here
       FROM embedding_jobs WHERE project_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
    [sql.projectId, instanceId()],
  );
  return row ? { ...toJob(row), runningHere: row.held_here === true && reembedRunning(row.id) } : null;
}

// One runner per process. Keyed on globalThis, not a plain module variable: Next.js may
// evaluate this module once per bundle (instrumentation, each route), and those
// copies must share the guard.
const RUNNER = Symbol.for("memscope.reembed.runner");
type Holder = { [RUNNER]?: { jobId: string; promise: Promise<void> } };
const holder = globalThis as Holder;

/** Whether this process is running a job now (the one with this id, if given). */
export function reembedRunning(jobId?: string): boolean {
  const r = holder[RUNNER];
  return !!r && (jobId === undefined || r.jobId === jobId);
}

export type EnsureResult =
  | { state: "up_to_date"; active: ActiveModel }
  | { state: "switched"; active: ActiveModel }
  | { state: "started"; job: EmbeddingJob };

/**
 * Makes sure the configured model is, or is becoming, the active one: nothing to do
 * when it already is; an empty store switches at once; otherwise creates or resumes
 * (pending, running or failed) the job for the configured model and runs it in the
 * background of this process. Returns without waiting for the job.
 */
export async function ensureReembedJob(sql: ProjectSql): Promise<EnsureResult> {
  const configured = configuredEmbeddingProvider();
  const target: ActiveModel = { model: configured.model, dimensions: configured.dimensions, kind: configured.kind };
  const active = await readActiveModel(sql);

  if (!active || (active.model === target.model && active.dimensions === target.dimensions)) {
    // First use (activeProvider would record the configured model too) or nothing changed.
    if (!active) await writeActiveModel(sql, target);
    await cancelOtherJobs(sql, target);
    return { state: "up_to_date", active: target };
  }

  const [{ n }] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM memories WHERE project_id = $1`, [sql.projectId]);
  if (Number(n) === 0) {
    await ensureVectorIndex(sql, target.model, target.dimensions);
    await writeActiveModel(sql, target);
    await cancelOtherJobs(sql, target);
    return { state: "switched", active: target };
  }

  let leasedElsewhere = false;
  const job = await sql.transaction(async (tx) => {
    // Instances starting together on one database: one at a time here, so one job is made.
    await tx.query(`SELECT pg_advisory_xact_lock(727277)`);
    await cancelOtherJobs(tx, target);
    const [existing] = await tx.query<JobRow & { leased_by_other: boolean }>(
      `SELECT ${JOB_COLUMNS}, (lease_owner IS DISTINCT FROM $3 AND lease_expires_at > now()) AS leased_by_other
         FROM embedding_jobs
        WHERE model = $1 AND dimensions = $2 AND project_id = $4 AND status IN ('pending', 'running', 'failed')
        ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
      [target.model, target.dimensions, instanceId(), tx.projectId],
    );
    if (existing && reembedRunning(existing.id)) return toJob(existing); // this process is on it
    if (existing?.leased_by_other) {
      leasedElsewhere = true; // another live instance is on it
      return toJob(existing);
    }
    if (existing) {
      // Resume (after a restart) or retry (after a provider failure) from last_memory_id.
      const [row] = await tx.query<JobRow>(
        `UPDATE embedding_jobs SET status = 'pending', error = NULL, total = GREATEST(done, $2), updated_at = now()
          WHERE id = $1 RETURNING ${JOB_COLUMNS}`,
        [existing.id, Number(n)],
      );
      return toJob(row);
    }
    const [row] = await tx.query<JobRow>(
      `INSERT INTO embedding_jobs (id, provider, model, dimensions, status, total, project_id)
       VALUES ($1, $2, $3, $4, 'pending', $5, $6) RETURNING ${JOB_COLUMNS}`,
      [randomUUID(), target.kind, target.model, target.dimensions, Number(n), tx.projectId],
    );
    return toJob(row);
  });

  // Leased by another live instance: this one takes the job over only once that lease runs
  // out (watchReembedJobs), never by a runner started here now.
  if (!leasedElsewhere) startRunner(sql, job, configured);
  return { state: "started", job };
}

/** Fire-and-forget form for start-up, for every project: logs instead of throwing. */
export function resumeReembedInBackground(db: { sql: SqlRunner }): void {
  const each = async () => {
    const projects = await db.sql.query<{ id: string }>(
      `SELECT id FROM projects UNION SELECT DISTINCT project_id FROM app_settings WHERE key = 'embeddings.active' ORDER BY 1`,
    );
    for (const { id } of projects) {
      const r = await ensureReembedJob(projectSql(db.sql, id));
      if (r.state === "started") console.log(`[memscope] re-embedding ${r.job.total} memories of project ${id} with ${r.job.model} (job ${r.job.id}, ${r.job.done} done)`);
    }
  };
  each().catch((e) => console.error(`[memscope] re-embedding not started: ${(e as Error).message}`));
}

async function cancelOtherJobs(sql: ProjectSql, target: ActiveModel) {
  await sql.query(
    `UPDATE embedding_jobs SET status = 'cancelled', updated_at = now(), finished_at = now(),
            error = COALESCE(error, 'the configured model changed before this job finished')
      WHERE project_id = $3 AND status IN ('pending', 'running', 'failed') AND NOT (model = $1 AND dimensions = $2)`,
    [target.model, target.dimensions, sql.projectId],
  );
}

function startRunner(sql: ProjectSql, job: EmbeddingJob, provider: EmbeddingProvider) {
  const current = holder[RUNNER];
  if (current?.jobId === job.id) return; // already running in this process
  if (current) {
    // A cancelled job's runner stops at its next page; start this one after it.
    void current.promise.then(() => startRunner(sql, job, provider));
    return;
  }
  const promise = runJob(sql, job.id, provider)
    .catch(async (e) => {
      const message = (e as Error).message || String(e);
      console.error(`[memscope] re-embedding job ${job.id} failed: ${message}`);
      await sql
        .query(
          `UPDATE embedding_jobs SET status = 'failed', error = $2, updated_at = now(), lease_owner = NULL, lease_expires_at = NULL
            WHERE id = $1 AND lease_owner = $3`,
          [job.id, message.slice(0, 2000), instanceId()],
        )
        .catch(() => {});
    })
    .finally(() => {
      if (holder[RUNNER]?.promise === promise) delete holder[RUNNER];
    });
  holder[RUNNER] = { jobId: job.id, promise };
}

class LeaseLost extends Error {}

/**
 * Several instances on one database: every so often, take over a job of the configured
 * model whose lease expired (the instance running it died) and resume it here.
 * Returns a stop function; the timer never keeps the process alive.
 */
export function watchReembedJobs(db: { sql: SqlRunner }, everyMs = Math.max(250, Math.floor(reembedLeaseMs() / 2))): () => void {
  const timer = setInterval(() => {
    if (reembedRunning()) return;
    const provider = configuredEmbeddingProvider();
    db.sql
      .query<JobRow & { project_id: string }>(
        `SELECT ${JOB_COLUMNS}, project_id FROM embedding_jobs
          WHERE model = $1 AND dimensions = $2 AND status IN ('pending', 'running')
            AND (lease_owner IS NULL OR lease_expires_at < now())
          ORDER BY created_at DESC LIMIT 1`,
        [provider.model, provider.dimensions],
      )
      .then(async ([found]) => {
        if (!found || reembedRunning()) return;
        // Memories written since the job started count too (as when a job is resumed at start).
        const [row] = await db.sql.query<JobRow>(
          `UPDATE embedding_jobs SET total = GREATEST(done, (SELECT count(*)::int FROM memories WHERE project_id = $2)) WHERE id = $1 RETURNING ${JOB_COLUMNS}`,
          [found.id, found.project_id],
        );
        console.log(`[memscope] taking over re-embedding job ${row.id} (${row.done}/${row.total} done; its lease expired)`);
        startRunner(projectSql(db.sql, found.project_id), toJob(row), provider);
      })
      .catch(() => {}); // the database is briefly unreachable: next tick
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

type Page = { id: string; user_id: string; content: string }[];

async function runJob(sql: ProjectSql, jobId: string, provider: EmbeddingProvider): Promise<void> {
  const me = instanceId();
  const leaseMs = reembedLeaseMs();
  // The claim: free, ours, or expired (its instance died). SKIP LOCKED: when another
  // instance is claiming it right now, this one gives way instead of waiting.
  // The claim also counts the memories again: some may have been written since the job's
  // total was set (by another instance, before its lease ran out).
  const [start] = await sql.query<{ last_memory_id: string | null }>(
    `UPDATE embedding_jobs SET status = 'running', lease_owner = $2, lease_expires_at = now() + $3::int * interval '1 millisecond', updated_at = now(),
            total = GREATEST(done, (SELECT count(*)::int FROM memories WHERE project_id = $4))
      WHERE id = (SELECT id FROM embedding_jobs
                   WHERE id = $1 AND status IN ('pending', 'running')
                     AND (lease_owner IS NULL OR lease_owner = $2 OR lease_expires_at < now())
                   FOR UPDATE SKIP LOCKED)
     RETURNING last_memory_id`,
    [jobId, me, leaseMs, sql.projectId],
  );
  if (!start) return; // cancelled meanwhile, or another instance holds it
  console.log(`[memscope] re-embedding job ${jobId} runs here (pid ${process.pid})`);
  const heartbeat = setInterval(() => {
    sql
      .query(`UPDATE embedding_jobs SET lease_expires_at = now() + $3::int * interval '1 millisecond' WHERE id = $1 AND lease_owner = $2 AND status = 'running'`, [
        jobId,
        me,
        leaseMs,
      ])
      .catch(() => {}); // a missed beat is caught up by the next one, or by the page commit
  }, Math.max(100, Math.floor(leaseMs / 3)));
  heartbeat.unref();
  try {
    await runPages(sql, jobId, provider, start.last_memory_id, me, leaseMs);
  } finally {
    clearInterval(heartbeat);
  }
}

async function runPages(sql: ProjectSql, jobId: string, provider: EmbeddingProvider, checkpoint: string | null, me: string, leaseMs: number): Promise<void> {
  const pageSize = reembedPageSize();
  let after = checkpoint;

  // 1. Every memory in id order after the checkpoint. The model's HNSW index is built
  //    afterwards: inserting into an HNSW-indexed table is many times slower.
  for (;;) {
    const page = await sql.query<Page[number]>(
      `SELECT id, user_id, content FROM memories WHERE project_id = $2 AND ($1::uuid IS NULL OR id > $1::uuid) ORDER BY id LIMIT ${pageSize}`,
      [after, sql.projectId],
    );
    if (!page.length) break;
    const vectors = await provider.embed(page.map((m) => m.content));
    after = page[page.length - 1].id;
    const alive = await sql.transaction(async (tx) => {
      await upsertVectors(tx, provider, page, vectors);
      const [row] = await tx.query<{ id: string }>(
        `UPDATE embedding_jobs SET done = done + $2, last_memory_id = $3, total = GREATEST(total, done + $2), updated_at = now(),
                lease_expires_at = now() + $5::int * interval '1 millisecond'
          WHERE id = $1 AND status = 'running' AND lease_owner = $4 RETURNING id`,
        [jobId, page.length, after, me, leaseMs],
      );
      if (!row) throw new LeaseLost(); // rolls this page back
      return true;
    }).catch((e) => {
      if (e instanceof LeaseLost) return false;
      throw e;
    });
    if (!alive) return; // cancelled (model changed), or the lease passed to another instance
  }

  // 2. Memories still without a vector of this model: written by something that did not
  //    embed with both models, or ids below the checkpoint created during the job.
  const seen = new Set<string>();
  for (;;) {
    const page = await sql.query<Page[number]>(
      `SELECT m.id, m.user_id, m.content FROM memories m
        WHERE m.project_id = $2 AND NOT EXISTS (SELECT 1 FROM memory_embeddings e WHERE e.model = $1 AND e.project_id = m.project_id AND e.memory_id = m.id)
        ORDER BY m.id LIMIT ${pageSize}`,
      [provider.model, sql.projectId],
    );
    const fresh = page.filter((m) => !seen.has(m.id));
    if (!fresh.length) break; // nothing left, or only rows whose content keeps changing under us
    fresh.forEach((m) => seen.add(m.id));
    const vectors = await provider.embed(fresh.map((m) => m.content));
    const alive = await sql.transaction(async (tx) => {
      await upsertVectors(tx, provider, fresh, vectors);
      const [row] = await tx.query<{ id: string }>(
        `UPDATE embedding_jobs SET done = done + $2, total = GREATEST(total, done + $2), updated_at = now()
          WHERE id = $1 AND status = 'running' AND lease_owner = $3 RETURNING id`,
        [jobId, fresh.length, me],
      );
      return !!row;
    });
    if (!alive) return;
  }

  // 3. The index, then the switch: from now on retrieval reads the new vectors.
  await ensureVectorIndex(sql, provider.model, provider.dimensions);
  await sql.transaction(async (tx) => {
    const [row] = await tx.query<{ id: string }>(
      `UPDATE embedding_jobs SET status = 'done', done = GREATEST(done, total), total = GREATEST(done, total), error = NULL,
              updated_at = now(), finished_at = now(), lease_owner = NULL, lease_expires_at = NULL
        WHERE id = $1 AND status = 'running' AND lease_owner = $2 RETURNING id`,
      [jobId, me],
    );
    if (row) await writeActiveModel(tx, { model: provider.model, dimensions: provider.dimensions, kind: provider.kind });
  });
}

/**
 * One statement per page. The join on the current content skips memories deleted or
 * edited since the page was read: an edit writes its own vectors for both models, and
 * a stale vector must not overwrite it.
 */
async function upsertVectors(tx: ProjectSql, provider: EmbeddingProvider, page: Page, vectors: number[][]) {
  if (vectors.length !== page.length) throw new Error(`embedder returned ${vectors.length} vectors for ${page.length} texts`);
  await tx.query(
    `INSERT INTO memory_embeddings (memory_id, model, user_id, dimensions, embedding, project_id)
     SELECT m.id, $1, m.user_id, $2, u.v::vector, m.project_id
       FROM unnest($3::uuid[], $4::text[], $5::text[]) AS u(id, content, v)
       JOIN memories m ON m.id = u.id AND m.content = u.content AND m.project_id = $6
     ON CONFLICT (project_id, model, memory_id) DO UPDATE SET embedding = EXCLUDED.embedding, dimensions = EXCLUDED.dimensions,
            user_id = EXCLUDED.user_id, created_at = now()`,
    [provider.model, provider.dimensions, page.map((m) => m.id), page.map((m) => m.content), vectors.map(toVectorLiteral), tx.projectId],
  );
}
