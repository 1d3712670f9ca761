import { afterAll, beforeAll } from "vitest";
import { openDatabase, type Database } from "../../lib/db/open-database";
import { createFreshDatabase, realPostgresUrl } from "./real-postgres";

/**
 * A fresh database of its own on the real PostgreSQL server (MEMSCOPE_TEST_POSTGRES_URL), for
 * the tests of one describe block that `describe.skipIf(!realPostgresUrl())` declares: opened
 * (migrated unless `migrate: false`) before them, closed and dropped after.
 */
export function usePostgresDatabase(opts: { migrate?: boolean } = {}): { readonly db: Database } {
  let db: Database | undefined;
  let drop = async () => {};
  beforeAll(async () => {
    const fresh = await createFreshDatabase(realPostgresUrl()!);
    drop = fresh.drop;
    db = await openDatabase({ kind: "postgres", url: fresh.url }, opts);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    await drop();
  });
  return {
    get db() {
      if (!db) throw new Error("the database opens in beforeAll");
      return db;
    },
  };
}
