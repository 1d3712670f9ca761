// npx tsx --conditions=react-server bench/diag/incidents-otlp-cost.ts
// What detection on ingest costs next to the OTLP ingest it checks, in process CPU (less
// load-bound than wall time on a shared machine; PGlite runs its statements on this thread): the
// agents of bench:otel's agents scenario (AGENTS agents, each call resending its history, no
// memories), TURNS turns each, sent two turns at a time (512-span batches for 256 agents) through
// ingestTraces, each request's detection queued as the traces route queues it and drained
// (checkIncidentsSoon, incidentsIdle). MODE=newest queues it as the route did before section 65
// (each conversation's newest turns_created turns); MODE=written (default) with the turns the
// ingest wrote (writtenTurnsOf). Prints ingest and detection CPU per batch and in all, and
// detection's split: each statement (its first words), JSON.parse, the rest (rules and glue).
// PROF_DB=postgres with MEMSCOPE_TEST_POSTGRES_URL: PostgreSQL (statements' CPU then in its server).
import os from "node:os";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { decodeTracesProto } from "../../lib/capture/otlp-proto";
import { ingestTraces, STATEMENT_SIZES, writtenTurnsOf } from "../../lib/capture/store-captures";
import { openDatabase } from "../../lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import { checkIncidentsSoon, incidentsIdle } from "../../lib/incidents/on-ingest";
import { makeTempDir, removeDir } from "../lib/common";
import { chargeSqlAndJson, cpuSeconds } from "../lib/cpu-split";
import { emitAgentTurn } from "../lib/otel-agent-turns";
import { makeTurnGenerator } from "../lib/text";

const AGENTS = Number(process.env.AGENTS || 256);
const TURNS = Number(process.env.TURNS || 12);
const MODE = process.env.MODE === "newest" ? "newest" : "written";
const SYSTEM = [{ type: "text", content: "You are the travel desk's assistant. Answer in short paragraphs, cite the booking reference when there is one, never invent prices. ".repeat(10) }];
const kind = process.env.PROF_DB === "postgres" ? "postgres" : "pglite";
const cpu = cpuSeconds;

async function main() {
  const dir = kind === "pglite" ? makeTempDir("memscope-diag-inc-otlp-") : undefined;
  const db = dir ? await openDatabase({ kind: "pglite", dataDir: dir }) : await openDatabase({ kind: "postgres", url: process.env.MEMSCOPE_TEST_POSTGRES_URL! });
  const split = new Map<string, { n: number; s: number }>();
  let inDetect = false;
  const add = (k: string, s: number) => {
    if (!inDetect) return;
    const e = split.get(k) ?? { n: 0, s: 0 };
    e.n++;
    e.s += s;
    split.set(k, e);
  };
  chargeSqlAndJson(db.sql, add, 70);
  const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
  const gen = makeTurnGenerator(1);
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": `diag-${Date.now()}` }), spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t");
  const histories = Array.from({ length: AGENTS }, () => [] as unknown[]);
  const t0 = Date.now() - 3_600_000;
  const sizes = kind === "pglite" ? STATEMENT_SIZES.embedded : STATEMENT_SIZES.server;
  let ingest = 0;
  let detect = 0;
  let spans = 0;
  for (let turn = 0; turn < TURNS; turn += 2) {
    memory.reset();
    emitAgentTurn(tracer, gen, histories, SYSTEM, turn, t0);
    emitAgentTurn(tracer, gen, histories, SYSTEM, turn + 1, t0);
    const body = ProtobufTraceSerializer.serializeRequest([...memory.getFinishedSpans()] as ReadableSpan[])!;
    const traces = decodeTracesProto(body);
    const c0 = cpu();
    const result = await ingestTraces(sql, traces, new Date(), undefined, sizes);
    const c1 = cpu();
    inDetect = true;
    if (result.turns_created) {
      if (MODE === "newest") checkIncidentsSoon(sql, { conversationIds: result.conversation_ids, newest: result.turns_created });
      else checkIncidentsSoon(sql, { conversationIds: result.conversation_ids, captured: writtenTurnsOf(result) });
    }
    await incidentsIdle();
    inDetect = false;
    const c2 = cpu();
    ingest += c1 - c0;
    detect += c2 - c1;
    spans += result.turns_created;
    console.log(`turns ${turn}-${turn + 1}: ${result.turns_created} spans in ${result.conversation_ids.length} conversations; ingest ${(c1 - c0).toFixed(2)} s CPU, detect ${(c2 - c1).toFixed(3)} s CPU`);
  }
  const [n] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM incidents WHERE project_id = $1`, [sql.projectId]);
  console.log(
    `${kind}, MODE=${MODE}: ${spans} spans; ingest ${ingest.toFixed(2)} s, detect ${detect.toFixed(3)} s CPU (${((1000 * detect) / spans).toFixed(3)} s per 1 000 spans): detection adds ${((100 * detect) / ingest).toFixed(1)} %; ${n.n} incidents; load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`,
  );
  console.log(`detect's split (CPU; the rest is the rules and glue):`);
  for (const [k, v] of [...split].sort((a, b) => b[1].s - a[1].s)) console.log(`  ${(v.s * 1000).toFixed(0).padStart(6)} ms ${String(v.n).padStart(4)}x  ${k}`);
  console.log(`  ${((detect - [...split.values()].reduce((a, b) => a + b.s, 0)) * 1000).toFixed(0).padStart(6)} ms        the rest`);
  await db.close();
  if (dir) removeDir(dir);
}
main();
