import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/open-database";
import { connectPostgres, createFreshDatabase, realPostgresUrl } from "../helpers/real-postgres";
import { until } from "../helpers/wait-until";

// A suite's database is dropped WITH (FORCE) when it stops: PostgreSQL terminates every backend
// still connected to it (57P01, "terminating connection due to administrator command"). A pg
// Pool or Client with an idle connection then emits 'error'; with no listener that is an
// uncaught exception, which fails the whole test run with every test green (issue 41).

describe.skipIf(!realPostgresUrl())("a test database dropped under open connections", () => {
  const uncaught: Error[] = [];
  const record = (e: Error) => uncaught.push(e);
  beforeEach(() => {
    uncaught.length = 0;
    process.prependListener("uncaughtException", record);
  });
  afterEach(() => {
    process.off("uncaughtException", record);
  });

  it("raises no uncaught error from lib/db's pool (idle and checked-out connections) or the helpers' client", async () => {
    const d = await createFreshDatabase(realPostgresUrl()!);
    const db = await openDatabase({ kind: "postgres", url: d.url }, { migrate: false });
    const client = await connectPostgres(d.url);
    let lockHeld!: () => void;
    let releaseLock!: () => void;
    const held = new Promise<void>((r) => (lockHeld = r));
    const release = new Promise<void>((r) => (releaseLock = r));
    try {
      // Idle pooled connections, one connection checked out holding a lock, and a plain client.
      await Promise.all([db.sql.query("SELECT 1"), db.sql.query("SELECT 2"), client.query("SELECT 1")]);
      const locked = db.withLock(4242, async () => {
        lockHeld();
        await release;
      });
      await held;
      const backends = async () => {
        const [{ n }] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()`);
        return n;
      };
      expect(await backends()).toBeGreaterThanOrEqual(3);
      await d.drop();
      releaseLock();
      // The checked-out connection's unlock fails: its backend was terminated.
      await expect(locked).rejects.toThrow();
      // The terminations arrive on each socket as a message of its own: wait until the plain
      // client, the last to be told, has seen its own.
      await until("the helper's client to see its connection ended", () => client.query("SELECT 1").then(() => false, () => true), (gone) => gone);
      await expect(db.sql.query("SELECT 1")).rejects.toThrow();
      expect(uncaught.map((e) => e.message)).toEqual([]);
    } finally {
      releaseLock();
      await client.end().catch(() => {});
      await db.close();
      await d.drop();
    }
  });
});
