import { dbSingleton } from "../db/db-singleton";
import { loadAuthSecret } from "./auth-secret";
import { createAuth, type Auth } from "./create-auth";

// One better-auth instance per server process, built once the database is open (never
// at import time: `next build` must not touch the data folder). Like db-singleton, no
// "server-only" here so instrumentation.ts can reach it at start.
const KEY = Symbol.for("memscope.auth");
type Holder = { [KEY]?: Promise<Auth> };

export function authSingleton(): Promise<Auth> {
  const g = globalThis as Holder;
  if (!g[KEY]) {
    const building = (async () => {
      const db = await dbSingleton();
      const secret = await loadAuthSecret(db.prisma);
      return createAuth(db.prisma, { secret, publicUrl: process.env.MEMSCOPE_PUBLIC_URL?.trim() || undefined });
    })();
    g[KEY] = building;
    building.catch(() => {
      if (g[KEY] === building) delete g[KEY];
    });
  }
  return g[KEY];
}
