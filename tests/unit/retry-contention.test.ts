import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { openDatabase, type Database } from "@/lib/db/open-database";
import { CONTENTION_ATTEMPTS, ContentionExhausted, contentionRetries } from "@/lib/db/retry-contention";
import { ContentionError } from "@/lib/errors/domain-errors";
import { withApi } from "@/lib/api/with-api";
import type { ApiContract } from "@/lib/api/contract";
import { emptyClusterDir } from "../helpers/fresh-data-dir";
import { createFreshDatabase, realPostgresUrl } from "../helpers/real-postgres";
import { suiteTempDirs } from "../helpers/temp-dir";

// The one retry rule (lib/db/retry-contention.ts, issue 43): the SQL runner of openDatabase
// runs a transaction (or a statement outside one) again when PostgreSQL rolled it back for a
// deadlock (40P01) or a serialization failure (40001), a bounded number of times; then a
// ContentionError, which every route answers as 503 database_busy with Retry-After. The
// deadlock is a real one, between two connections of a real PostgreSQL (when
// MEMSCOPE_TEST_POSTGRES_URL names one); the rest runs on both databases.

const SERVER = realPostgresUrl();
const fresh = suiteTempDirs(afterAll);
const opened: Database[] = [];
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
  for (const d of drops) await d();
});

const shared = new Map<string, Promise<Database>>();
/** One database per kind for the tests below (an embedded initdb costs seconds): each test uses rows the others leave alone. */
const sharedDb = (kind: "pglite" | "postgres") => shared.get(kind) ?? shared.set(kind, open(kind)).get(kind)!;

async function open(kind: "pglite" | "postgres"): Promise<Database> {
  let db: Database;
  // A copy of the bare cluster (initdb done once per run); the test makes its own table.
  if (kind === "pglite") db = await openDatabase({ kind: "pglite", dataDir: await emptyClusterDir(fresh("retry")) }, { migrate: false });
  else {
    const d = await createFreshDatabase(SERVER!);
    drops.push(d.drop);
    db = await openDatabase({ kind: "postgres", url: d.url }, { migrate: false });
  }
  opened.push(db);
  await db.sql.exec(`CREATE TABLE counters (id int PRIMARY KEY, v int NOT NULL); INSERT INTO counters VALUES (1, 0), (2, 0)`);
  return db;
}

/** A real error of SQLSTATE `code`, raised by the database inside the current statement. */
const raise = (code: string) => `DO $$ BEGIN RAISE EXCEPTION 'provoked' USING ERRCODE = '${code}'; END $$`;

const KINDS = (["pglite", ...(SERVER ? ["postgres"] : [])] as const).map((k) => k as "pglite" | "postgres");

describe.skipIf(!SERVER)("a real deadlock between two connections (PostgreSQL)", () => {
  it("the victim's transaction is rolled back and run again; both commit, each change once", async () => {
    const db = await open("postgres");
    const retries = contentionRetries();
    let firstLocks = 0;
    let release!: () => void;
    const bothLocked = new Promise<void>((r) => (release = r));
    const attempts = { a: 0, b: 0 };
    // a locks row 1 then 2, b row 2 then 1; on their first attempt each waits until the
    // other holds its first row, so the second updates close a cycle PostgreSQL must break.
    const cross = (who: "a" | "b", first: number, second: number) =>
      db.sql.transaction(async (tx) => {
        attempts[who]++;
        await tx.query(`UPDATE counters SET v = v + 1 WHERE id = $1`, [first]);
        if (attempts[who] === 1) {
          if (++firstLocks === 2) release();
          await bothLocked;
        }
        await tx.query(`UPDATE counters SET v = v + 1 WHERE id = $1`, [second]);
        return attempts[who];
      });
    const [a, b] = await Promise.all([cross("a", 1, 2), cross("b", 2, 1)]);
    // One of them was the victim: it ran twice; the other once.
    expect([a, b].sort()).toEqual([1, 2]);
    expect(contentionRetries() - retries).toBe(1);
    // The victim's first attempt left nothing: each row was incremented once per transaction.
    expect(await db.sql.query(`SELECT id, v FROM counters ORDER BY id`)).toEqual([
      { id: 1, v: 2 },
      { id: 2, v: 2 },
    ]);
  }, 60_000);
});

