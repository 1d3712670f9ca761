import "server-only";
import { notFound } from "../../errors/domain-errors";
import type { ProjectSql } from "../../db/project-sql";
import { decodeCursor, encodeCursor, ZCursorNumber, ZCursorTime, ZCursorUuid } from "../../pagination/cursor";
import { prefixTsQuery, type MemoryFilter } from "../list-memories";
import type { MemoryAsOf, MemoryListQuery } from "../schemas";
import { probeMemories, probeUserFast } from "./history-probe";
import { newestFirstIds } from "./newest-first-sql";
import { ACCESS_CTE, stateCtes } from "./state-sql";
import { fastStateAt, rebuildAt, type RebuiltMemory } from "./rebuild-state";
import { relationsAsOf } from "./relations-as-of";

/**
 * The instant an as-of read answers for, as ISO: a future instant reads as now (nothing has
 * happened after now), so decay and the log are measured up to the present.
 */
export function asOfInstant(asOf: string | Date, now = Date.now()): string {
  return new Date(Math.min(new Date(asOf).getTime(), now)).toISOString();
}

/**
 * Every memory of a user alive at `asOf`, in its state of then (no relations): what list
 * and search sort, filter and score. reconstructed / reason are provisional here: settle
 * them for the rows you answer with exactAsOf (a few index probes each). `withoutText`:
 * content and structured_data are left empty (cheaper, for sorting and filtering).
 */
export async function memoriesAsOf(sql: ProjectSql, opts: { userId: string; asOf: string | Date; withoutText?: boolean }): Promise<RebuiltMemory[]> {
  const at = asOfInstant(opts.asOf);
  const t = new Date(at).getTime();
  const probes = await probeUserFast(sql, at, opts.userId, { light: opts.withoutText });
  return probes.map((p) => fastStateAt(p, t)).filter((m): m is RebuiltMemory => m !== null);
}

/**
 * The rows an answer holds, rebuilt with every check (history complete around T, accesses
 * matching the log), in the order given; a row the full rebuild finds absent is dropped.
 */
export async function exactAsOf(sql: ProjectSql, ids: string[], asOf: string | Date): Promise<RebuiltMemory[]> {
  if (!ids.length) return [];
  const at = asOfInstant(asOf);
  const t = new Date(at).getTime();
  const probes = new Map((await probeMemories(sql, at, { ids })).map((p) => [p.id, p]));
  return ids.map((id) => (probes.has(id) ? rebuildAt(probes.get(id)!, t) : null)).filter((m): m is RebuiltMemory => m !== null);
}

/** Adds each memory's relations alive at `asOf`. */
export async function withRelationsAsOf(sql: ProjectSql, memories: RebuiltMemory[], asOf: string | Date): Promise<MemoryAsOf[]> {
  const at = asOfInstant(asOf);
  const users = [...new Set(memories.map((m) => m.user_id))];
  const rel = await relationsAsOf(sql, memories.map((m) => m.id), at, users);
  return memories.map((m) => {
    const { reconstructed, reason, ...memory } = m;
    return { ...memory, relations: rel.get(m.id) ?? [], reconstructed, reason };
  });
}

/** One memory as it was at `asOf`; null when it did not exist then (or is not this project's). */
export async function loadMemoryAsOf(sql: ProjectSql, id: string, asOf: string | Date): Promise<MemoryAsOf | null> {
  const at = asOfInstant(asOf);
  const [probe] = await probeMemories(sql, at, { ids: [id] });
  const m = probe ? rebuildAt(probe, new Date(at).getTime()) : null;
  if (!m) return null;
  return (await withRelationsAsOf(sql, [m], at))[0];
}

/** loadMemoryAsOf or a 404 (the same answer as for an unknown id). */
export async function requireMemoryAsOf(sql: ProjectSql, id: string, asOf: string | Date): Promise<MemoryAsOf> {
  const m = await loadMemoryAsOf(sql, id, asOf);
  if (!m) throw notFound("Memory", id);
  return m;
}

export type AsOfListOptions = {
  userId: string;
  asOf: string | Date;
  filters?: Partial<MemoryFilter>;
  sort?: MemoryListQuery["sort"];
  order?: MemoryListQuery["order"];
  cursor?: string;
  limit?: number;
};

