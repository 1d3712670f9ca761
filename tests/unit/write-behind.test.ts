import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { settleOnError, writeBehind } from "@/lib/db/write-behind";
import { useEmbeddedDatabase } from "../helpers/embedded-database";
import { usePostgresDatabase } from "../helpers/postgres-database";
import { realPostgresUrl } from "../helpers/real-postgres";

// Writes sent without waiting (lib/db/write-behind.ts), in a real transaction: a later read sees
// them, the first failure is the one reported (not the "transaction is aborted" of the
// statements queued after it), a failure rolls the whole transaction back, and node-postgres is
// never handed a query while one is running (it warns: deprecated, gone in pg 9). On the
// embedded database and on PostgreSQL 15 when one is configured (CI).

const embedded = useEmbeddedDatabase();

function writeBehindTests(db: () => Database, table: string) {
  const sql = () => projectSql(db().sql, DEFAULT_PROJECT_ID);

  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  beforeAll(async () => {
    await db().sql.exec(`CREATE TABLE ${table} (id int PRIMARY KEY, note text NOT NULL)`);
    process.on("warning", onWarning);
  });
  afterAll(() => {
    process.off("warning", onWarning);
  });

  it("a statement sent after writes runs after them and sees their rows", async () => {
    const seen = await sql().transaction(async (tx) => {
      const behind = writeBehind(tx);
      for (let i = 1; i <= 50; i++) await behind.sql.query(`INSERT INTO ${table} (id, note) VALUES ($1, $2)`, [i, `n${i}`]);
      await behind.sql.query(`UPDATE ${table} SET note = note || '!' WHERE id <= 10`);
      const [row] = await behind.tx.query<{ n: number; marked: number }>(`SELECT count(*)::int AS n, count(*) FILTER (WHERE note LIKE '%!')::int AS marked FROM ${table}`);
      await behind.settle();
      return row;
    });
    expect(seen).toEqual({ n: 50, marked: 10 });
    // Warnings are emitted on the next tick.
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => /already executing a query/.test(w))).toEqual([]);
    await db().sql.exec(`DELETE FROM ${table}`);
  });

  it("the first failure is the one thrown, and nothing of the transaction stays", async () => {
    const failure = await sql()
      .transaction(async (tx) => {
        const behind = writeBehind(tx);
        return settleOnError(behind, async () => {
          await behind.sql.query(`INSERT INTO ${table} (id, note) VALUES (1, 'first')`);
          await behind.sql.query(`INSERT INTO ${table} (id, note) VALUES (1, 'the same key')`);
          await behind.sql.query(`INSERT INTO ${table} (id, note) VALUES (2, 'after the failure')`);
          // A read queued behind them fails too ("current transaction is aborted"): not what is reported.
          await behind.tx.query(`SELECT count(*) FROM ${table}`);
        });
      })
      .then(
        () => null,
        (e: { code?: string; message?: string }) => e,
      );
    expect(failure?.code).toBe("23505");
    expect(String(failure?.message)).toMatch(/duplicate key/);
    const [{ n }] = await db().sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    expect(n).toBe(0);
  });

  it("refuses what it would have to read back", async () => {
    await sql().transaction(async (tx) => {
      const behind = writeBehind(tx);
      await expect(behind.sql.query(`SELECT 1`)).rejects.toThrow(/only writes/);
      await expect(behind.sql.query(`INSERT INTO ${table} (id, note) VALUES (3, 'x') RETURNING id`)).rejects.toThrow(/only writes/);
      await behind.settle();
    });
  });
}

describe("write-behind: embedded database", () => {
  writeBehindTests(() => embedded.db, "write_behind_probe");
});

describe.skipIf(!realPostgresUrl())("write-behind: PostgreSQL", () => {
  const pg = usePostgresDatabase({ migrate: false });
  writeBehindTests(() => pg.db, "write_behind_probe");
});
