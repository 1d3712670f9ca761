import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { ProjectSql } from "../db/project-sql";
import { ConflictError, NotFoundError } from "../errors/domain-errors";
import { recordAuditSql } from "./audit";
import { DetectRun, detectKnownConversations, type ConversationRef } from "./detect";
import type { IncidentScan, ScanCreate } from "./schemas";

// Backfill (POST /incidents/scan): the rules over stored turns, as a job in this process
// whose row carries its progress. One job per scope (a conversation, or '*' for the
// project) at a time: the partial unique index on running rows is the lock, across
// instances. A job whose instance died stops beating; after STALE_MS another may take over.

// A page of conversations (keyset on id) with their turn counts, cut into batches of about
// maxTurns turns: a batch costs a fixed six statements, so batches sized by turns keep short
// conversations from paying them per handful of turns, and long ones from making one batch's
// rows huge. On the embedded database a statement runs on the server's thread and holds it for
// as long as it takes: its batches are smaller, so that a request waits for one short statement
// at most. detectConversations gives the thread back every few milliseconds within a batch, and
// a timer turn separates batches and follows each page's statement. On the embedded database a
// page of 400 conversations with their counts took ~40 ms of the thread and a 200-turn batch's
// read ~30-50 ms (bench/diag/incidents-stalls.ts, main-thread CPU): both are halved there, so
// that a request waits for ~20-25 ms of statement at most (/ready p99 < 100 ms during a scan).
const PAGE = { embedded: 100, server: 400 };
const BATCH_TURNS = { embedded: 100, server: 1000 };
const BATCH_CONVERSATIONS = 200;

export type ScanOptions = { /** The database runs on the server's thread (PGlite). */ embedded?: boolean };
const STALE_MS = 120_000;
const PROGRESS_MS = 500;

type ScanRow = {
  id: string;
  status: IncidentScan["status"];
  conversation_id: string | null;
  since: Date | string | null;
  conversations_total: number;
  conversations_done: number;
  turns_scanned: number;
  incidents_found: number;
  error: string | null;
  created_by: string | null;
  started_at: Date | string;
  finished_at: Date | string | null;
};
const COLUMNS = `id, status, conversation_id, since, conversations_total, conversations_done, turns_scanned, incidents_found, error, created_by, started_at, finished_at`;
const iso = (d: Date | string) => new Date(d).toISOString();

function toScan(r: ScanRow): IncidentScan {
  const total = Number(r.conversations_total);
  const done = Number(r.conversations_done);
  return {
    id: r.id,
    status: r.status,
    conversation_id: r.conversation_id,
    since: r.since === null ? null : iso(r.since),
    conversations_total: total,
    conversations_done: done,
    turns_scanned: Number(r.turns_scanned),
    incidents_found: Number(r.incidents_found),
    progress: r.status === "done" ? 1 : total ? Math.min(1, done / total) : 0,
    error: r.error,
    created_by: r.created_by,
    started_at: iso(r.started_at),
    finished_at: r.finished_at === null ? null : iso(r.finished_at),
  };
}

export async function getScan(sql: ProjectSql, id: string): Promise<IncidentScan> {
  if (!z.uuid().safeParse(id).success) throw new NotFoundError("Incident scan", id);
  const [row] = await sql.query<ScanRow>(`SELECT ${COLUMNS} FROM incident_scans WHERE project_id = $1 AND id = $2`, [sql.projectId, id]);
  if (!row) throw new NotFoundError("Incident scan", id);
  return toScan(row);
}

/** The conversations a scan walks, by id after `after` (keyset), with how many turns each has. */
function conversationPage(sql: ProjectSql, input: ScanCreate, after: string | null, size: number) {
  return sql.query<ConversationRef & { turns: number | string }>(
    `SELECT c.id, c.app_id, c.end_user_id, (SELECT count(*) FROM messages m WHERE m.project_id = c.project_id AND m.conversation_id = c.id) AS turns FROM conversations c
      WHERE c.project_id = $1 AND c.deleted_at IS NULL AND ($2::uuid IS NULL OR c.id = $2) AND ($3::uuid IS NULL OR c.id > $3)
        AND ($4::timestamptz IS NULL OR EXISTS (SELECT 1 FROM messages m WHERE m.project_id = c.project_id AND m.conversation_id = c.id AND m.created_at >= $4))
      ORDER BY c.id LIMIT ${size}`,
    [sql.projectId, input.conversation_id ?? null, after, input.since ?? null],
  );
}

/**
 * Starts a scan and answers its row at once; the work goes on in the background. 404 for a
 * conversation the project does not have; 409 incident_scan_in_progress naming the job that
 * runs for the same scope.
 */
