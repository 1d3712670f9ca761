import "server-only";
import { notFound } from "../../errors/domain-errors";
import type { ProjectSql } from "../../db/project-sql";
import { decodeCursor, encodeCursor, ZCursorNumber, ZCursorTime, ZCursorUuid } from "../../pagination/cursor";
import { prefixTsQuery, type MemoryFilter } from "../list-memories";
import type { MemoryAsOf, MemoryListQuery } from "../schemas";
import { probeMemories, probeUserFast } from "./history-probe";
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

type SortKey = number | string;

function sortKey(m: RebuiltMemory, sort: MemoryListQuery["sort"]): SortKey {
  switch (sort) {
    case "importance_score":
      return m.importance_score;
    case "access_count":
      return m.access_count;
    case "created_at":
      return m.created_at;
    case "updated_at":
      return m.updated_at;
    case "last_accessed_at":
      // As the live list: never accessed sorts as the epoch.
      return m.last_accessed_at ?? new Date(0).toISOString();
  }
}

/** Times compare as ms since the epoch: sorting 10 000 rows parses each once. */
const numericKey = (k: SortKey): number => (typeof k === "number" ? k : new Date(k).getTime());

function cmp(a: SortKey, b: SortKey): number {
  return numericKey(a) - numericKey(b);
}

const idCmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The memories whose content at T matches the list's text filter (the live list's rule, on the content of then). */
async function textMatches(sql: ProjectSql, memories: RebuiltMemory[], q: string): Promise<Set<string>> {
  const tsq = prefixTsQuery(q);
  if (!tsq) return new Set(memories.filter((m) => m.content.includes(q)).map((m) => m.id));
  if (!memories.length) return new Set();
  const rows = await sql.query<{ id: string }>(
    `SELECT x.id FROM unnest($1::uuid[], $2::text[]) AS x(id, c) WHERE to_tsvector('simple', x.c) @@ to_tsquery('simple', $3)`,
    [memories.map((m) => m.id), memories.map((m) => m.content), tsq],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * GET /users/{user_id}/memories?as_of=T: the live list's filters, sort and keyset cursor,
 * applied to every memory as it was at T. The cursor names the instant, so a page of one
 * instant cannot continue another.
 */
export async function listMemoriesAsOf(sql: ProjectSql, o: AsOfListOptions): Promise<{ data: MemoryAsOf[]; next_cursor: string | null; as_of: string }> {
  const at = asOfInstant(o.asOf);
  const f: Partial<MemoryFilter> = o.filters ?? {};
  const sort = o.sort ?? "updated_at";
  const order = o.order ?? "desc";
  const limit = o.limit ?? 50;
  let rows = await memoriesAsOf(sql, { userId: o.userId, asOf: at, withoutText: !f.q });
  const status = f.status ?? "active";
  rows = rows.filter(
    (m) =>
      (status === "all" || m.status === status) &&
      (!f.memory_type || m.memory_type === f.memory_type) &&
      (f.min_importance === undefined || m.importance_score >= f.min_importance) &&
      (f.max_importance === undefined || m.importance_score <= f.max_importance),
  );
  if (f.q) {
    const hit = await textMatches(sql, rows, f.q);
    rows = rows.filter((m) => hit.has(m.id));
  }
  const dir = order === "asc" ? 1 : -1;
  const keys = new Map(rows.map((m) => [m.id, numericKey(sortKey(m, sort))]));
  rows.sort((a, b) => dir * (keys.get(a.id)! - keys.get(b.id)! || idCmp(a.id, b.id)));
  const numeric = sort === "importance_score" || sort === "access_count";
  const list = `memories-as-of:${at}:${sort}:${order}`;
  const after = decodeCursor(o.cursor, list, [numeric ? ZCursorNumber : ZCursorTime, ZCursorUuid]);
  if (after) {
    const [key, id] = after as [SortKey, string];
    rows = rows.filter((m) => dir * (cmp(sortKey(m, sort), key) || idCmp(m.id, id)) > 0);
  }
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: await withRelationsAsOf(sql, await exactAsOf(sql, page.map((m) => m.id), at), at),
    next_cursor: rows.length > limit && last ? encodeCursor(list, [sortKey(last, sort), last.id]) : null,
    as_of: at,
  };
}
