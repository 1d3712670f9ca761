import { openDatabase } from "@/lib/db/open-database";
import type { AppServer } from "./app-server";
import type { TestDatabase } from "./test-database";

export type RawQuery = (text: string, params?: unknown[]) => Promise<any[]>;

/**
 * Runs SQL on a suite's database while its server serves it: directly on PostgreSQL; the
 * embedded folder has one owner at a time, so there the server is stopped and `restart`
 * starts another. Answers the server to use from now on.
 */
export async function sqlBesideServer(db: TestDatabase, server: AppServer, fn: (q: RawQuery) => Promise<void>, restart: () => Promise<AppServer>): Promise<AppServer> {
  if (db.kind === "embedded") await server.stop();
  const handle = await openDatabase(db.kind === "embedded" ? { kind: "pglite", dataDir: db.dataDir! } : { kind: "postgres", url: db.url! }, { migrate: false });
  try {
    await fn((text, params) => handle.sql.query(text, params));
  } finally {
    await handle.close();
  }
  return db.kind === "embedded" ? restart() : server;
}