export async function startScan(sql: ProjectSql, input: ScanCreate, opts: ScanOptions = {}): Promise<IncidentScan> {
  if (input.conversation_id) {
    const [c] = await sql.query(`SELECT 1 FROM conversations WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL`, [sql.projectId, input.conversation_id]);
    if (!c) throw new NotFoundError("Conversation", input.conversation_id, "conversation_id");
  }
  const scope = input.conversation_id ?? "*";
  // A job whose instance stopped beating is over: fail it so this scope can run again.
  await sql.query(
    `UPDATE incident_scans SET status = 'failed', error = 'stopped: its server went away', finished_at = now()
      WHERE project_id = $1 AND scope = $2 AND status = 'running' AND heartbeat_at < now() - ($3 || ' milliseconds')::interval`,
    [sql.projectId, scope, String(STALE_MS)],
  );
  // On the embedded database each statement holds the thread: other requests go between them.
  await new Promise((r) => setImmediate(r));
  const [total] = await sql.query<{ n: string | number }>(
    `SELECT count(*) AS n FROM conversations c
      WHERE c.project_id = $1 AND c.deleted_at IS NULL AND ($2::uuid IS NULL OR c.id = $2)
        AND ($3::timestamptz IS NULL OR EXISTS (SELECT 1 FROM messages m WHERE m.project_id = c.project_id AND m.conversation_id = c.id AND m.created_at >= $3))`,
    [sql.projectId, input.conversation_id ?? null, input.since ?? null],
  );
  const id = randomUUID();
  await new Promise((r) => setImmediate(r));
  const row = await sql.transaction(async (tx) => {
    const [r] = await tx.query<ScanRow>(
      `INSERT INTO incident_scans (project_id, id, scope, conversation_id, since, conversations_total, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (project_id, scope) WHERE status = 'running' DO NOTHING RETURNING ${COLUMNS}`,
      [tx.projectId, id, scope, input.conversation_id ?? null, input.since ?? null, Number(total?.n ?? 0), tx.actorLabel],
    );
    if (r) await recordAuditSql(tx, { action: "incident.scan_started", actor: tx.actorLabel ?? "open", target: id, details: { conversation_id: input.conversation_id ?? null, since: input.since ?? null } });
    return r;
  });
  if (!row) {
    const [running] = await sql.query<{ id: string }>(`SELECT id FROM incident_scans WHERE project_id = $1 AND scope = $2 AND status = 'running'`, [sql.projectId, scope]);
    const what = input.conversation_id ? `conversation ${input.conversation_id}` : "the whole project";
    throw new ConflictError(
      `An incident scan of ${what} is running: job ${running?.id ?? "(just ended)"}`,
      [{ field: input.conversation_id ? "conversation_id" : "body", message: `scan ${running?.id ?? ""} is running for this scope`, job_id: running?.id ?? null }],
      "incident_scan_in_progress",
    );
  }
  void runScan(sql, id, input, opts);
  return toScan(row);
}

/** A page's conversations in order, cut into batches of about maxTurns turns (BATCH_CONVERSATIONS at most). */
export function turnBatches<C extends { id: string; turns: number | string }>(page: readonly C[], maxTurns: number): C[][] {
  const out: C[][] = [];
  let cur: C[] = [];
  let n = 0;
  for (const c of page) {
    const t = Number(c.turns);
    if (cur.length && (n + t > maxTurns || cur.length >= BATCH_CONVERSATIONS)) {
      out.push(cur);
      cur = [];
      n = 0;
    }
    cur.push(c);
    n += t;
  }
  if (cur.length) out.push(cur);
  return out;
}

/** The job: conversation batches through the rules, progress saved every half second. */
export async function runScan(sql: ProjectSql, id: string, input: ScanCreate, opts: ScanOptions = {}): Promise<void> {
  const maxTurns = opts.embedded ? BATCH_TURNS.embedded : BATCH_TURNS.server;
  const pageSize = opts.embedded ? PAGE.embedded : PAGE.server;
  // Other requests go on between statements (a timer, not setImmediate: their statements queue before ours).
  const giveBack = () => new Promise((r) => setTimeout(r, 1));
  await new Promise((r) => setImmediate(r));
  const run = new DetectRun(sql);
  const since = input.since ? new Date(input.since) : null;
  let after: string | null = null;
  let done = 0;
  let turns = 0;
  let found = 0;
  let saved = Date.now();
  const save = () =>
    sql.query(`UPDATE incident_scans SET conversations_done = $3, turns_scanned = $4, incidents_found = $5, heartbeat_at = now() WHERE project_id = $1 AND id = $2`, [
      sql.projectId,
      id,
      done,
      turns,
      found,
    ]);
  try {
    for (;;) {
      const page = await conversationPage(sql, input, after, pageSize);
      if (!page.length) break;
      await giveBack();
      for (const batch of turnBatches(page, maxTurns)) {
        const r = await detectKnownConversations(sql, batch, { since }, run);
        done += batch.length;
        turns += r.turns;
        found += r.found;
        if (Date.now() - saved >= PROGRESS_MS) {
          saved = Date.now();
          await save();
        }
        await giveBack();
      }
      after = page[page.length - 1].id;
      if (page.length < pageSize) break;
    }
    await sql.query(
      `UPDATE incident_scans SET status = 'done', conversations_done = $3, conversations_total = GREATEST(conversations_total, $3), turns_scanned = $4, incidents_found = $5, finished_at = now(), heartbeat_at = now()
        WHERE project_id = $1 AND id = $2`,
      [sql.projectId, id, done, turns, found],
    );
  } catch (e) {
    console.error(`[incidents] scan ${id} stopped:`, e);
    await sql
      .query(`UPDATE incident_scans SET status = 'failed', error = $3, conversations_done = $4, turns_scanned = $5, incidents_found = $6, finished_at = now() WHERE project_id = $1 AND id = $2`, [
        sql.projectId,
        id,
        e instanceof Error ? e.message : String(e),
        done,
        turns,
        found,
      ])
      .catch((err) => console.error(`[incidents] scan ${id}: could not record the end`, err));
  }
}
