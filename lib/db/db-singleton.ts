import { openDatabase, type Database } from "./open-database";
import { analyzeOnOpen } from "./planner-stats";

// One database per server process: Next.js evaluates modules once per bundle
// (routes, instrumentation), so the handle lives on globalThis. Nothing opens at
// import time: `next build` prerenders in workers that must not touch the data folder.
const KEY = Symbol.for("memscope.db");
const START = Symbol.for("memscope.db.start");
type Holder = { [KEY]?: Promise<Database>; [START]?: DatabaseStart };

/**
 * What the server does around opening its database (lib/server/start.ts registers it; scripts
 * and tests that open a database themselves register none). Every opening runs it, a retry after
 * a failed one included, and the database is handed out only once it is done, so no request
 * sees a database that is not seeded yet. lib/db knows none of the domains it reaches.
 */
export type DatabaseStart = {
  /** Before opening: settings read here stop the start while nothing is open yet. */
  check(): void;
  /** After migrations, before the planner statistics are taken (the demo seed). */
  fill(db: Database): Promise<void>;
  /** After the statistics: indexes, background jobs, schedulers. */
  start(db: Database): Promise<void>;
};

export function setDatabaseStart(start: DatabaseStart): void {
  (globalThis as Holder)[START] = start;
}

export function dbSingleton(): Promise<Database> {
  const g = globalThis as Holder;
  if (!g[KEY]) {
    const opening = (async () => {
      const start = g[START];
      start?.check();
      const db = await openDatabase();
      await start?.fill(db);
      await analyzeOnOpen(db);
      await start?.start(db);
      return db;
    })();
    g[KEY] = opening;
    opening.catch((e) => {
      console.error(`[memscope] database unavailable: ${(e as Error).message}`);
      if (g[KEY] === opening) delete g[KEY]; // the next request retries (e.g. after the lock holder exits)
    });
  }
  return g[KEY];
}
