import { describe, it } from "vitest";
import { startAppServer, type AppServer } from "./app-server";
import { freshDataDir } from "./fresh-data-dir";
import { startPgWireServer } from "./pg-wire-server";
import { createFreshDatabase, realPostgresUrl } from "./real-postgres";
import { removeDir } from "./temp-dir";

// The two databases every server-backed suite that matters runs on: the embedded
// PGlite data folder (the default) and PostgreSQL through DATABASE_URL: a real PostgreSQL 15
// with pgvector when MEMSCOPE_TEST_POSTGRES_URL names one (CI: .ci/postgres.sh), a fresh
// database per suite; otherwise a pglite-socket wire-protocol server stands in.

export const DATABASE_KINDS = ["embedded", "postgres"] as const;
export type DatabaseKind = (typeof DATABASE_KINDS)[number];

/**
 * Which kinds a file runs on (issue 41: the API phase ran every file twice). The rule:
 *
 * - DATABASE_KINDS (both) when a test's outcome can differ between the two: values that
 *   round-trip through the driver (dates, big integers, bytes, vectors, JSON), transactions
 *   and "nothing written" after a failure inside one, concurrent writers and locks, cursors and
 *   streamed reads, indexes, planner statistics and exact-scan thresholds, bulk statements
 *   (parameter and size limits), migrations and upgrades, the database failing or restarting.
 * - ONE_KIND when every assertion is decided before or without any of that: input validation
 *   (a 4xx naming the field, refused before the write begins), error shapes, authentication,
 *   scopes and roles, rate limits, the HTTP contract (statuses, headers, OpenAPI text), a model
 *   stub's answer. The same queries run on both kinds; they are covered by the files above.
 *
 * ONE_KIND is the embedded database: the default deployment, and real on every machine (the
 * "postgres" kind is pglite-socket without a cluster). The files on it are listed in README.md
 * (Testing).
 */
export const ONE_KIND: readonly DatabaseKind[] = ["embedded"];

// `.each(table)(name, fn)` too: a table of tests under the rule declares none on the other kinds.
const notDeclared = Object.assign(() => {}, { each: () => () => {} }) as unknown as typeof it;

/**
 * In a file run on both kinds, `it` for a test the rule above puts on ONE_KIND: declared on
 * those kinds, not declared at all on the others (not a skip: nothing to report).
 */
export function itOnOneKind(kind: DatabaseKind): typeof it {
  return ONE_KIND.includes(kind) ? it : notDeclared;
}

/** The same for a group whose every test is under the rule (Vitest fails a suite with no test in it). */
export function describeOnOneKind(kind: DatabaseKind): typeof describe {
  return ONE_KIND.includes(kind) ? describe : (notDeclared as unknown as typeof describe);
}

type ServerOptions = { seed?: boolean; env?: Record<string, string> };

/** A database that outlives the app servers started on it (restarts, model changes). */
export type TestDatabase = {
  kind: DatabaseKind;
  /** The DATABASE_URL of the "postgres" kind (for a test's own checks in SQL). */
  url?: string;
  /** True when the "postgres" kind is a real PostgreSQL server, not pglite-socket. */
  real?: boolean;
  /** The data folder of the "embedded" kind (open it only while no app server runs on it). */
  dataDir?: string;
  startApp(opts?: ServerOptions): Promise<AppServer>;
  stop(): Promise<void>;
};

let announced = false;
function announce(what: string) {
  if (announced) return;
  announced = true;
  console.log(`[test-database] "postgres" runs on ${what}`);
}

export async function openTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === "embedded") {
    const dir = await freshDataDir();
    return {
      kind,
      dataDir: dir,
      startApp: (opts = {}) => startAppServer({ ...opts, dataDir: dir }),
      async stop() {
        removeDir(dir);
      },
    };
  }
  const server = realPostgresUrl();
  announce(server ? "a real PostgreSQL server (MEMSCOPE_TEST_POSTGRES_URL)" : "pglite-socket (no MEMSCOPE_TEST_POSTGRES_URL)");
  if (server) {
    const db = await createFreshDatabase(server);
    return {
      kind,
      url: db.url,
      real: true,
      startApp: (opts = {}) => startAppServer({ ...opts, databaseUrl: db.url }),
      stop: () => db.drop(),
    };
  }
  const pg = await startPgWireServer();
  return {
    kind,
    url: pg.url,
    real: false,
    startApp: (opts = {}) => startAppServer({ ...opts, databaseUrl: pg.url }),
    stop: () => pg.stop(),
  };
}

/** One app server on a fresh database of `kind`; stopping it removes the database. */
export async function startAppOn(kind: DatabaseKind, opts: ServerOptions = {}): Promise<AppServer> {
  // A folder of its own, removed on stop; seeded ones are copies (tests/helpers/fresh-data-dir.ts).
  if (kind === "embedded") return startAppServer(opts);
  const db = await openTestDatabase(kind);
  try {
    const app = await db.startApp(opts);
    return {
      ...app,
      async stop() {
        await app.stop().catch(() => {});
        await db.stop();
      },
    };
  } catch (e) {
    await db.stop();
    throw e;
  }
}
