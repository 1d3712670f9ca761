import { describe, expect, it } from "vitest";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { importBenchmark } from "@/lib/evals/import-benchmark";
import { createSet } from "@/lib/evals/sets-db";
import { useEmbeddedDatabase } from "../helpers/embedded-database";
import { LOADED_MACHINE_TIMEOUT_MS } from "../helpers/loaded-machine";

// The embedded database runs no autovacuum: a bulk memory write must analyse the memory
// tables itself. Without it the history trigger's plan, made when memory_events was empty,
// stayed a scan, and a 300 MB LongMemEval import slowed from 0.2 s to 6 s a record as the
// table grew. pg_class.reltuples is what ANALYZE leaves: 0 from the start-up ANALYZE of an
// empty database until the tables are analysed again.

const TURNS = 5_100; // more rows than planner-stats' first re-analysis threshold (5 000)

const store = useEmbeddedDatabase();

describe("bulk memory writes keep the planner's statistics of the memory tables", () => {
  it("a LongMemEval import of 5 100 memories re-analyses memories, memory_embeddings and memory_events", async () => {
    const sql = projectSql(store.db.sql, DEFAULT_PROJECT_ID);
    const set = await createSet(sql, { name: "planner stats" });
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
    expect(summary.memories).toBeGreaterThanOrEqual(5_000);
    const rows = await store.db.sql.query<{ relname: string; reltuples: number }>(
      `SELECT relname, reltuples::float8 AS reltuples FROM pg_class WHERE relname = ANY($1::text[]) ORDER BY relname`,
      [["memories", "memory_embeddings", "memory_events"]],
    );
    expect(rows.map((r) => [r.relname, r.reltuples >= 5_000])).toEqual([
      ["memories", true],
      ["memory_embeddings", true],
      ["memory_events", true],
    ]);
  }, LOADED_MACHINE_TIMEOUT_MS);
});
