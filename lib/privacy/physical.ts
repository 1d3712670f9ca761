import "server-only";
import type { ProjectSql } from "../db/project-sql";

// Deleted rows and replaced texts stay in the table files until their space is reused. A
// physical erasure rewrites the touched tables (VACUUM FULL: new files, the old ones
// unlinked at the next checkpoint), refreshes the planner's sampled values (pg_statistic
// keeps sample column values, erased ones included) and rewrites that catalog, then ends the
// write-ahead log segment holding the erased rows and checkpoints so it is removed, not
// recycled with its contents (wal_recycle = off for this session).
// On the embedded database the checkpoint runs in this process: afterwards no file of the
// data folder holds the erased text (tests/api/privacy-physical.test.ts reads them). On
// PostgreSQL the checkpointer is another process and WAL may be archived or streamed: the
// answer lists what stays out of reach.

export type PhysicalReport = {
  tables: string[];
  checkpoint: boolean;
  /** Where copies may remain, out of Memscope's reach. */
  outside_reach: string[];
  warnings: string[];
};

const OUTSIDE_PG = [
  "WAL segments already archived (archive_command) or streamed to replicas",
  "replicas and standbys: they replay the erasure, on their own schedule",
  "backups and snapshots taken before the erasure",
  "the operating system's and the disk's freed blocks (not overwritten)",
];
const OUTSIDE_PGLITE = ["backups and copies of the data folder taken before the erasure", "the file system's freed blocks (not overwritten)"];

export async function rewriteTables(sql: Pick<ProjectSql, "exec" | "query">, tables: string[], kind: "pglite" | "postgres"): Promise<PhysicalReport> {
  const warnings: string[] = [];
  const unique = [...new Set(tables)].filter((t) => /^[a-z_][a-z0-9_]*$/.test(t));
  for (const t of unique) await sql.exec(`VACUUM FULL "${t}"`);
  if (unique.length) await sql.exec(`ANALYZE ${unique.map((t) => `"${t}"`).join(", ")}`);
  let checkpoint = false;
  try {
    await sql.exec("VACUUM FULL pg_statistic");
    await sql.exec("SET wal_recycle = off");
    await sql.exec("SELECT pg_switch_wal()");
    await sql.exec("CHECKPOINT");
    await sql.exec("SELECT pg_switch_wal()");
    await sql.exec("CHECKPOINT");
    checkpoint = true;
  } catch (e) {
    // PostgreSQL without superuser rights (pg_checkpoint role, catalog rewrite): the tables
    // are rewritten, the rest is reported.
    warnings.push(`checkpoint not run: ${(e as Error).message}`);
  } finally {
    await sql.exec("RESET wal_recycle").catch(() => {});
  }
  return { tables: unique, checkpoint, outside_reach: kind === "pglite" ? OUTSIDE_PGLITE : OUTSIDE_PG, warnings };
}