describe.each(KINDS)("the retry rule on %s", (kind) => {
  it(`a transaction that always fails for contention is tried ${CONTENTION_ATTEMPTS} times, then a ContentionError (503 database_busy); nothing is written`, async () => {
    const db = await sharedDb(kind);
    for (const code of ["40001", "40P01"]) {
      let tries = 0;
      const err = await db.sql
        .transaction(async (tx) => {
          tries++;
          await tx.query(`UPDATE counters SET v = v + 100 WHERE id = 1`);
          await tx.exec(raise(code));
        })
        .catch((e: unknown) => e);
      expect(tries).toBe(CONTENTION_ATTEMPTS);
      expect(err).toBeInstanceOf(ContentionExhausted);
      expect(err).toMatchObject({ attempts: CONTENTION_ATTEMPTS });
      expect(((err as Error).cause as { code?: string }).code).toBe(code);
    }
    expect(await db.sql.query(`SELECT v FROM counters WHERE id = 1`)).toEqual([{ v: 0 }]);
  });

  it("a contention that clears on the second attempt succeeds; a statement outside a transaction is retried by the same rule", async () => {
    const db = await sharedDb(kind);
    const retries = contentionRetries();
    // Fails for contention while the flag says so: the second attempt clears it first.
    await db.sql.exec(`CREATE TABLE flaky (fail boolean NOT NULL); INSERT INTO flaky VALUES (true)`);
    await db.sql.exec(`CREATE FUNCTION bump_or_fail() RETURNS int LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT fail FROM flaky) THEN RAISE EXCEPTION 'provoked' USING ERRCODE = '40P01'; END IF;
        UPDATE counters SET v = v + 1 WHERE id = 2;
        RETURN (SELECT v FROM counters WHERE id = 2);
      END $$`);
    let calls = 0;
    const out = await db.sql.transaction(async (t) => {
      calls++;
      if (calls === 2) await t.exec(`UPDATE flaky SET fail = false`);
      return t.query<{ v: number }>(`SELECT bump_or_fail() AS v`);
    });
    expect(out).toEqual([{ v: 1 }]);
    expect(calls).toBe(2);
    expect(contentionRetries() - retries).toBe(1);
    // In autocommit, statement by statement: every attempt fails here, so it runs out.
    await db.sql.exec(`UPDATE flaky SET fail = true`);
    const err = await db.sql.query(`SELECT bump_or_fail()`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContentionExhausted);
    expect(contentionRetries() - retries).toBe(1 + (CONTENTION_ATTEMPTS - 1));
    expect(await db.sql.query(`SELECT v FROM counters WHERE id = 2`)).toEqual([{ v: 1 }]);
  });

  it("any other error is not retried", async () => {
    const db = await sharedDb(kind);
    let tries = 0;
    const err = await db.sql
      .transaction(async (tx) => {
        tries++;
        await tx.query(`INSERT INTO counters VALUES (1, 5)`);
      })
      .catch((e: unknown) => e);
    expect(tries).toBe(1);
    expect((err as { code?: string }).code).toBe("23505");
  });
});

describe("a route whose work runs out of retries", () => {
  const contract = { method: "POST", path: "/contention-probe", scope: "public", summary: "probe", tag: "Test", response: z.object({ ok: z.boolean() }) } as unknown as ApiContract;

  it("answers 503 database_busy with Retry-After, never 500: a ContentionError from the runner, or contention the runner never saw (Prisma P2034)", async () => {
    for (const thrown of [new ContentionExhausted(CONTENTION_ATTEMPTS, Object.assign(new Error("deadlock detected"), { code: "40P01" })), new ContentionError(CONTENTION_ATTEMPTS, Object.assign(new Error("deadlock detected"), { code: "40P01" })), Object.assign(new Error("Transaction failed due to a write conflict or a deadlock"), { code: "P2034" })]) {
      const route = withApi(contract, async () => {
        throw thrown;
      });
      const res = await route(new Request("http://localhost/api/v1/contention-probe", { method: "POST" }), {});
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect((await res.json()).error.code).toBe("database_busy");
    }
  });
});
