import "server-only";
import { randomUUID } from "node:crypto";
import { recordAudit } from "../auth/audit";
import { getDb } from "../db/get-db";
import type { ProjectSql } from "../db/project-sql";
import { notFound } from "../errors/domain-errors";
import { eraseText, findText, type TextMatch } from "./erase-text";
import { analyzeErased, eraseFromImportJobs, erasureUnderWay, eraseUser, probeTexts, type StageTimes } from "./erase-user";
import { rewriteTables } from "./physical";
import { passed, pickProbeStrings, probeIds, probeScan, probeSearch, scanAnswer } from "./probes";
import { purgeProcessCaches } from "./purge-caches";
import { projectTextColumns } from "./scan-columns";
import { OUTSIDE_REACH, projectSalt, SALT_KEY, subjectHash, type Receipt } from "./receipt";
import { countUserRows, totalOf, userHasRows, type TableCounts } from "./user-tables";

// The erasure routes' work: dry run, erasure, caches, physical rewrite, probes, receipt in
// the audit log. An unknown user, and a user of another project, is a 404 (nothing of the
// user in this project, and no erasure of theirs left unfinished).

export type UserErasureAnswer = { dry_run: true; counts: TableCounts; total: number } | { dry_run: false; receipt: Receipt };

/**
 * The receipt of the user's last erasure when one of its probes failed: the erasure is then
 * not finished, and running it again redoes what it can without rows of the user (the import
 * jobs' texts, the statistics) and probes again (issue 39). Null otherwise.
 */
async function failedReceipt(sql: ProjectSql, userId: string): Promise<Receipt | null> {
  // The salt as stored (none yet: no receipt either); projectSalt would write one.
  const [salt] = await sql.query<{ v: string }>(`SELECT value #>> '{}' AS v FROM app_settings WHERE project_id = $1 AND key = $2`, [sql.projectId, SALT_KEY]);
  if (!salt) return null;
  const [row] = await sql.query<{ details: Receipt }>(
    `SELECT details FROM audit_events WHERE project_id = $1 AND action = 'user.erased' AND target = $2 ORDER BY created_at DESC LIMIT 1`,
    [sql.projectId, subjectHash(salt.v, userId)],
  );
  return row && row.details?.probes?.passed === false ? row.details : null;
}

export async function runUserErasure(sql: ProjectSql, userId: string, opts: { dryRun: boolean; physical: boolean; by: string }): Promise<UserErasureAnswer> {
  const t0 = performance.now();
  if (opts.dryRun) {
    const counts = await countUserRows(sql, userId);
    if (!totalOf(counts) && !(await erasureUnderWay(sql, userId)) && !(await failedReceipt(sql, userId))) throw notFound("User", userId, "user_id");
    return { dry_run: true, counts, total: totalOf(counts) };
  }
  // Whether there is anything to erase, not how much: counting every row of a large user
  // reads them all once more.
  if (!(await erasureUnderWay(sql, userId)) && !(await userHasRows(sql, userId))) {
    const failed = await failedReceipt(sql, userId);
    if (!failed) throw notFound("User", userId, "user_id");
    return { dry_run: false, receipt: await finishFailed(sql, userId, subjectHash(await projectSalt(sql), userId), failed, opts) };
  }
  const subject = subjectHash(await projectSalt(sql), userId);

  const db = await getDb();
  const kind = db.config.kind;
  const stages: StageTimes = { "found user": performance.now() - t0 };
  const timed = async <T,>(stage: string, fn: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    try {
      return await fn();
    } finally {
      stages[stage] = (stages[stage] ?? 0) + performance.now() - t;
    }
  };
  const probeStrings = await timed("probe strings", () => pickProbeStrings(sql, userId));
  const out = await eraseUser(sql, userId, { kind });
  Object.assign(stages, out.stages);
  purgeProcessCaches();
  const stats = await timed("analyze", () => analyzeErased(sql, { ...out.counts, import_jobs: 1, privacy_erasures: 1 }));

  const ids = await timed("probe: ids", () => probeIds(sql, { memories: out.erased.memoryIds, conversations: out.erased.conversationIds, messages: out.erased.messageIds }));
  const search = await timed("probe: search", () => probeSearch(sql, userId, probeTexts(out.erased, 50), out.erased.memoryIds));
  const scan = await timed("probe: scan", () => probeScan(sql, probeStrings));
  const probes = { ids, search, scan, passed: false };
  probes.passed = passed(probes);

  // After the probes: the search probe's retrieval rows, rolled back, still left the texts
  // in dead tuples and the write-ahead log, which the rewrite removes with the rest; the
  // erasure's own mark named the user.
  const touched = Object.entries(out.counts).filter(([, n]) => n > 0).map(([t]) => t);
  const physical = opts.physical
    ? await timed("physical", () => rewriteTables(sql, [...touched, "memory_retrievals", "memory_retrieval_hits", "privacy_erasures"], kind))
    : null;

  const receipt: Receipt = {
    receipt_id: out.erasureId,
    kind: "user",
    subject,
    strings: null,
    started_at: out.startedAt,
    finished_at: new Date().toISOString(),
    by: opts.by,
    resumed: out.resumed,
    counts: out.counts,
    total: totalOf(out.counts),
    physical,
    probes,
    outside_reach: [...OUTSIDE_REACH, ...statsOutside(stats.kept), ...(physical?.outside_reach ?? [])],
    stages_ms: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, Math.round(v)])),
  };
  await recordAudit(db.prisma, { projectId: sql.projectId, action: "user.erased", actor: opts.by, target: receipt.subject!, details: receipt });
  return { dry_run: false, receipt };
}

