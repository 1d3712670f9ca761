import type { SqlRunner } from "../../lib/db/migrations";
import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import { useEmbeddedDatabase } from "./embedded-database";

/**
 * A migrated embedded database for one test file: opened before its tests, removed after.
 * `sql` goes through a runner that records every result the database returns (as JSON
 * text), so a test measures what a read touched instead of inferring it from the answer;
 * `writer()` is the same project unrecorded, for setup.
 */
export function useRecordedDatabase() {
  const embedded = useEmbeddedDatabase();
  const reads: string[] = [];
  const open = () => embedded.db;
  const runner: SqlRunner = {
    exec: (text) => open().sql.exec(text),
    transaction: (fn) => open().sql.transaction(fn),
    async query<T>(text: string, params?: unknown[]): Promise<T[]> {
      const rows = await open().sql.query<T>(text, params);
      reads.push(JSON.stringify(rows));
      return rows;
    },
  };
  return {
    get db() {
      return open();
    },
    sql: projectSql(runner, DEFAULT_PROJECT_ID),
    writer: () => projectSql(open().sql, DEFAULT_PROJECT_ID),
    /** Results recorded since the last reset. */
    reads: () => [...reads],
    readText: () => reads.join("\n"),
    resetReads: () => void (reads.length = 0),
  };
}
