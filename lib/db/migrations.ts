import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

// Applies prisma/migrations/*/migration.sql in name order, each in its own transaction,
// and records it in _prisma_migrations exactly as `prisma migrate deploy` does
// (sha256 of the file as checksum), so the two agree about what is applied.

export type SqlRunner = {
  /** Runs a multi-statement script (simple query protocol). */
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs fn inside BEGIN/COMMIT on one connection, rolling back if it throws. */
  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T>;
};

export type Migration = { name: string; sql: string; checksum: string };

export function migrationsDir(): string {
  // Read at run time from the project folder; not part of the server bundle.
  return path.resolve(/*turbopackIgnore: true*/ process.env.MEMSCOPE_MIGRATIONS_DIR || path.join(process.cwd(), "prisma", "migrations"));
}

export function readMigrations(dir = migrationsDir()): Migration[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export type MigrateResult = { applied: string[]; alreadyApplied: string[] };

export async function applyMigrations(db: SqlRunner, migrations = readMigrations()): Promise<MigrateResult> {
  // One migrator at a time per database (two servers starting against one Postgres). The lock
  // comes first: two concurrent CREATE TABLE IF NOT EXISTS race in the catalog, and the loser
  // fails on pg_type's unique index instead of finding the table.
  await db.exec("SELECT pg_advisory_lock(727274)");
  try {
    await db.exec(CREATE_TABLE);
    const rows = await db.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations"
        WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const done = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    const result: MigrateResult = { applied: [], alreadyApplied: [] };
    for (const m of migrations) {
      const prior = done.get(m.name);
      if (prior !== undefined) {
        if (prior !== m.checksum) {
          throw new Error(`Migration ${m.name} was modified after it was applied (checksum differs).`);
        }
        result.alreadyApplied.push(m.name);
        continue;
      }
      try {
        await db.transaction(async (tx) => {
          await tx.exec(m.sql);
          await tx.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
             VALUES ($1, $2, $3, now(), now(), 1)`,
            [randomUUID(), m.checksum, m.name],
          );
        });
      } catch (e) {
        throw new Error(`Migration ${m.name} failed and was rolled back: ${(e as Error).message}`);
      }
      result.applied.push(m.name);
    }
    return result;
  } finally {
    await db.exec("SELECT pg_advisory_unlock(727274)");
  }
}
