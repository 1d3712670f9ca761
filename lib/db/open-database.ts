import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { PrismaClient } from "../generated/prisma/client";
import { DEFAULT_PGLITE_SHARED_BUFFERS, PGLITE_STATISTICS_TARGET, readDbConfig, type DbConfig } from "./db-config";
import { acquireFolderLock, type FolderLock } from "./folder-lock";
import { applyMigrations, type SqlRunner } from "./migrations";
import { parsePgTimestamp } from "./parse-timestamp";
import { withContentionRetry } from "./retry-contention";

// Opens the configured database, applies pending migrations and returns a Prisma
// client plus a raw SQL runner for the hot paths. Knows nothing of Next.js: scripts,
// tests and the server all come through here.

export type Database = {
  config: DbConfig;
  prisma: PrismaClient;
  sql: SqlRunner;
  /**
   * Runs fn while holding a database-wide lock named by `key` (PostgreSQL: a session
   * advisory lock on a connection of its own), so several instances on one database do
   * it one at a time. On the embedded database one process owns the folder: a lock in memory
   * (concurrent requests of that process still take turns).
   */
  withLock<T>(key: number, fn: () => Promise<T>): Promise<T>;
  /**
   * `fn` under the advisory lock (key, hashtext(name)) if no one holds it, else nothing: a
   * session lock on a connection of its own, held for as long as fn runs (several
   * transactions). On the embedded database, one process: a lock in memory.
   */
  tryLock<T>(key: number, name: string, fn: () => Promise<T>): Promise<{ locked: true; value: T } | { locked: false }>;
  close(): Promise<void>;
};

/** Advisory lock keys (one namespace per database). 727274 is the migrator's (migrations.ts). */
export const LOCK_KEYS = { seed: 727275, plannerStats: 727276, reembedJob: 727277, userVectorIndex: 727278, retention: 727280, firstAdmin: 727281 } as const;
// 727279 is the privacy write guard's (migration 20261126010000_privacy).

/** The embedded database's withLock: per key, callers of this process run one after another. */
function memoryWithLock() {
  const tails = new Map<number, Promise<unknown>>();
  return <T>(key: number, fn: () => Promise<T>): Promise<T> => {
    const before = tails.get(key) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => {});
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}

/** The embedded database's tryLock: names held in this process. */
function memoryTryLock() {
  const held = new Set<string>();
  return async <T>(key: number, name: string, fn: () => Promise<T>): Promise<{ locked: true; value: T } | { locked: false }> => {
    const k = `${key}:${name}`;
    if (held.has(k)) return { locked: false };
    held.add(k);
    try {
      return { locked: true, value: await fn() };
    } finally {
      held.delete(k);
    }
  };
}

export async function openDatabase(config: DbConfig = readDbConfig(), opts: { migrate?: boolean } = {}): Promise<Database> {
  const migrate = opts.migrate !== false;
  return config.kind === "pglite" ? openPglite(config.dataDir, migrate, config.sharedBuffers) : openPostgres(config.url, migrate);
}

