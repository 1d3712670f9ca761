// npm run db:migrate — applies pending migrations to the configured database.
import { readDbConfig } from "../lib/db/db-config";
import { openDatabase } from "../lib/db/open-database";
import { applyMigrations } from "../lib/db/migrations";

const config = readDbConfig();
const db = await openDatabase(config, { migrate: false });
try {
  const r = await applyMigrations(db.sql);
  const where = config.kind === "pglite" ? `PGlite at ${config.dataDir}` : "DATABASE_URL";
  console.log(`${where}: applied ${r.applied.length} (${r.applied.join(", ") || "none"}), already applied ${r.alreadyApplied.length}.`);
} finally {
  await db.close();
}
