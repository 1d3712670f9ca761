import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { ConflictError, ValidationError } from "../errors/domain-errors";
import { EXPORT_FORMAT, EXPORT_VERSION } from "./export-user";
import { IMPORT_ORDER } from "./user-tables";

// Writes an export (lib/privacy/export-user.ts) back into a project: the same rows, ids and
// times, in one transaction (all or nothing). Columns are matched by name against the
// table as it is now, so a document from an older version imports with defaults for columns
// added since; a column the table does not have is refused.

export type ImportCounts = Record<string, number>;

type Doc = { format: string; version: number; user_id: string; tables: Record<string, Record<string, unknown>[]> };

export async function importUser(sql: ProjectSql, doc: Doc): Promise<ImportCounts> {
  if (doc.format !== EXPORT_FORMAT || doc.version !== EXPORT_VERSION) {
    throw new ValidationError(`Not a ${EXPORT_FORMAT} document of version ${EXPORT_VERSION}`, [{ field: "format", message: `expected ${EXPORT_FORMAT} v${EXPORT_VERSION}` }]);
  }
  const unknown = Object.keys(doc.tables).filter((t) => !(IMPORT_ORDER as readonly string[]).includes(t));
  if (unknown.length) throw new ValidationError("Unknown tables in the document", unknown.map((t) => ({ field: `tables.${t}`, message: "not a table of a user export" })));
  return sql.transaction(async (tx) => {
    const counts: ImportCounts = {};
    for (const table of IMPORT_ORDER) {
      const rows = doc.tables[table] ?? [];
      counts[table] = rows.length;
      if (!rows.length) continue;
      const cols = await tx.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER' AND column_name <> 'project_id'`,
        [table],
      );
      const known = new Set(cols.map((c) => c.column_name));
      const given = new Set(rows.flatMap((r) => Object.keys(r)));
      const extra = [...given].filter((c) => !known.has(c));
      if (extra.length) throw new ValidationError(`Columns ${table} does not have`, extra.map((c) => ({ field: `tables.${table}.${c}`, message: "unknown column" })));
      const list = [...given].map((c) => `"${c}"`).join(", ");
      try {
        // In slices: one statement's parameters stay a bounded JSON text.
        for (let i = 0; i < rows.length; i += 5000) {
          await tx.query(
            `INSERT INTO ${table} (project_id, ${list}) SELECT $1, ${list} FROM jsonb_populate_recordset(NULL::${table}, $2::jsonb)`,
            [tx.projectId, JSON.stringify(rows.slice(i, i + 5000))],
          );
        }
      } catch (e) {
        if ((e as { code?: string }).code === "23505") {
          throw new ConflictError(`A row of ${table} in the document already exists in this project`, [{ field: `tables.${table}`, message: "id already taken" }]);
        }
        if ((e as { code?: string }).code === "23503" || (e as { code?: string }).code === "22P02" || (e as { code?: string }).code === "23502") {
          throw new ValidationError(`The rows of ${table} cannot be stored: ${(e as Error).message}`, [{ field: `tables.${table}`, message: (e as Error).message }]);
        }
        throw e;
      }
    }
    return counts;
  });
}
