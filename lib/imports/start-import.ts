import "server-only";
import { failedRecords } from "./field-readers";
import type { ProjectSql } from "../db/project-sql";
import { compareKeys, connectDify, difyDatabaseUrl, difySourceKey, keyBefore, planDifyRun, readCursor, writeCursor, type MessageKey } from "./dify-db";
import { controlJob, createJob, finishJob, saveProgress } from "./import-jobs";
import { parseImportText, type FileFormat } from "./parse-import";
import { readStoreRows } from "./langgraph-db";
import { langgraphMemories, storeRowsFromDump } from "./parse-langgraph";
import { ImportCancelled, ImportRun, type ImportProgress } from "./run-import";
import type { ImportCreate, ImportJob } from "./schemas";
import { withBulkJobHeap } from "../process/bulk-job-heap";

// POST /api/v1/imports: checks what can be checked at once (the file parses and its
// format is known; Dify's database answers and has the app), answers the job, and runs
// the import in the background, saving progress at most every PROGRESS_MS.

const PROGRESS_MS = 200;

/** `actor`: who starts it (an account's email or an API key's name), kept on the job. */
export async function startImport(sql: ProjectSql, actor: string | null, req: ImportCreate): Promise<ImportJob> {
  if (req.format === "dify-db") return startDifyDb(sql, actor, req);
  if (req.format === "langgraph" && req.content === undefined) return startLangGraphDb(sql, actor, req);
  // Parsing is bounded by the body limit; a file that cannot be read is a 422 now, not a failed job.
  const parsed =
    req.format === "langgraph"
      ? langgraphDump(req.content!, req)
      : parseImportText(req.content!, req.format as FileFormat | undefined, { app_id: req.app_id, end_user_id: req.end_user_id ?? null });
  const job = await createJob(sql, { format: parsed.format, label: req.file_name ?? `${parsed.format} file`, dryRun: req.dry_run, actor });
  const total = parsed.conversations.length + parsed.memories.length + failedRecords(parsed.problems);
  await saveProgress(sql, job.id, { ...zero(), total, status: "running" });
  inBackground(sql, job.id, async (run) => {
    await run.add(parsed);
  }, req.dry_run);
  return { ...job, status: "running", total };
}

function langgraphDump(text: string, req: ImportCreate) {
  const dump = storeRowsFromDump(text);
  return langgraphMemories(dump.rows, { app_id: req.app_id, user_segment: req.namespace_user_index }, dump.problems);
}

/** LangGraph's store table, read once (read only) before the job exists: an unreachable database is a 409 now. */
async function startLangGraphDb(sql: ProjectSql, actor: string | null, req: ImportCreate): Promise<ImportJob> {
  const parsed = langgraphMemories(await readStoreRows(), { app_id: req.app_id, user_segment: req.namespace_user_index });
  const job = await createJob(sql, { format: "langgraph", label: "LangGraph store", dryRun: req.dry_run, actor });
  const total = parsed.memories.length + failedRecords(parsed.problems) + (parsed.skipped ?? 0);
  await saveProgress(sql, job.id, { ...zero(), total, status: "running" });
  inBackground(sql, job.id, (run) => run.add(parsed), req.dry_run);
  return { ...job, status: "running", total };
}

async function startDifyDb(sql: ProjectSql, actor: string | null, req: ImportCreate): Promise<ImportJob> {
  const url = difyDatabaseUrl();
  const client = await connectDify(url);
  const appId = req.dify_app_id!;
  const key = difySourceKey(url!, appId);
  let plan;
  let cursor: MessageKey | null;
  try {
    cursor = await readCursor(sql, key);
    plan = await planDifyRun(client, appId, cursor, { app_id: req.app_id });
  } catch (e) {
    await client.end().catch(() => {});
    throw e;
  }
  const job = await createJob(sql, { format: "dify-db", label: `Dify app ${appId}`, dryRun: req.dry_run, actor });
  await saveProgress(sql, job.id, { ...zero(), total: plan.total, status: "running" });
  inBackground(
    sql,
    job.id,
    async (run) => {
      let firstFailed: MessageKey | null = null;
      try {
        for await (const page of plan.pages) {
          const failedBefore = run.counts.failed;
          const problemsBefore = new Set(run.problems);
          await run.add(page.parsed);
          if (run.counts.failed > failedBefore) {
            // The cursor must not pass a conversation that failed: the next run retries it.
            for (const p of run.problems) {
              if (problemsBefore.has(p)) continue;
              const id = /^conversation (\S+)/.exec(p.record)?.[1] ?? page.parsed.conversations.find((c) => c.record === p.record)?.id;
              const k = id ? page.firstKeys.get(id) : undefined;
              if (k && (!firstFailed || compareKeys(k, firstFailed) < 0)) firstFailed = k;
            }
            if (!firstFailed) firstFailed = { created_at: "0000", id: "" }; // unknown which: do not move
          }
        }
        if (req.dry_run || !plan.upper) return;
        const next = firstFailed ? (firstFailed.id ? await keyBefore(client, appId, cursor, firstFailed) : null) : plan.upper;
        if (next && (!cursor || compareKeys(next, cursor) > 0)) await writeCursor(sql, key, next);
      } finally {
        await client.end().catch(() => {});
      }
    },
    req.dry_run,
  );
  return { ...job, status: "running", total: plan.total };
}

/** `totalOf`: the records expected so far, for a source whose size is known only as it is read (a stream). */
export function inBackground(sql: ProjectSql, jobId: string, work: (run: ImportRun) => Promise<void>, dryRun: boolean, totalOf?: () => number, cleanup?: () => void) {
  let last = 0;
  let saving: Promise<void> | null = null;
  const control = controlJob(jobId);
  const run = new ImportRun(sql, {
    dryRun,
    jobId,
    signal: control.signal,
    onProgress: async (p: ImportProgress) => {
      const now = Date.now();
      if (now - last < PROGRESS_MS || saving) return;
      last = now;
      saving = saveProgress(sql, jobId, totalOf ? { ...p, total: totalOf() } : p).finally(() => (saving = null));
      await saving;
    },
  });
  // Not awaited: the request answers now; the job row tells the rest.
  void (async () => {
    await new Promise((r) => setImmediate(r));
    let error: string | null = null;
    let cancelled = false;
    try {
      run.checkCancelled();
      await withBulkJobHeap(() => work(run));
    } catch (e) {
      if (e instanceof ImportCancelled) cancelled = true;
      else {
        error = e instanceof Error ? e.message : String(e);
        console.error(`[imports] job ${jobId} stopped:`, e);
      }
    } finally {
      cleanup?.();
    }
    await saving;
    await finishJob(sql, jobId, run.snapshot(), error, cancelled).catch((e) => console.error(`[imports] job ${jobId}: could not record the end`, e));
    control.ended();
  })();
}

export const zero = (): ImportProgress => ({ conversations: 0, turns: 0, memories: 0, skipped: 0, failed: 0, processed: 0, problems: [], unrepresented: {} });
