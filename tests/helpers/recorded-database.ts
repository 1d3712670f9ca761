import { afterAll, beforeAll } from "vitest";
import type { SqlRunner } from "../../lib/db/migrations";
import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import { openDatabase, type Database } from "../../lib/db/open-database";
import { freshDataDir } from "./fresh-data-dir";
import { removeDir } from "./temp-dir";

/**
 * A migrated embedded database for one test file: opened before its tests, removed after.
 * `sql` goes through a runner that records every result the database returns (as JSON
 * text), so a test measures what a read touched instead of inferring it from the answer;
 * `writer()` is the same project unrecorded, for setup.
 */
export function useRecordedDatabase() {
  let db: Database | undefined;
  let dir = "";
  const reads: string[] = [];
  const open = () => {
    if (!db) throw new Error("the database opens in beforeAll");
    return db;
  };
  const runner: SqlRunner = {
    exec: (text) => open().sql.exec(text),
    transaction: (fn) => open().sql.transaction(fn),
    async query<T>(text: string, params?: unknown[]): Promise<T[]> {
      const rows = await open().sql.query<T>(text, params);
      reads.push(JSON.stringify(rows));
      return rows;
    },
  };
  beforeAll(async () => {
    dir = await freshDataDir();
    db = await openDatabase({ kind: "pglite", dataDir: dir });
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    if (dir) removeDir(dir);
  });
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
