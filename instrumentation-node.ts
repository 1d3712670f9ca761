// The server's start (instrumentation.ts imports this on the Node.js runtime only): open the
// database, so migrations and the demo seed run before the first request rather than during
// it; then apply the first-run rules.
export async function startNodeServer() {
  // scripts/serve.mjs listens only once this is done (the hook is not set under `next dev`).
  try {
    const { dbSingleton } = await import("./lib/db/db-singleton");
    const { readDbConfig } = await import("./lib/db/db-config");
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
    const { applyStartRules } = await import("./lib/auth/apply-start-rules");
    try {
      await applyStartRules();
    } catch (e) {
      // Thrown out of this hook, Next.js answers 500 to every request for good; a process that
      // exits is restarted by whoever runs it, and its log says why.
      console.error(`[memscope] not starting: the start rules failed: ${(e as Error).message}`);
      process.exit(1);
    }
    // Temporary upload files of a process that crashed mid-import (lib/imports/upload-file.ts).
    const { removeStaleUploads } = await import("./lib/imports/upload-file");
    const stale = removeStaleUploads();
    if (stale) console.log(`[memscope] removed ${stale} temporary upload file(s) left by a stopped process`);
    const { collectStartGarbage } = await import("./lib/server/collect-start-garbage");
    await collectStartGarbage();
  } finally {
    (globalThis as { __memscopeStarted?: () => void }).__memscopeStarted?.();
  }
}
