// Opens the database when the server starts, so migrations and the demo seed run
// before the first request rather than during it; then applies the first-run rules.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  const { dbSingleton } = await import("./lib/db/db-singleton");
  const { readDbConfig } = await import("./lib/db/db-config");
  const config = readDbConfig();
  const where = config.kind === "pglite" ? `PGlite at ${config.dataDir}` : "PostgreSQL (DATABASE_URL)";
  try {
    await dbSingleton();
    console.log(`[memscope] database ready: ${where}`);
  } catch {
    // Already logged; requests answer 503 until it opens.
    return;
  }
  const { applyStartRules } = await import("./lib/auth/apply-start-rules");
  await applyStartRules();
}
