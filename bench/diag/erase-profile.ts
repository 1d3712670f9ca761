// BENCH_MEMORIES=20000 BENCH_CONVERSATIONS=400 npx tsx --conditions=react-server bench/diag/erase-profile.ts
//
// Where bench:erase's erasure spends its time, in-process (no HTTP): bench:erase's data set on
// a fresh PostgreSQL database, then runUserErasure with every SQL statement timed. Prints the
// statements by total time (their first 160 characters).
// The data set is filled without the lexical model's HNSW index (dropped first; inserting into
// it is most of bench:erase's fill time): deleting rows does not touch an HNSW index (VACUUM
// does), and the erased user's probes search an empty set, so the erasure's time is the same.

import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import type { SqlRunner } from "../../lib/db/migrations";
import { now, runMain } from "../lib/common";
import { fill, USER } from "../lib/erase-dataset";
import { freshPostgres } from "../lib/serve-process";

function timed(sql: SqlRunner, into: Map<string, { n: number; ms: number }>): SqlRunner {
  const note = (text: string, ms: number) => {
    const key = text.replace(/\s+/g, " ").slice(0, 160);
    const e = into.get(key) ?? { n: 0, ms: 0 };
    e.n++;
    e.ms += ms;
    into.set(key, e);
  };
  return {
    exec: async (text) => {
      const t = now();
      await sql.exec(text);
      note(text, now() - t);
    },
    query: async <T,>(text: string, params?: unknown[]) => {
      const t = now();
      const r = await sql.query<T>(text, params);
      note(text, now() - t);
      return r;
    },
    transaction: (fn) => sql.transaction((tx) => fn(timed(tx, into))),
  };
}

runMain("diag:erase-profile", async (cleanup) => {
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.MEMSCOPE_TEST_POSTGRES_URL;
  if (!serverUrl) throw new Error("Needs PostgreSQL: BENCH_DATABASE_URL or MEMSCOPE_TEST_POSTGRES_URL");
  const pgdb = await freshPostgres(serverUrl);
  cleanup(() => pgdb.drop());
  process.env.DATABASE_URL = pgdb.url;
  process.env.MEMSCOPE_SEED = "0";
  process.env.MEMSCOPE_USER_VECTOR_INDEX_MIN = "0";
  const { getDb } = await import("../../lib/db/get-db");
  const { runUserErasure } = await import("../../lib/privacy/run-erasure");
  const db = await getDb();
  cleanup(() => db.close());
  await db.sql.exec(`DROP INDEX IF EXISTS memory_embeddings_hnsw_lexical_hash_v1`);
  await fill(pgdb.url);
  const stmts = new Map<string, { n: number; ms: number }>();
  const sql = projectSql(timed(db.sql, stmts), DEFAULT_PROJECT_ID, "profile");
  const t = now();
  const r = await runUserErasure(sql, USER, { dryRun: false, physical: false, by: "profile" });
  if (r.dry_run) throw new Error("dry run?");
  console.log(`erased ${r.receipt.total} rows in ${((now() - t) / 1000).toFixed(1)} s; probes passed: ${r.receipt.probes.passed}`);
  const rows = [...stmts.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25);
  for (const [k, v] of rows) console.log(`${(v.ms / 1000).toFixed(2).padStart(7)} s ${String(v.n).padStart(5)}x  ${k}`);
});
