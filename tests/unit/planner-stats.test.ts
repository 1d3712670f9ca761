import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/lib/db/open-database";
import { analyzeThreshold, noteBulkWrite } from "@/lib/db/planner-stats";
import { freshDataDir } from "../helpers/fresh-data-dir";
import { removeDir } from "../helpers/temp-dir";

// PGlite runs no autovacuum: bulk writes re-analyze the tables themselves, after 5 000 rows
// or a fifth of the tables' size at the last ANALYZE, whichever is more.

let db: Database;
let dir: string;
beforeAll(async () => {
  dir = await freshDataDir();
  db = await openDatabase({ kind: "pglite", dataDir: dir });
  await db.sql.exec("CREATE TABLE stats_probe (n int)");
}, 180_000);
afterAll(async () => {
  await db?.close();
  if (dir) removeDir(dir);
});

/** The planner's row estimate, which ANALYZE sets (-1: never analyzed). */
async function estimate(): Promise<number> {
  const [{ n }] = await db.sql.query<{ n: number }>(`SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'stats_probe'::regclass`);
  return Number(n);
}
async function write(rows: number) {
  await db.sql.query(`INSERT INTO stats_probe SELECT generate_series(1, $1::int)`, [rows]);
  await noteBulkWrite(db.sql, rows, ["stats_probe"]);
}

describe("planner statistics after bulk writes", () => {
  it("the step is 5 000 rows, or a fifth of the tables' rows at the last ANALYZE", () => {
    expect(analyzeThreshold(0)).toBe(5000);
    expect(analyzeThreshold(20_000)).toBe(5000);
    expect(analyzeThreshold(100_000)).toBe(20_000);
  });

  it("analyzes once 5 000 rows were written, not before", async () => {
    await write(4999);
    expect(await estimate()).toBe(-1);
    await write(1);
    expect(await estimate()).toBe(5000);
  });

  it("then waits for a fifth of the size it saw: 100 000 rows analyze again after 20 000 more, not 5 000", async () => {
    await write(95_000);
    expect(await estimate()).toBe(100_000);
    await write(10_000);
    await write(5_000);
    expect(await estimate()).toBe(100_000); // 15 000 written since: under the 20 000 step
    await write(5_000);
    expect(await estimate()).toBe(120_000);
  });
});
