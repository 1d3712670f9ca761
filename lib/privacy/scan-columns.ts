import "server-only";
import type { ProjectSql } from "../db/project-sql";

// Every text and JSON column of every table that holds project rows (a project_id column),
// read from information_schema so that a table added later is scanned without a change
// here. Used by the erasure's probe (none of the erased strings is left) and by text
// erasure (where each string occurs).

export type TextColumn = { table: string; column: string; json: boolean };

const TEXT_TYPES = ["text", "character varying", "character", "json", "jsonb"];

export async function projectTextColumns(sql: Pick<ProjectSql, "query">): Promise<TextColumn[]> {
  const rows = await sql.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT c.table_name, c.column_name, c.data_type
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.table_schema = current_schema() AND c.data_type = ANY($1::text[]) AND c.column_name <> 'project_id'
        AND EXISTS (SELECT 1 FROM information_schema.columns p
                     WHERE p.table_schema = c.table_schema AND p.table_name = c.table_name AND p.column_name = 'project_id')
      ORDER BY c.table_name, c.ordinal_position`,
    [TEXT_TYPES],
  );
  return rows.map((r) => ({ table: r.table_name, column: r.column_name, json: r.data_type.startsWith("json") }));
}

/** How a string appears in a column's text: JSON escapes quotes, backslashes and control characters. */
export function needles(s: string, json: boolean): string[] {
  if (!json) return [s];
  const escaped = JSON.stringify(s).slice(1, -1);
  return escaped === s ? [s] : [s, escaped];
}

export type Occurrence = { table: string; column: string; string_index: number; rows: number };

// Characters that continue a token: an id `conv` is not in `conv-trunc-7` nor in `conv_2`.
const WORD = /[\p{L}\p{N}_-]/u;
const escapeRegex = (s: string) => s.replace(/[\\^$.|?*+()[\]{}]/g, (c) => `\\${c}`);

/**
 * A PostgreSQL regular expression matching the needle as a whole token: at an end where the
 * needle has a word character, the text must end or hold a character that cannot continue
 * the token. An end with another character (a space, a quote) is a boundary already.
 */
export function tokenPattern(needle: string): string {
  const head = WORD.test(needle[0] ?? "") ? "(^|[^[:alnum:]_-])" : "";
  const tail = WORD.test(needle[needle.length - 1] ?? "") ? "($|[^[:alnum:]_-])" : "";
  return `${head}${escapeRegex(needle)}${tail}`;
}

/**
 * Where each string occurs in the project's rows (rows per table, column and string).
 * `tokens`: only as a whole token (tokenPattern), the probes' reading; else anywhere in the
 * text, what text erasure replaces.
 */
export async function scanProject(
  sql: Pick<ProjectSql, "query" | "projectId">,
  strings: string[],
  columns?: TextColumn[],
  opts: { tokens?: boolean } = {},
): Promise<{ columns: number; found: Occurrence[] }> {
  const cols = columns ?? (await projectTextColumns(sql));
  const found: Occurrence[] = [];
  if (!strings.length) return { columns: cols.length, found };
  for (const c of cols) {
    const list = strings.flatMap((s, i) => needles(s, c.json).map((n) => ({ n, i })));
    // strpos first: the regular expression runs only on rows that hold the text at all.
    const token = opts.tokens ? ` AND t."${c.column}"::text ~ s.pattern` : "";
    const rows = await sql.query<{ i: number; n: number }>(
      `SELECT s.i, count(DISTINCT t.ctid)::int AS n
         FROM "${c.table}" t, unnest($2::text[], $3::int[], $4::text[]) AS s(needle, i, pattern)
        WHERE t.project_id = $1 AND strpos(t."${c.column}"::text, s.needle) > 0${token}
        GROUP BY s.i`,
      [sql.projectId, list.map((x) => x.n), list.map((x) => x.i), list.map((x) => tokenPattern(x.n))],
    );
    for (const r of rows) found.push({ table: c.table, column: c.column, string_index: r.i, rows: r.n });
  }
  return { columns: cols.length, found };
}
