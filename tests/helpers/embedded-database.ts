import { afterAll, beforeAll } from "vitest";
import { openDatabase, type Database } from "../../lib/db/open-database";
import { freshDataDir } from "./fresh-data-dir";
import { removeDir } from "./temp-dir";

/** A migrated embedded database for one test file: opened before its tests, closed and removed after. */
export function useEmbeddedDatabase(): { readonly db: Database } {
  let db: Database | undefined;
  let dir = "";
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
      if (!db) throw new Error("the database opens in beforeAll");
      return db;
    },
  };
}