async function openPglite(dataDir: string, migrate: boolean, sharedBuffers = DEFAULT_PGLITE_SHARED_BUFFERS): Promise<Database> {
  const lock: FolderLock = acquireFolderLock(dataDir);
  try {
    const [{ PGlite }, { vector }, { PrismaPGlite }] = await Promise.all([
      import("@electric-sql/pglite"),
      import("@electric-sql/pglite-pgvector"),
      import("pglite-prisma-adapter"),
    ]);
    if (!fs.existsSync(path.join(dataDir, "PG_VERSION"))) await initdbInChildProcess(dataDir, sharedBuffers);
    const pg = await PGlite.create(dataDir, {
      extensions: { vector },
      // PGlite's own start parameters, then the buffer pool (db-config.ts says why it is smaller).
      startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${sharedBuffers}`, "-c", `default_statistics_target=${PGLITE_STATISTICS_TARGET}`],
      // timestamptz (1184) and timestamp (1114) read field by field: PGlite's own parser read years 0001-0099 as 19xx/20xx.
      parsers: { 1184: (text: string) => parsePgTimestamp(text, true), 1114: (text: string) => parsePgTimestamp(text, false) },
    });
    const wrap = (t: Pick<typeof pg, "exec" | "query">, inTx: boolean): SqlRunner => ({
      async exec(text) {
        await t.exec(text);
      },
      async query(text, params) {
        return (await t.query(text, params as unknown[] | undefined)).rows as never[];
      },
      async transaction(fn) {
        if (inTx) return fn(this);
        return pg.transaction((tx) => fn(wrap(tx, true)));
      },
    });
    const sql = wrap(pg, false);
    try {
      if (migrate) await applyMigrations(sql);
    } catch (e) {
      await pg.close().catch(() => {});
      throw e;
    }
    const prisma = new PrismaClient({ adapter: new PrismaPGlite(pg) });
    return {
      config: { kind: "pglite", dataDir, sharedBuffers },
      prisma,
      // One connection cannot deadlock with itself; the rule is the same on both databases.
      sql: withContentionRetry(sql),
      withLock: memoryWithLock(),
      tryLock: memoryTryLock(),
      async close() {
        await prisma.$disconnect().catch(() => {});
        await pg.close().catch(() => {});
        lock.release();
      },
    };
  } catch (e) {
    lock.release();
    throw e;
  }
}

/**
 * A new folder's initdb in a child process (lib/db/pglite-initdb.mjs says why). Where that
 * cannot run (the script or node_modules not beside the working folder), PGlite.create runs
 * initdb in this process instead, as it always could: the same database, more memory kept.
 */
async function initdbInChildProcess(dataDir: string, sharedBuffers: string): Promise<void> {
  const script = path.join(process.cwd(), "lib", "db", "pglite-initdb.mjs");
  if (!fs.existsSync(script)) return;
  try {
    // This process's WebAssembly compiler flags too (test servers run the baseline compiler only).
    const wasmFlags = process.execArgv.filter((a) => /^--(liftoff|no-liftoff|wasm)/.test(a));
    await promisify(execFile)(process.execPath, [...wasmFlags, script, dataDir, sharedBuffers], { timeout: 300_000 });
  } catch (e) {
    console.warn(`[memscope] initdb in a child process failed, running it in this one: ${(e as Error).message.split("\n")[0]}`);
  }
}

async function openPostgres(url: string, migrate: boolean): Promise<Database> {
  const [{ default: pg }, { PrismaPg }] = await Promise.all([import("pg"), import("@prisma/adapter-pg")]);
  const pool = new pg.Pool({ connectionString: url, max: Number(process.env.MEMSCOPE_PG_POOL_MAX || 10) });
  // A connection the server ends (restart, failover, a terminated backend) emits 'error' on the
  // pool when idle and on its client when checked out between queries; unheard, either is an
  // uncaught exception that ends the process. The pool drops that connection, and the query that
  // was using it (if any) rejects with the cause.
  const lost = (e: Error) => console.warn(`[memscope] PostgreSQL connection lost: ${e.message}`);
  pool.on("error", lost);
  pool.on("connect", (client) => client.on("error", lost));
  if (migrate) {
    // Migrations use BEGIN/COMMIT and a session advisory lock: one connection throughout.
    const client = await pool.connect();
    try {
      await applyMigrations(clientRunner(client));
    } catch (e) {
      client.release();
      await pool.end().catch(() => {});
      throw e;
    }
    client.release();
  }
  const sql: SqlRunner = {
    async exec(text) {
      await pool.query(text);
    },
    async query(text, params) {
      return (await pool.query(text, params as unknown[] | undefined)).rows as never[];
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        return await clientRunner(client).transaction(fn);
      } finally {
        client.release();
      }
    },
  };
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    config: { kind: "postgres", url },
    prisma,
    // Deadlocks and serialization failures are retried here, for every caller (retry-contention.ts).
    sql: withContentionRetry(sql),
    async withLock(key, fn) {
      const client = await pool.connect();
      try {
        await client.query("SELECT pg_advisory_lock($1)", [key]);
        try {
          return await fn();
        } finally {
          await client.query("SELECT pg_advisory_unlock($1)", [key]);
        }
      } finally {
        client.release();
      }
    },
    async tryLock(key, name, fn) {
      const client = await pool.connect();
      try {
        const [{ ok }] = (await client.query("SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok", [key, name])).rows;
        if (!ok) return { locked: false };
        try {
          return { locked: true, value: await fn() };
        } finally {
          await client.query("SELECT pg_advisory_unlock($1, hashtext($2))", [key, name]);
        }
      } finally {
        client.release();
      }
    },
    async close() {
      await prisma.$disconnect().catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}

type PgClientLike = { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }> };

function clientRunner(client: PgClientLike, inTx = false): SqlRunner {
  return {
    async exec(text) {
      await client.query(text);
    },
    async query(text, params) {
      return (await client.query(text, params)).rows as never[];
    },
    async transaction(fn) {
      if (inTx) return fn(this);
      await client.query("BEGIN");
      try {
        const out = await fn(clientRunner(client, true));
        await client.query("COMMIT");
        return out;
      } catch (e) {
        await client.query("ROLLBACK").catch(() => {});
        throw e;
      }
    },
  };
}