/**
 * A re-run of an erasure whose probe failed: no row of the user is left, so what it redoes is
 * what reaches past the rows (import jobs naming the user, the planner's statistics of the
 * tables the first run touched), then the id probe again. A new receipt, resumed: true.
 */
async function finishFailed(sql: ProjectSql, userId: string, subject: string, failed: Receipt, opts: { physical: boolean; by: string }): Promise<Receipt> {
  const started = new Date().toISOString();
  const kind = (await getDb()).config.kind;
  await sql.transaction((tx) => eraseFromImportJobs(tx, userId));
  purgeProcessCaches();
  const touched = Object.entries(failed.counts).filter(([, n]) => n > 0).map(([t]) => t);
  const stats = await analyzeErased(sql, Object.fromEntries([...touched, "import_jobs", "privacy_erasures"].map((t) => [t, 1])));
  const probes = {
    ids: { checked: 0, found: 0 },
    search: { checked: 0, found: 0 },
    scan: await probeScan(sql, [{ s: userId, probe: "user id" }]),
    passed: false,
  };
  probes.passed = passed(probes);
  const physical = opts.physical ? await rewriteTables(sql, [...touched, "import_jobs", "memory_retrievals", "memory_retrieval_hits", "privacy_erasures"], kind) : null;
  const receipt: Receipt = {
    receipt_id: randomUUID(),
    kind: "user",
    subject,
    strings: null,
    started_at: started,
    finished_at: new Date().toISOString(),
    by: opts.by,
    resumed: true,
    counts: Object.fromEntries(Object.keys(failed.counts).map((t) => [t, 0])),
    total: 0,
    physical,
    probes,
    outside_reach: [...OUTSIDE_REACH, ...statsOutside(stats.kept), ...(physical?.outside_reach ?? [])],
  };
  await recordAudit((await getDb()).prisma, { projectId: sql.projectId, action: "user.erased", actor: opts.by, target: subject, details: receipt });
  return receipt;
}

/** Tables the erasure emptied whose planner statistics this role may not clear (analyzeErased). */
function statsOutside(kept: string[]): string[] {
  return kept.length ? [`planner statistics (pg_statistic) of ${kept.join(", ")}, left empty: cleared by a superuser or the next ANALYZE with rows`] : [];
}

export type TextErasureAnswer = { dry_run: true; matches: TextMatch[] } | { dry_run: false; matches: TextMatch[]; rows: Record<string, number>; memories_reembedded: number; receipt: Receipt };

export async function runTextErasure(
  sql: ProjectSql,
  strings: string[],
  userId: string | null,
  opts: { dryRun: boolean; physical: boolean; by: string },
): Promise<TextErasureAnswer> {
  const scope = userId === null ? null : { userId };
  if (scope && !totalOf(await countUserRows(sql, scope.userId))) throw notFound("User", scope.userId, "user_id");
  if (opts.dryRun) return { dry_run: true, matches: await findText(sql, strings, scope) };

  const started = new Date().toISOString();
  const db = await getDb();
  const r = await eraseText(sql, strings, scope);
  purgeProcessCaches();
  // The planner's statistics sampled the strings as they were (analyzeErased, issue 39).
  await analyzeErased(sql, Object.fromEntries(r.tables.map((t) => [t, 1])));
  const physical = opts.physical ? await rewriteTables(sql, r.tables, db.config.kind) : null;
  // The same scan as the dry run, in the same scope: what stays by design (identifier
  // columns, the audit log, other users' rows for a user's erasure) was listed there.
  const after = (await findText(sql, strings, scope)).filter((m) => m.replaced);
  const probes = {
    ids: { checked: 0, found: 0 },
    search: { checked: 0, found: 0 },
    // Substrings: what text erasure replaces.
    scan: scanAnswer({ columns: (await projectTextColumns(sql)).length, found: after }, strings.map(() => "erased string" as const), "substring"),
    passed: false,
  };
  probes.passed = passed(probes);
  const receipt: Receipt = {
    receipt_id: randomUUID(),
    kind: "text",
    subject: scope ? subjectHash(await projectSalt(sql), scope.userId) : null,
    strings: strings.length,
    started_at: started,
    finished_at: new Date().toISOString(),
    by: opts.by,
    resumed: false,
    counts: r.rows,
    total: Object.values(r.rows).reduce((a, b) => a + b, 0),
    physical,
    probes,
    outside_reach: [...OUTSIDE_REACH, ...(physical?.outside_reach ?? [])],
  };
  await recordAudit(db.prisma, { projectId: sql.projectId, action: "text.erased", actor: opts.by, target: receipt.subject ?? "project", details: receipt });
  return { dry_run: false, matches: r.matches, rows: r.rows, memories_reembedded: r.memories_reembedded, receipt };
}
