import type { SqlRunner } from "./migrations";

// PGlite runs no autovacuum (as planner-stats.ts says for ANALYZE). An UPDATE leaves the
// row's old version behind, with an entry in every index whose columns changed (a
// conversation's updated_at is in four of its six), and every later lookup through those
// indexes visits each old version. An OTLP ingest updates each of its conversations once a
// request (counters, updated_at), so a conversation exported to ten times held ~ten versions,
// and the foreign-key check of every turn and captured message written into it (by the
// conversation's primary key) walked them all: 0.4-0.8 ms a check, 0.1-0.2 ms after a
// VACUUM, a fifth of a 512-span request's main-thread time (docs/benchmarks.md section 71).
// So the embedded database's writers count the rows they update and the table is vacuumed
// every UPDATES_PER_VACUUM of them, outside any transaction. A plain VACUUM skips the pages
// the visibility map says are clean, so its cost follows what changed since the last one
// (256 conversations: ~5 ms). PostgreSQL servers vacuum on their own.

/** Row updates of one table between two VACUUMs (one request of an agent fleet's 256 conversations). */
export const UPDATES_PER_VACUUM = 200;

// By table, for the process (its one database; a test process opening several only vacuums one sooner).
const counters = new Map<string, number>();

/** Counts `rows` updated in `table` (committed) and vacuums it once enough were. */
export async function noteRowUpdates(sql: Pick<SqlRunner, "exec">, table: "conversations", rows: number): Promise<void> {
  const n = (counters.get(table) ?? 0) + rows;
  if (n < UPDATES_PER_VACUUM) {
    counters.set(table, n);
    return;
  }
  counters.set(table, 0);
  // What was written is committed: a VACUUM that fails (the folder gone at shutdown) only leaves the old versions.
  await sql.exec(`VACUUM ${table}`).catch(() => {});
}
