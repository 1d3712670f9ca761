// Where one realistic 512-span export spends its time, in-process (no HTTP): the SDK's default
// batch of agents' chat spans, each resending its history (issue 35: 256 agents, a ~1.2 KB
// system prompt, answers of 20-120 words, Traceloop's output shape with finish_reason), turns
// 0-9 stored first in 512-span batches, then turns 10 and 11 timed: decode, the ingest's
// stages and each SQL statement. PGlite, or PostgreSQL with PROF_DB=postgres and
// MEMSCOPE_TEST_POSTGRES_URL.
//   tsx --conditions=react-server bench/diag/otel-agents-batch.ts
import { performance } from "node:perf_hooks";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { decodeTracesProto } from "../../lib/capture/otlp-proto";
import { ingestTraces, STATEMENT_SIZES } from "../../lib/capture/store-captures";
import { StageTimes } from "../../lib/capture/stage-times";
import { openDatabase } from "../../lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import { makeTempDir, removeDir } from "../lib/common";
import { makeTurnGenerator } from "../lib/text";

const AGENTS = 256;
const SYSTEM = [{ type: "text", content: "You are the travel desk's assistant. Answer in short paragraphs, cite the booking reference when there is one, never invent prices. ".repeat(10) }];
const kind = process.env.PROF_DB === "postgres" ? "postgres" : "pglite";

async function main() {
  const dir = kind === "pglite" ? makeTempDir("memscope-diag-agents-") : undefined;
  const db = dir ? await openDatabase({ kind: "pglite", dataDir: dir }) : await openDatabase({ kind: "postgres", url: process.env.MEMSCOPE_TEST_POSTGRES_URL! });
  const stmt = new Map<string, { n: number; ms: number }>();
  let tracing = false;
  const wrap = (r: typeof db.sql): typeof db.sql => ({
    ...r,
    query: async (text: string, params?: unknown[]) => {
      const t = performance.now();
      try {
        return await r.query(text, params);
      } finally {
        if (tracing) {
          const k = text.replace(/\s+/g, " ").slice(0, 90);
          const e = stmt.get(k) ?? { n: 0, ms: 0 };
          e.n++;
          e.ms += performance.now() - t;
          stmt.set(k, e);
        }
      }
    },
    transaction: <T>(fn: (tx: typeof db.sql) => Promise<T>) => r.transaction((tx) => fn(wrap(tx))),
  }) as typeof db.sql;
  const sql = projectSql(wrap(db.sql), DEFAULT_PROJECT_ID);
  const gen = makeTurnGenerator(1);
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": `prof-${Date.now()}` }), spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t");
  const histories = Array.from({ length: AGENTS }, () => [] as unknown[]);
  const t0 = Date.now() - 3_600_000;
  const byTurn: ReadableSpan[][] = [];
  for (let turn = 0; turn < 12; turn++) {
    memory.reset();
    for (let a = 0; a < AGENTS; a++) {
      const t = gen();
      histories[a].push({ role: "user", parts: [{ type: "text", content: t.query }] });
      const answer = { role: "assistant", parts: [{ type: "text", content: t.answer }] };
      tracer.startSpan("openai.chat", { startTime: new Date(t0 + turn * 10_000 + a), attributes: {
        "gen_ai.operation.name": "chat", "gen_ai.system_instructions": JSON.stringify(SYSTEM),
        "gen_ai.input.messages": JSON.stringify(histories[a]), "gen_ai.output.messages": JSON.stringify([{ ...answer, finish_reason: "stop" }]),
      } }).end(new Date(t0 + turn * 10_000 + a + 500));
      histories[a].push(answer);
    }
    byTurn.push([...memory.getFinishedSpans()] as ReadableSpan[]);
  }
  const sizes = kind === "pglite" ? STATEMENT_SIZES.embedded : STATEMENT_SIZES.server;
  // Earlier turns stored first, in batches of 512.
  for (let turn = 0; turn < 10; turn += 2) {
    const body = ProtobufTraceSerializer.serializeRequest([...byTurn[turn], ...byTurn[turn + 1]])!;
    const t = performance.now();
    const times = new StageTimes();
    const r = await ingestTraces(sql, decodeTracesProto(body), new Date(), times, sizes);
    console.log(`prior batch turns ${turn}-${turn + 1}: ${r.turns_created} in ${(performance.now() - t).toFixed(0)} ms (${times.header()}), body ${body.length} B`);
  }
  const body = ProtobufTraceSerializer.serializeRequest([...byTurn[10], ...byTurn[11]])!;
  const times = new StageTimes();
  const t = performance.now();
  tracing = true;
  const traces = decodeTracesProto(body);
  const decoded = performance.now();
  const r = await ingestTraces(sql, traces, new Date(), times, sizes);
  console.log(`timed batch: ${r.turns_created} spans, ${body.length} B body; decode ${(decoded - t).toFixed(0)} ms, ingest ${(performance.now() - decoded).toFixed(0)} ms (${times.header()})`);
  for (const [k, v] of [...stmt].sort((a, b) => b[1].ms - a[1].ms)) console.log(`${v.ms.toFixed(0).padStart(6)} ms ${String(v.n).padStart(3)}x ${k}`);
  await db.close();
  removeDir(dir);
}
main();
