import { randomBytes } from "node:crypto";
import pg from "pg";

// A real PostgreSQL server (15 + pgvector) for the "postgres" test database, when one is
// configured: MEMSCOPE_TEST_POSTGRES_URL, which .ci/postgres.sh sets for a throwaway cluster
// (locally: `source .ci/postgres.sh` in the shell that runs the tests). Each suite gets a
// database of its own, dropped when it stops.

export function realPostgresUrl(): string | null {
  return process.env.MEMSCOPE_TEST_POSTGRES_URL?.trim() || null;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * A connected pg Client with an 'error' listener: a database dropped WITH (FORCE) terminates its
 * connection, and a Client without a listener turns that into an uncaught exception.
 */
export async function connectPostgres(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  c.on("error", () => {}); // its next query rejects with the cause
  await c.connect();
  return c;
}

async function admin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = await connectPostgres(url);
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => {});
  }
}

export async function createFreshDatabase(serverUrl: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `memscope_test_${randomBytes(6).toString("hex")}`;
  await admin(serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = withDatabase(serverUrl, name);
  await admin(url, (c) => c.query(`CREATE EXTENSION IF NOT EXISTS vector`));
  return {
    url,
    name,
    async drop() {
      await admin(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(() => {});
    },
  };
}

/** One query on its own connection (a test reading a database a server also holds). */
export async function queryPostgres<T = any>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const c = await connectPostgres(url);
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}
