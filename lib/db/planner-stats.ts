import type { Database } from "./open-database";
import type { SqlRunner } from "./migrations";

// PGlite runs no autovacuum, so the planner's statistics are only as fresh as the last
// ANALYZE. Stale ones made the "newest N turns" query sort a whole conversation
// instead of walking its index (58 ms instead of 1.5 ms at 20 000 rows). PostgreSQL
// servers analyze on their own.

// Re-analyze after this many written rows, or a fifth of the tables' rows at the last
// ANALYZE if that is more (as autovacuum's analyze_scale_factor): a fixed step made a
// 100 000-turn load analyze twenty times, each slower than the last.
const MIN_ROWS = 5000;
const SCALE_FACTOR = 0.2;
const PLANNER_STATS_LOCK = 727276; // LOCK_KEYS.plannerStats in open-database.ts (not imported: no cycle)
// Per set of tables: rows written to one set say nothing of another's statistics.
const counters = new Map<string, { writtenSinceAnalyze: number; rowsAtLastAnalyze: number }>();

/** Rows to write before the next ANALYZE, given the tables' size at the last one. */
export function analyzeThreshold(rowsAtLast: number): number {
  return Math.max(MIN_ROWS, Math.ceil(rowsAtLast * SCALE_FACTOR));
}

/**
 * Counts bulk writes and re-analyzes the tables once enough rows changed. Several instances
 * on one database never analyze at once: the one that gets the lock does it, the others
 * skip (a transaction-scoped try-lock: never waits, released at commit).
 */
export async function noteBulkWrite(sql: SqlRunner, rows: number, tables: string[]): Promise<void> {
  const key = tables.join(",");
  const c = counters.get(key) ?? { writtenSinceAnalyze: 0, rowsAtLastAnalyze: 0 };
  counters.set(key, c);
  c.writtenSinceAnalyze += rows;
  if (c.writtenSinceAnalyze < analyzeThreshold(c.rowsAtLastAnalyze)) return;
  c.writtenSinceAnalyze = 0;
  await sql.transaction(async (tx) => {
    const [{ ok }] = await tx.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock($1) AS ok`, [PLANNER_STATS_LOCK]);
    if (!ok) return;
    for (const t of tables) await tx.exec(`ANALYZE ${t}`);
    const [{ n }] = await tx.query<{ n: number | null }>(`SELECT sum(reltuples)::float8 AS n FROM pg_class WHERE oid = ANY($1::text[]::regclass[])`, [tables]);
    c.rowsAtLastAnalyze = Math.max(0, Number(n) || 0);
  });
}

/**
 * The tables a bulk memory write fills. Their statistics matter beyond plain queries: the
 * history trigger's lookups (memory_events) are planned once per database session and kept
 * until the table is analysed, so a plan made while the table was small (a scan) stayed for
 * an hour-long import, and each event insert scanned every event written before it.
 */
export const MEMORY_TABLES = ["memories", "memory_embeddings", "memory_events"];

/** At start-up on the embedded database: analyze once so plans start from real counts. */
export async function analyzeOnOpen(db: Database): Promise<void> {
  if (db.config.kind !== "pglite") return;
  await db.sql.exec("ANALYZE");
}
