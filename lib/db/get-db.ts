import "server-only";
import { openDatabase, type Database } from "./open-database";
import { seedIfEmpty } from "./seed/seed-if-empty";

// One database per server process: Next.js may evaluate this module more than once
// (route bundles, hot reload), so the handle lives on globalThis. Nothing opens at
// import time: `next build` prerenders in workers that must not touch the data folder.
const KEY = Symbol.for("memscope.db");
type Holder = { [KEY]?: Promise<Database> };

export function getDb(): Promise<Database> {
  const g = globalThis as Holder;
  if (!g[KEY]) {
    g[KEY] = (async () => {
      const db = await openDatabase();
      if (process.env.MEMSCOPE_SEED !== "0") await seedIfEmpty(db);
      return db;
    })();
    g[KEY].catch(() => {
      delete g[KEY]; // let the next request retry (for example after the lock holder exits)
    });
  }
  return g[KEY];
}

export async function getPrisma() {
  return (await getDb()).prisma;
}
