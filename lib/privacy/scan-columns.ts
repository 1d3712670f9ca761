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

/** Where each string occurs in the project's rows (rows per table, column and string). */
export async function scanProject(sql: Pick<ProjectSql, "query" | "projectId">, strings: string[], columns?: TextColumn[]): Promise<{ columns: number; found: Occurrence[] }> {
  const cols = columns ?? (await projectTextColumns(sql));
  const found: Occurrence[] = [];
  if (!strings.length) return { columns: cols.length, found };
  for (const c of cols) {
    const list = strings.flatMap((s, i) => needles(s, c.json).map((n) => ({ n, i })));
    const rows = await sql.query<{ i: number; n: number }>(
      `SELECT s.i, count(*)::int AS n
         FROM "${c.table}" t, unnest($2::text[], $3::int[]) AS s(needle, i)
        WHERE t.project_id = $1 AND strpos(t."${c.column}"::text, s.needle) > 0
        GROUP BY s.i`,
      [sql.projectId, list.map((x) => x.n), list.map((x) => x.i)],
    );
    for (const r of rows) found.push({ table: c.table, column: c.column, string_index: r.i, rows: r.n });
  }
  return { columns: cols.length, found };
}
