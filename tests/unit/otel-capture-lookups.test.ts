import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import { StageTimes } from "@/lib/capture/stage-times";
import { ingestLogs, ingestTraces, STATEMENT_SIZES } from "@/lib/capture/store-captures";
import type { Database } from "@/lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql, type ProjectSql } from "@/lib/db/project-sql";
import { useEmbeddedDatabase } from "../helpers/embedded-database";
import { chatCall } from "../helpers/genai-log-calls";
import { usePostgresDatabase } from "../helpers/postgres-database";
import { realPostgresUrl } from "../helpers/real-postgres";

// The reads of an OTLP ingest look rows up by key (state keys, turn ids, prompt nodes,
// conversations), and each key must cost one index probe whatever the planner's row estimates.
// On tables not analyzed yet (a new PostgreSQL deployment's first minute; PGlite until the
// first bulk ANALYZE) a project looked like a few rows, and lookups written as
// `project_id = $1 AND key = ANY($2)` or as joins were planned as scans of all the project's
// spans, turns and prompt nodes, filtered for every request (docs/benchmarks.md section 78).
// Here a project holds 30 agents' 20 calls (600 turns, never analyzed); a request with the next
// call of 10 of them is ingested, then 10 calls whose content comes as log events (their spans in
// one export, their events in the next), and every read those sent is run again under EXPLAIN
// ANALYZE: the rows each one's scans read (returned, and filtered away) must stay near its keys.

const AGENTS = 30;
const CALLS = 20;
const SYSTEM = [{ type: "text", content: "You answer travel questions briefly." }];

/** Agents `from`..`to`-1's calls `first`..`last`-1, without gen_ai.conversation.id (each call its own trace), each resending the agent's history. */
function calls(tag: string, agents: [number, number], range: [number, number]) {
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t");
  const t0 = Date.UTC(2026, 0, 1);
  for (let a = agents[0]; a < agents[1]; a++) {
    const history: unknown[] = [];
    for (let i = 0; i < range[1]; i++) {
      history.push({ role: "user", parts: [{ type: "text", content: `${tag} agent ${a} question ${i}` }] });
      const out = [{ role: "assistant", parts: [{ type: "text", content: `answer ${a}.${i}` }] }];
      if (i >= range[0]) {
        tracer
          .startSpan("chat", {
            startTime: new Date(t0 + i * 60_000 + a),
            attributes: {
              "gen_ai.operation.name": "chat",
              "gen_ai.system_instructions": JSON.stringify(SYSTEM),
              "gen_ai.input.messages": JSON.stringify(history),
              "gen_ai.output.messages": JSON.stringify(out),
            },
          })
          .end(new Date(t0 + i * 60_000 + a + 500));
      }
      history.push(out[0]);
    }
  }
  return decodeTracesProto(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!);
}

type Statement = { text: string; params: unknown[] };

/** `sql` with every statement of its transactions noted. */
function recording(sql: ProjectSql, seen: Statement[]): ProjectSql {
  return {
    ...sql,
    query: async (text, params) => {
      seen.push({ text, params: params ?? [] });
      return sql.query(text, params);
    },
    transaction: (fn) => sql.transaction((tx) => fn(recording(tx, seen))),
  };
}

type PlanNode = { "Relation Name"?: string; "Actual Rows": number; "Actual Loops": number; "Rows Removed by Filter"?: number; "Rows Removed by Index Recheck"?: number; Plans?: PlanNode[] };

/** Rows the scans of a plan read: returned or filtered away, over all their loops. */
function rowsRead(n: PlanNode): number {
  const own = n["Relation Name"] ? (n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0) + (n["Rows Removed by Index Recheck"] ?? 0)) * n["Actual Loops"] : 0;
  return own + (n.Plans ?? []).reduce((sum, c) => sum + rowsRead(c), 0);
}

/** Each read statement (SELECT, or WITH: the adoption's also updates, so it runs in a transaction rolled back) with the rows its plan read. */
async function readsOf(db: Database, seen: Statement[]) {
  const out: { statement: string; rows: number }[] = [];
  for (const s of seen.filter((x) => /^\s*(SELECT|WITH)\b/.test(x.text) && !/pg_advisory/.test(x.text))) {
    const rollback = new Error("rollback");
    await db.sql
      .transaction(async (tx) => {
        const [row] = await tx.query<{ "QUERY PLAN": unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${s.text}`, s.params);
        const raw = row["QUERY PLAN"];
        const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
        out.push({ statement: s.text.replace(/\s+/g, " ").trim().slice(0, 60), rows: rowsRead(plan[0].Plan) });
        throw rollback;
      })
      .catch((e) => {
        if (e !== rollback) throw e;
      });
  }
  return out;
}

function lookupTests(db: () => Database) {
  it("each read of requests continuing 10 of 30 stored conversations, or joining 10 spans to their log events, reads rows near its keys, not the project's 600 turns", async () => {
    const sql = projectSql(db().sql, DEFAULT_PROJECT_ID);
    expect((await ingestTraces(sql, calls("lookups", [0, AGENTS], [0, CALLS]), new Date(), new StageTimes(), STATEMENT_SIZES.server)).turns_created).toBe(AGENTS * CALLS);
    const seen: Statement[] = [];
    const next = await ingestTraces(recording(sql, seen), calls("lookups", [0, 10], [CALLS, CALLS + 1]), new Date(), new StageTimes(), STATEMENT_SIZES.server);
    expect(next.turns_created).toBe(10);
    // Each continued its agent's conversation.
    expect(next.conversation_ids).toHaveLength(10);
    const [{ n }] = await db().sql.query<{ n: number }>(`SELECT count(DISTINCT conversation_id)::int AS n FROM messages WHERE project_id = $1`, [DEFAULT_PROJECT_ID]);
    expect(n).toBe(AGENTS);
    const reads = await readsOf(db(), seen);
    // The state lookups, the conversations' lock, the resent-span check, the turns' places, the prompt probes, the adoption check.
    expect(reads.length).toBeGreaterThanOrEqual(5);
    // 10 keys each: a probe or two a key, an index page's worth of rows at most.
    expect(reads.filter((r) => r.rows > 60)).toEqual([]);

    // Calls whose content comes as log events (the contrib instrumentation): the spans wait, then their events join them.
    // Ten calls' spans in one export, then their events in one.
    const calls10 = Array.from({ length: 10 }, (_, i) => chatCall(`lookups-logs-${i}`));
    const spans = calls10.map((c) => c.traces());
    const events = calls10.map((c) => c.logs());
    const oneExport = { resourceSpans: spans.flatMap((t) => t.resourceSpans), spanCount: 10 };
    expect((await ingestTraces(sql, oneExport, new Date(), new StageTimes(), STATEMENT_SIZES.server)).awaiting_logs).toBe(10);
    const joined: Statement[] = [];
    const oneLogExport = { resourceLogs: events.flatMap((l) => l.resourceLogs), recordCount: events.reduce((n, l) => n + l.recordCount, 0) };
    expect((await ingestLogs(recording(sql, joined), oneLogExport, new Date(), new StageTimes(), STATEMENT_SIZES.server)).turns_created).toBe(10);
    expect((await readsOf(db(), joined)).filter((r) => r.rows > 60)).toEqual([]);
  });
}

describe("OTLP ingest lookups by key on the embedded database", () => {
  const store = useEmbeddedDatabase();
  lookupTests(() => store.db);
});

describe.skipIf(!realPostgresUrl())("OTLP ingest lookups by key on PostgreSQL", () => {
  const pg = usePostgresDatabase();
  lookupTests(() => pg.db);
});
