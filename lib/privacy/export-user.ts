import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { USER_TABLES } from "./user-tables";

// The export of one end user (GDPR articles 15 and 20): every row of USER_TABLES the user
// owns, per table, each row as stored (snake_case columns, the same ids and times) without
// the project, which the importing project supplies. Derived columns are left out: the
// full-text vector (generated) and the per-user counters (kept by triggers).
// POST /users/import (lib/privacy/import-user.ts) writes such a document back.

export const EXPORT_FORMAT = "memscope.user-export";
export const EXPORT_VERSION = 1;

export type UserExport = {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  user_id: string;
  exported_at: string;
  /** Table name -> rows (objects of column -> value, JSON as stored). */
  tables: Record<string, Record<string, unknown>[]>;
};

/** Columns the export leaves out, per table. */
const LEFT_OUT: Record<string, string[]> = { memories: ["search_tsv"] };

export async function exportUser(sql: ProjectSql, userId: string): Promise<UserExport | null> {
  // One snapshot for the whole document (a write between two tables would tear it).
  return sql.transaction(async (tx) => {
    await tx.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    const tables: UserExport["tables"] = {};
    let any = false;
    for (const u of USER_TABLES) {
      if (!u.exported) continue;
      const drop = ["project_id", ...(LEFT_OUT[u.table] ?? [])].map((c) => ` - '${c}'`).join("");
      const rows = await tx.query<{ row: Record<string, unknown> }>(
        `SELECT to_jsonb(t.*)${drop} AS row FROM ${u.table} t WHERE ${u.where} ORDER BY to_jsonb(t.*)::text`,
        [tx.projectId, userId],
      );
      tables[u.table] = rows.map((r) => r.row);
      if (rows.length) any = true;
    }
    if (!any) return null;
    return { format: EXPORT_FORMAT, version: EXPORT_VERSION, user_id: userId, exported_at: new Date().toISOString(), tables };
  });
}
