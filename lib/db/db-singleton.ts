import { LOCK_KEYS, openDatabase, type Database } from "./open-database";
import { analyzeOnOpen } from "./planner-stats";
import { seedIfEmpty } from "./seed/seed-if-empty";
import { resumeReembedInBackground, watchReembedJobs } from "../embeddings/reembed-job";
import { ensureUserVectorIndexesAtStart, userVectorIndexMin } from "../embeddings/user-vector-indexes";
import { exactScanMaxMemories } from "../memories/exact-scan-max";

// One database per server process: Next.js evaluates modules once per bundle
// (routes, instrumentation), so the handle lives on globalThis. Nothing opens at
// import time: `next build` prerenders in workers that must not touch the data folder.
const KEY = Symbol.for("memscope.db");
type Holder = { [KEY]?: Promise<Database> };

export function dbSingleton(): Promise<Database> {
  const g = globalThis as Holder;
  if (!g[KEY]) {
    const opening = (async () => {
      // Malformed search thresholds stop here, before the database opens: /ready answers 503
      // and the log names the variable, instead of each search failing later.
      exactScanMaxMemories();
      userVectorIndexMin();
      // Imported here: the scheduler reaches the erasure, which reaches this module.
      const retention = await import("../retention/scheduler");
      const retentionEvery = retention.retentionCheckMs();
      const db = await openDatabase();
      if (process.env.MEMSCOPE_SEED !== "0") {
        // Several instances starting on one empty database: the first seeds, the others
        // wait for it and then find the database no longer empty.
        const n = await db.withLock(LOCK_KEYS.seed, () => seedIfEmpty(db));
        if (n) console.log(`[memscope] seeded ${n} demo conversations`);
      }
      await analyzeOnOpen(db);
      // The largest users' own HNSW indexes (lib/embeddings/user-vector-indexes.ts): on
      // PostgreSQL built concurrently in the background; on the embedded database before
      // serving, since a build there holds the one connection every request needs.
      const userIndexes = ensureUserVectorIndexesAtStart(db);
      if (db.config.kind === "pglite") await userIndexes;
      // The embedded database has one process (the folder lock): a lease found at start is
      // a dead process's, so the job resumes here at once instead of after the lease runs out.
      if (db.config.kind === "pglite") {
        await db.sql.query(`UPDATE embedding_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner IS NOT NULL`);
      }
      resumeReembedInBackground(db); // not awaited: a model change re-embeds in the background
      // Another instance on this database may die mid-job: this one then takes it over.
      if (db.config.kind === "postgres") watchReembedJobs(db);
      // Retention rules, daily, one instance at a time (lib/retention/scheduler.ts).
      retention.startRetentionScheduler(db, retentionEvery);
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