// Keyset order of the list as of T (the live list's: never accessed sorts as the epoch).
const SORT_SQL: Record<MemoryListQuery["sort"], string> = {
  updated_at: "s.updated_at",
  created_at: "s.created_at",
  importance_score: "s.importance_score",
  access_count: "COALESCE(a.n, 0)",
  last_accessed_at: "COALESCE(a.last, 'epoch'::timestamptz)",
};

/**
 * GET /users/{user_id}/memories?as_of=T: the live list's filters, sort and keyset cursor,
 * applied to every memory as it was at T. The state at T, the filters, the order and the
 * page are computed in one statement (state-sql.ts); only the page's rows are rebuilt in
 * JavaScript, with every check (exactAsOf). The cursor names the instant, so a page of one
 * instant cannot continue another.
 */
export async function listMemoriesAsOf(sql: ProjectSql, o: AsOfListOptions): Promise<{ data: MemoryAsOf[]; next_cursor: string | null; as_of: string }> {
  const at = asOfInstant(o.asOf);
  const f: Partial<MemoryFilter> = o.filters ?? {};
  const sort = o.sort ?? "updated_at";
  const order = o.order ?? "desc";
  const limit = o.limit ?? 50;
  const params: unknown[] = [sql.projectId, o.userId, at];
  const param = (value: unknown) => (params.push(value), `$${params.length}`);
  // Tests on the state of then, given the expression of each field (a column or a snapshot's).
  type Fields = { status: string; memory_type: string; importance_score: string };
  const tests: ((x: Fields) => string)[] = [];
  const status = f.status ?? "active";
  if (status !== "all") {
    const p = param(status);
    tests.push((x) => `${x.status} = ${p}`);
  }
  if (f.memory_type) {
    const p = param(f.memory_type);
    tests.push((x) => `${x.memory_type} = ${p}`);
  }
  if (f.min_importance !== undefined) {
    const p = param(f.min_importance);
    tests.push((x) => `${x.importance_score} >= ${p}`);
  }
  if (f.max_importance !== undefined) {
    const p = param(f.max_importance);
    tests.push((x) => `${x.importance_score} <= ${p}`);
  }
  const key = SORT_SQL[sort];
  const numeric = sort === "importance_score" || sort === "access_count";
  const list = `memories-as-of:${at}:${sort}:${order}`;
  const after = decodeCursor(o.cursor, list, [numeric ? ZCursorNumber : ZCursorTime, ZCursorUuid]);
  let rows: { id: string; k: number | string | Date }[];
  if (sort === "updated_at" && order === "desc" && !f.q) {
    // The default list: read off index scans that stop at the page (newest-first-sql.ts).
    rows = await newestFirstIds(sql, {
      userId: o.userId,
      at,
      filter: { status: status === "all" ? undefined : status, memory_type: f.memory_type, min_importance: f.min_importance, max_importance: f.max_importance },
      cursor: after ? { key: String(after[0]), id: after[1] } : null,
      n: limit + 1,
    });
  } else {
    const where = tests.map((t) => t({ status: "s.status", memory_type: "s.memory_type", importance_score: "s.importance_score" }));
    if (f.q) {
      // The live list's rule, on the content of then.
      const tsq = prefixTsQuery(f.q);
      where.push(tsq ? `to_tsvector('simple', s.content) @@ to_tsquery('simple', ${param(tsq)})` : `strpos(s.content, ${param(f.q)}) > 0`);
    }
    if (after) where.push(`(${key}, s.id) ${order === "asc" ? ">" : "<"} (${param(after[0])}${numeric ? "::float8" : "::timestamptz"}, ${param(after[1])}::uuid)`);
    const dir = order === "asc" ? "ASC" : "DESC";
    const withAccess = sort === "access_count" || sort === "last_accessed_at";
    const n = param(limit + 1);
    rows = await sql.query(
      `WITH ${stateCtes({ content: !!f.q })}${withAccess ? `, ${ACCESS_CTE}` : ""}
       SELECT s.id, ${key} AS k FROM state s ${withAccess ? "LEFT JOIN acc a ON a.id = s.id" : ""}
        ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
        ORDER BY ${key} ${dir}, s.id ${dir}
        LIMIT ${n}`,
      params,
    );
  }
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const lastKey = last ? (numeric ? Number(last.k) : new Date(last.k).toISOString()) : null;
  return {
    data: await withRelationsAsOf(sql, await exactAsOf(sql, page.map((m) => m.id), at), at),
    next_cursor: rows.length > limit && last ? encodeCursor(list, [lastKey!, last.id]) : null,
    as_of: at,
  };
}
