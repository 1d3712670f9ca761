import "server-only";
import { randomUUID } from "node:crypto";
import { recordAudit } from "../auth/audit";
import { getDb } from "../db/get-db";
import type { ProjectSql } from "../db/project-sql";
import { notFound } from "../errors/domain-errors";
import { eraseText, findText, type TextMatch } from "./erase-text";
import { analyzeErased, erasureUnderWay, eraseUser, probeTexts, type StageTimes } from "./erase-user";
import { rewriteTables } from "./physical";
import { passed, pickProbeStrings, probeIds, probeScan, probeSearch } from "./probes";
import { purgeProcessCaches } from "./purge-caches";
import { projectTextColumns } from "./scan-columns";
import { OUTSIDE_REACH, projectSalt, subjectHash, type Receipt } from "./receipt";
import { countUserRows, totalOf, userHasRows, type TableCounts } from "./user-tables";

// The erasure routes' work: dry run, erasure, caches, physical rewrite, probes, receipt in
// the audit log. An unknown user, and a user of another project, is a 404 (nothing of the
// user in this project, and no erasure of theirs left unfinished).

export type UserErasureAnswer = { dry_run: true; counts: TableCounts; total: number } | { dry_run: false; receipt: Receipt };

export async function runUserErasure(sql: ProjectSql, userId: string, opts: { dryRun: boolean; physical: boolean; by: string }): Promise<UserErasureAnswer> {
  const t0 = performance.now();
  if (opts.dryRun) {
    const counts = await countUserRows(sql, userId);
    if (!totalOf(counts) && !(await erasureUnderWay(sql, userId))) throw notFound("User", userId, "user_id");
    return { dry_run: true, counts, total: totalOf(counts) };
  }
  // Whether there is anything to erase, not how much: counting every row of a large user
  // reads them all once more.
  if (!(await erasureUnderWay(sql, userId)) && !(await userHasRows(sql, userId))) throw notFound("User", userId, "user_id");

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
  await timed("analyze", () => analyzeErased(sql, out.counts));

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
    subject: subjectHash(await projectSalt(sql), userId),
    strings: null,
    started_at: out.startedAt,
    finished_at: new Date().toISOString(),
    by: opts.by,
    resumed: out.resumed,
    counts: out.counts,
    total: totalOf(out.counts),
    physical,
    probes,
    outside_reach: [...OUTSIDE_REACH, ...(physical?.outside_reach ?? [])],
    stages_ms: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, Math.round(v)])),
  };
  await recordAudit(db.prisma, { projectId: sql.projectId, action: "user.erased", actor: opts.by, target: receipt.subject!, details: receipt });
  return { dry_run: false, receipt };
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
  const physical = opts.physical ? await rewriteTables(sql, r.tables, db.config.kind) : null;
  // The same scan as the dry run, in the same scope: what stays by design (identifier
  // columns, the audit log, other users' rows for a user's erasure) was listed there.
  const after = (await findText(sql, strings, scope)).filter((m) => m.replaced);
  const where = after.map((m) => ({ table: m.table, column: m.column, rows: m.rows }));
  const probes = {
    ids: { checked: 0, found: 0 },
    search: { checked: 0, found: 0 },
    scan: { columns: (await projectTextColumns(sql)).length, strings: strings.length, found: where.reduce((n, w) => n + w.rows, 0), where },
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
