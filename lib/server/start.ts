import "server-only";
import { applyStartRules } from "../auth/apply-start-rules";
import { readDbConfig } from "../db/db-config";
import { dbSingleton, setDatabaseStart, type DatabaseStart } from "../db/db-singleton";
import { LOCK_KEYS } from "../db/open-database";
import { seedIfEmpty } from "../demo/seed-if-empty";
import { resumeReembedInBackground, watchReembedJobs } from "../embeddings/reembed-job";
import { ensureUserVectorIndexesAtStart, userVectorIndexMin } from "../embeddings/user-vector-indexes";
import { exactScanMaxMemories } from "../memories/exact-scan-max";
import { retentionCheckMs, startRetentionScheduler } from "../retention/scheduler";
import { collectStartGarbage } from "./collect-start-garbage";
import { removeStaleUploads } from "../imports/upload-file";

// The server's start, in one place above the domains: lib/db opens, migrates and analyses; what
// the server then does with its database (demo seed, users' vector indexes, the re-embedding job,
// the retention scheduler) and the start rules are here. instrumentation-node.ts calls startServer().

function databaseStart(): DatabaseStart {
  let retentionEvery = 0;
  return {
    check() {
      // Malformed search and retention settings stop here, before the database opens: /ready
      // answers 503 and the log names the variable, instead of each search failing later.
      exactScanMaxMemories();
      userVectorIndexMin();
      retentionEvery = retentionCheckMs();
    },
    async fill(db) {
      if (process.env.MEMSCOPE_SEED === "0") return;
      // Several instances starting on one empty database: the first seeds, the others
      // wait for it and then find the database no longer empty.
      const n = await db.withLock(LOCK_KEYS.seed, () => seedIfEmpty(db));
      if (n) console.log(`[memscope] seeded ${n} demo conversations`);
    },
    async start(db) {
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
      startRetentionScheduler(db, retentionEvery);
    },
  };
}

/**
 * Opens the database so that migrations and the demo seed run before the first request rather
 * than during it, then applies the first-run rules. A database that fails to open here is
 * opened again by the next request (lib/db/db-singleton.ts), with the same start.
 */
export async function startServer(): Promise<void> {
  setDatabaseStart(databaseStart());
  const config = readDbConfig();
  const where = config.kind === "pglite" ? `PGlite at ${config.dataDir}` : "PostgreSQL (DATABASE_URL)";
  try {
    await dbSingleton();
    console.log(`[memscope] database ready: ${where}`);
  } catch (e) {
    // Another live process holds the data folder: serving would answer 500 on every API
    // route, so stop before listening (the message names the folder and the holder's pid).
    if ((e as Error).name === "DataFolderLockedError") {
      console.error(`[memscope] not starting: ${(e as Error).message}`);
      process.exit(3);
    }
    // Anything else is already logged; requests answer 503 until it opens.
    return;
  }
  try {
    await applyStartRules();
  } catch (e) {
    // Thrown out of this hook, Next.js answers 500 to every request for good; a process that
    // exits is restarted by whoever runs it, and its log says why.
    console.error(`[memscope] not starting: the start rules failed: ${(e as Error).message}`);
    process.exit(1);
  }
  // Temporary upload files of a process that crashed mid-import (lib/imports/upload-file.ts).
  const stale = removeStaleUploads();
  if (stale) console.log(`[memscope] removed ${stale} temporary upload file(s) left by a stopped process`);
  await collectStartGarbage();
}
