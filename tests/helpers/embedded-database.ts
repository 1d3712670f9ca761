import { afterAll, beforeAll } from "vitest";
import { openDatabase, type Database } from "../../lib/db/open-database";
import { incidentsIdle } from "../../lib/incidents/on-ingest";
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
    // Detection on ingest runs after a write, in the background: let it end before the database closes.
    await incidentsIdle();
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
