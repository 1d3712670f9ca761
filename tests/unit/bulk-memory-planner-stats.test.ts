import { describe, expect, it } from "vitest";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { analyzeThreshold, MEMORY_TABLES, noteBulkWrite } from "@/lib/db/planner-stats";
import { importBenchmark } from "@/lib/evals/import-benchmark";
import { createSet } from "@/lib/evals/sets-db";
import { useEmbeddedDatabase } from "../helpers/embedded-database";
import { LOADED_MACHINE_TIMEOUT_MS } from "../helpers/loaded-machine";

// The embedded database runs no autovacuum: a bulk memory write must analyse the memory
// tables itself. Without it the history trigger's plan, made when memory_events was empty,
// stayed a scan, and a 300 MB LongMemEval import slowed from 0.2 s to 6 s a record as the
// table grew. pg_class.reltuples is what ANALYZE leaves: 0 from the start-up ANALYZE of an
// empty database until the tables are analysed again.
//
// The threshold itself (5 000 rows, then a fifth of the tables) is tested on real ANALYZEs in
// planner-stats.test.ts. What this file proves is that an import counts its memory rows toward it
// (the process-wide count of MEMORY_TABLES): the count is brought to TURNS rows short of the
// threshold, so only an import noting all its TURNS memories re-analyses. Importing 5 100
// memories to cross it from zero cost about 55 CPU-seconds of the unit phase (docs/benchmarks.md
// section 36); this, a few.

const TURNS = 40;

const store = useEmbeddedDatabase();

const reltuples = async () =>
  (
    await store.db.sql.query<{ relname: string; reltuples: number }>(
      `SELECT relname, reltuples::float8 AS reltuples FROM pg_class WHERE relname = ANY($1::text[]) ORDER BY relname`,
      [MEMORY_TABLES],
    )
  ).map((r) => [r.relname, r.reltuples]);

describe("bulk memory writes keep the planner's statistics of the memory tables", () => {
  it("a LongMemEval import whose memories reach the re-analysis threshold re-analyses memories, memory_embeddings and memory_events", async () => {
    const sql = projectSql(store.db.sql, DEFAULT_PROJECT_ID);
    const set = await createSet(sql, { name: "planner stats" });
    // Whatever earlier files in this process wrote (and their tables' size), more rows than any
    // step analyses this database's empty tables and starts the count from 0 (threshold
    // analyzeThreshold(0)); then all but TURNS rows of that step.
    await noteBulkWrite(store.db.sql, Number.MAX_SAFE_INTEGER, MEMORY_TABLES);
    await noteBulkWrite(store.db.sql, analyzeThreshold(0) - TURNS, MEMORY_TABLES);
    expect(await reltuples()).toEqual(MEMORY_TABLES.slice().sort().map((t) => [t, 0]));

    // User turns only: one memory each.
    const session = Array.from({ length: TURNS }, (_, i) => ({ role: "user", content: `My note number ${i} is about the garden shed ${i % 97}.` }));
    const record = {
      question_id: "stats_q1",
      question_type: "single-session-user",
      question: "What is note 7 about?",
      answer: "the garden shed",
      question_date: "2023/06/01 (Thu) 10:00",
      haystack_session_ids: ["s1"],
      haystack_dates: ["2023/05/20 (Sat) 02:21"],
      haystack_sessions: [session],
      answer_session_ids: ["s1"],
    };
    const summary = await importBenchmark(sql, set.id, { format: "longmemeval", chunks: [JSON.stringify([record])], extraction: "turns" });
    expect(summary.memories).toBe(TURNS);
    // Analysed after the import: each table's statistics hold its rows (memory_embeddings has one per model).
    const counts = await store.db.sql.query<{ relname: string; n: number }>(
      `SELECT 'memories' AS relname, count(*)::float8 AS n FROM memories
       UNION ALL SELECT 'memory_embeddings', count(*)::float8 FROM memory_embeddings
       UNION ALL SELECT 'memory_events', count(*)::float8 FROM memory_events ORDER BY relname`,
    );
    expect(counts.every((c) => c.n >= TURNS)).toBe(true);
    expect(await reltuples()).toEqual(counts.map((c) => [c.relname, c.n]));
  }, LOADED_MACHINE_TIMEOUT_MS);
});
