import "server-only";
import { decodeCursor, encodeCursor, ZCursorNumber, ZCursorTime, ZCursorUuid } from "../pagination/cursor";
import type { ProjectSql } from "../db/project-sql";
import { MEMORY_COLUMNS, serializeMemory, type MemoryRow } from "./memory-row";
import type { MemoryListQuery } from "./schemas";
import { lexicalTokens } from "../embeddings/lexical-embedder";

/**
 * The text filter as a tsquery of word prefixes, all required ("espres" finds espresso,
 * "dark mode" needs both words): answered by the GIN index on search_tsv. A substring
 * match (ILIKE '%q%') cannot use an index and read all 100 000 rows of a user for a rare
 * word (~400 ms). Words are letters and digits only, so they are safe inside a tsquery.
 * Null when the text has no word at all; the caller then falls back to a substring match.
 */
export function prefixTsQuery(q: string): string | null {
  const words = [...new Set(lexicalTokens(q))].slice(0, 16);
  return words.length ? words.map((w) => `${w}:*`).join(" & ") : null;
}

// Keyset pagination on (sort column, id); nulls (never accessed) sort last in either order.
const SORT_SQL: Record<MemoryListQuery["sort"], string> = {
  updated_at: "m.updated_at",
  created_at: "m.created_at",
  importance_score: "m.importance_score",
  access_count: "m.access_count",
  last_accessed_at: "COALESCE(m.last_accessed_at, 'epoch'::timestamptz)",
};

export type MemoryFilter = Pick<MemoryListQuery, "memory_type" | "status" | "q" | "min_importance" | "max_importance">;

/** WHERE clause (and params, numbered from `start`) shared by list, bulk and export. */
export function memoryFilterSql(projectId: string, userId: string, f: MemoryFilter, start = 1): { where: string; params: unknown[] } {
  const params: unknown[] = [userId, projectId];
  const where = [`m.user_id = $${start}`, `m.project_id = $${start + 1}`];
  const add = (clause: (n: string) => string, v: unknown) => {
    params.push(v);
    where.push(clause(`$${start + params.length - 1}`));
  };
  if (f.status && f.status !== "all") add((n) => `m.status = ${n}::memory_status`, f.status);
  if (f.memory_type) add((n) => `m.memory_type = ${n}::memory_type`, f.memory_type);
  if (f.min_importance !== undefined) add((n) => `m.importance_score >= ${n}`, f.min_importance);
  if (f.max_importance !== undefined) add((n) => `m.importance_score <= ${n}`, f.max_importance);
  if (f.q) {
    const tsq = prefixTsQuery(f.q);
    if (tsq) add((n) => `m.search_tsv @@ to_tsquery('simple', ${n})`, tsq);
    else add((n) => `strpos(m.content, ${n}) > 0`, f.q);
  }
  return { where: where.join(" AND "), params };
}

export async function listMemories(sql: ProjectSql, userId: string, q: MemoryListQuery) {
  const { where, params } = memoryFilterSql(sql.projectId, userId, q);
  const col = SORT_SQL[q.sort];
  const dir = q.order === "asc" ? "ASC" : "DESC";
  const cmp = q.order === "asc" ? ">" : "<";
  const numeric = q.sort === "importance_score" || q.sort === "access_count";
  // The sort is part of the list's name: a cursor of another sort cannot be cast wrongly.
  const list = `memories:${q.sort}:${q.order}`;
  const after = decodeCursor(q.cursor, list, [numeric ? ZCursorNumber : ZCursorTime, ZCursorUuid]);
  let keyset = "";
  if (after) {
    params.push(after[0], after[1]);
    const v = `$${params.length - 1}`;
    const id = `$${params.length}::uuid`;
    const typed = numeric ? `${v}::float8` : `${v}::timestamptz`;
    keyset = `AND (${col}, m.id) ${cmp} (${typed}, ${id})`;
  }
  params.push(q.limit + 1);
  const rows = await sql.query<MemoryRow & { sort_key: string | number }>(
    `SELECT ${MEMORY_COLUMNS}, (${col})${q.sort === "importance_score" || q.sort === "access_count" ? "" : "::text"} AS sort_key
       FROM memories m
      WHERE ${where} ${keyset}
      ORDER BY ${col} ${dir}, m.id ${dir}
      LIMIT $${params.length}`,
    params,
  );
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    data: page.map(serializeMemory),
    next_cursor: rows.length > q.limit && last ? encodeCursor(list, [last.sort_key, last.id]) : null,
  };
}
