import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dbSingleton, setDatabaseStart, type DatabaseStart } from "@/lib/db/db-singleton";
import type { Database } from "@/lib/db/open-database";
import { freePort } from "../helpers/free-port";
import { createFreshDatabase, queryPostgres, realPostgresUrl } from "../helpers/real-postgres";

// lib/db runs the server's start (lib/server/start.ts registers it) around every opening of the
// process's database: before it the checks, after the migrations the seed, then the jobs; and
// only then hands the database out. A failed opening is retried by the next caller, with the
// same start, so a server whose database came up late is still seeded and runs its jobs.

const KEYS = [Symbol.for("memscope.db"), Symbol.for("memscope.db.start")];

describe.skipIf(!realPostgresUrl())("the process's database and the start registered with it", () => {
  const saved = process.env.DATABASE_URL;
  let opened: Database | undefined;
  // Unit files share a worker (--no-isolate): a database another file opened through the
  // process's singleton is set aside for the test and put back after it, not reused.
  let held: unknown[] = [];
  beforeEach(() => {
    held = KEYS.map((k) => (globalThis as Record<symbol, unknown>)[k]);
    for (const k of KEYS) delete (globalThis as Record<symbol, unknown>)[k];
  });
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
    KEYS.forEach((k, i) => {
      if (held[i] === undefined) delete (globalThis as Record<symbol, unknown>)[k];
      else (globalThis as Record<symbol, unknown>)[k] = held[i];
    });
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  });

  function recordingStart(steps: string[], check: () => void = () => {}): DatabaseStart {
    return {
      check() {
        steps.push("check");
        check();
      },
      async fill(db) {
        // Migrated already: the seed writes into the schema.
        const [{ n }] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM _prisma_migrations`);
        steps.push(n > 0 ? "fill after migrations" : "fill before migrations");
      },
      async start() {
        steps.push("start");
      },
    };
  }

  it("runs check, fill and start in order before handing the database out, and again on the retry after a failed opening", async () => {
    const d = await createFreshDatabase(realPostgresUrl()!);
    try {
      const steps: string[] = [];
      setDatabaseStart(recordingStart(steps));
      // Nothing listens on this port: the opening fails after its check.
      process.env.DATABASE_URL = `postgresql://postgres@127.0.0.1:${await freePort()}/none`;
      await expect(dbSingleton()).rejects.toThrow();
      expect(steps).toEqual(["check"]);
      process.env.DATABASE_URL = d.url;
      const first = dbSingleton();
      opened = await first;
      expect(steps).toEqual(["check", "check", "fill after migrations", "start"]);
      // One opening per process: later callers get the same database, and the start runs no more.
      expect(await dbSingleton()).toBe(opened);
      expect(steps).toHaveLength(4);
    } finally {
      await opened?.close();
      opened = undefined;
      await d.drop();
    }
  });

  it("a check that throws stops the opening before the database is touched", async () => {
    const d = await createFreshDatabase(realPostgresUrl()!);
    try {
      const steps: string[] = [];
      setDatabaseStart(recordingStart(steps, () => {
        throw new Error("MEMSCOPE_X must be a number");
      }));
      process.env.DATABASE_URL = d.url;
      await expect(dbSingleton()).rejects.toThrow("MEMSCOPE_X must be a number");
      expect(steps).toEqual(["check"]);
      const [{ n }] = await queryPostgres<{ n: number }>(d.url, `SELECT count(*)::int AS n FROM pg_tables WHERE tablename = '_prisma_migrations'`);
      expect(n).toBe(0);
    } finally {
      await d.drop();
    }
  });
});
