// Where one realistic 512-span export spends its time, in-process (no HTTP): the SDK's default
// batch of agents' chat spans, each resending its history (issue 35: 256 agents, a ~1.2 KB
// system prompt, answers of 20-120 words, Traceloop's output shape with finish_reason), turns
// 0-9 stored first in 512-span batches, then turns 10 and 11 timed: decode, the ingest's
// stages and each SQL statement. PGlite, or PostgreSQL with PROF_DB=postgres and
// MEMSCOPE_TEST_POSTGRES_URL.
// Event-loop stalls over 50 ms during the timed batch (what a GET /ready waits behind), each with the
// statements that ran inside it (the rest of a stall is JavaScript on the thread).
//   tsx --conditions=react-server bench/diag/otel-agents-batch.ts
import os from "node:os";
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
import { emitAgentTurn } from "../lib/otel-agent-turns";
import { makeTurnGenerator } from "../lib/text";

const AGENTS = 256;
const SYSTEM = [{ type: "text", content: "You are the travel desk's assistant. Answer in short paragraphs, cite the booking reference when there is one, never invent prices. ".repeat(10) }];
const kind = process.env.PROF_DB === "postgres" ? "postgres" : "pglite";

async function main() {
  const dir = kind === "pglite" ? makeTempDir("memscope-diag-agents-") : undefined;
  const db = dir ? await openDatabase({ kind: "pglite", dataDir: dir }) : await openDatabase({ kind: "postgres", url: process.env.MEMSCOPE_TEST_POSTGRES_URL! });
  const stmt = new Map<string, { n: number; ms: number }>();
  const spans: { k: string; t0: number; t1: number }[] = [];
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
          spans.push({ k: k.slice(0, 60), t0: t, t1: performance.now() });
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
    emitAgentTurn(tracer, gen, histories, SYSTEM, turn, t0);
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
  const stages: { k: string; t0: number; t1: number }[] = [];
  // The ingest's stages with their intervals, to name the stage a stall fell in.
  class Timed extends StageTimes {
    override async time<T>(stage: Parameters<StageTimes["time"]>[0], fn: () => Promise<T> | T): Promise<T> {
      const t0 = performance.now();
      try {
        return await super.time(stage, fn);
      } finally {
        stages.push({ k: stage, t0, t1: performance.now() });
      }
    }
  }
  const times = new Timed();
  const t = performance.now();
  tracing = true;
  // The server decodes in a worker (otlp-proto-off-thread.ts): decoded here before the stall watch starts.
  const traces = decodeTracesProto(body);
  const decoded = performance.now();
  // A timer every 10 ms: a gap of more than 50 ms past its due time is a stall; with this process's CPU
  // time in it (all threads: PGlite and the ingest run on this one, the token workers apart), which a
  // loaded machine inflates less than wall time.
  const stalls: { from: number; to: number; cpu: number }[] = [];
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const tick = setInterval(() => {
    const n = performance.now();
    const c = process.cpuUsage();
    if (n - last - 10 > 50) stalls.push({ from: last, to: n, cpu: (c.user + c.system - lastCpu.user - lastCpu.system) / 1000 });
    last = n;
    lastCpu = c;
  }, 10);
  const r = await ingestTraces(sql, traces, new Date(), times, sizes);
  console.log(`timed batch: ${r.turns_created} spans, ${body.length} B body; decode ${(decoded - t).toFixed(0)} ms, ingest ${(performance.now() - decoded).toFixed(0)} ms (${times.header()})`);
  clearInterval(tick);
  for (const [k, v] of [...stmt].sort((a, b) => b[1].ms - a[1].ms)) console.log(`${v.ms.toFixed(0).padStart(6)} ms ${String(v.n).padStart(3)}x ${k}`);
  console.log(`stalls > 50 ms: ${stalls.length}, worst ${Math.max(0, ...stalls.map((x) => x.to - x.from - 10)).toFixed(0)} ms wall, ${Math.max(0, ...stalls.map((x) => x.cpu)).toFixed(0)} ms CPU; load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
  for (const x of stalls) {
    const stage = stages.filter((q) => q.t1 > x.from && q.t0 < x.to && q.k !== "db").map((q) => q.k);
    const inside = spans.filter((q) => q.t1 > x.from && q.t0 < x.to).map((q) => `${(Math.min(q.t1, x.to) - Math.max(q.t0, x.from)).toFixed(0)} ms ${q.k}`);
    console.log(`  stall ${(x.to - x.from - 10).toFixed(0)} ms (CPU ${x.cpu.toFixed(0)}) at +${(x.from - t).toFixed(0)}${stage.length ? ` in ${stage.join(",")}` : ""}: ${inside.length ? inside.join(" | ") : "JavaScript only"}`);
  }
  await db.close();
  removeDir(dir);
}
main();
