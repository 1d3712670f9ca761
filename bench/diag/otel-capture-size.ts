// Where a captured span's bytes go (issue 35, "bytes stored per captured span <= 2x its new
// messages"), by the database's own size functions: each relation of the two capture tables
// (heap, TOAST, every index, free-space and visibility maps) and the mean pg_column_size of
// each column. AGENTS agents x TURNS calls with growing history in Traceloop's shape (answer
// `{role, finish_reason, parts}`, a ~1.2 KB system prompt), stored in process in 512-span
// batches in call order, as bench:otel's agents scenario exports them; the new messages
// measured as that scenario does (the question and the answer as `{role, parts}` JSON).
// Also the CPU of the ingest (process.cpuUsage, this process: PGlite runs on it) per 1 000
// spans. PGlite, or PostgreSQL with PROF_DB=postgres and MEMSCOPE_TEST_POSTGRES_URL (a fresh
// database on it). PROF_CPU_ONLY=1 skips the size report.
//   tsx --conditions=react-server bench/diag/otel-capture-size.ts
import os from "node:os";
import { performance } from "node:perf_hooks";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { decodeTracesProto } from "../../lib/capture/otlp-proto";
import { ingestTraces, STATEMENT_SIZES } from "../../lib/capture/store-captures";
import { parseServerTiming, StageTimes } from "../../lib/capture/stage-times";
import { openDatabase } from "../../lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import { makeTempDir, removeDir } from "../lib/common";
import { freshPostgres } from "../lib/serve-process";
import { makeTurnGenerator } from "../lib/text";

const AGENTS = Number(process.env.AGENTS || 250);
const TURNS = Number(process.env.TURNS || 20);
const BATCH = 512;
const SYSTEM = "You are the travel desk's assistant. Answer in short paragraphs, cite the booking reference when there is one, never invent prices. ".repeat(10);
const kind = process.env.PROF_DB === "postgres" ? "postgres" : "pglite";
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");

async function main() {
  const dir = kind === "pglite" ? makeTempDir("memscope-diag-size-") : undefined;
  const pg = kind === "postgres" ? await freshPostgres(process.env.MEMSCOPE_TEST_POSTGRES_URL!) : null;
  const db = dir ? await openDatabase({ kind: "pglite", dataDir: dir }) : await openDatabase({ kind: "postgres", url: pg!.url });
  const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
  const gen = makeTurnGenerator(2);
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": "size-diag" }), spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t");
  const histories = Array.from({ length: AGENTS }, () => [] as { role: string; parts: unknown[] }[]);
  const t0 = Date.now() - 3_600_000;
  let newBytes = 0;
  const spans: ReadableSpan[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    memory.reset();
    for (let a = 0; a < AGENTS; a++) {
      const t = gen();
      const question = { role: "user", parts: [{ type: "text", content: t.query }] };
      histories[a].push(question);
      const answer = { role: "assistant", parts: [{ type: "text", content: t.answer }] };
      newBytes += Buffer.byteLength(JSON.stringify(question)) + Buffer.byteLength(JSON.stringify(answer));
      tracer
        .startSpan("openai.chat", {
          startTime: new Date(t0 + turn * 10_000 + a),
          attributes: {
            "gen_ai.operation.name": "chat",
            "gen_ai.system": "openai",
            "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
            "gen_ai.usage.input_tokens": 100 + turn * 60,
            "gen_ai.usage.output_tokens": 40,
            "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: SYSTEM }]),
            "gen_ai.input.messages": JSON.stringify(histories[a]),
            "gen_ai.output.messages": JSON.stringify([{ role: "assistant", finish_reason: "stop", parts: answer.parts }]),
          },
        })
        .end(new Date(t0 + turn * 10_000 + a + 500));
      histories[a].push(answer);
    }
    spans.push(...(memory.getFinishedSpans() as ReadableSpan[]));
  }
  const sizes = kind === "pglite" ? STATEMENT_SIZES.embedded : STATEMENT_SIZES.server;
  console.log(`${kind}: ${AGENTS} agents x ${TURNS} calls = ${spans.length} spans in ${BATCH}-span batches; load average ${load()}`);
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const stages: Record<string, number> = {};
  let ms: number[] = [];
  for (let k = 0; k < spans.length; k += BATCH) {
    const body = ProtobufTraceSerializer.serializeRequest(spans.slice(k, k + BATCH))!;
    const t = performance.now();
    const times = new StageTimes();
    const c = process.cpuUsage();
    const r = await ingestTraces(sql, decodeTracesProto(body), new Date(), times, sizes);
    const used = process.cpuUsage(c);
    ms.push(performance.now() - t);
    for (const [s, v] of Object.entries(parseServerTiming(times.header()))) stages[s] = (stages[s] ?? 0) + v;
    if (r.turns_created !== Math.min(BATCH, spans.length - k)) throw new Error(`batch at ${k}: ${JSON.stringify(r).slice(0, 500)}`);
    if (process.env.PROF_VERBOSE) console.log(`  batch ${k / BATCH}: ${ms.at(-1)!.toFixed(0)} ms, ${((used.user + used.system) / 1000).toFixed(0)} ms CPU (${times.header()})`);
  }
  const cpu = process.cpuUsage(cpu0);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  const wall = (performance.now() - wall0) / 1000;
  ms = ms.sort((a, b) => a - b);
  console.log(
    `ingest: ${wall.toFixed(1)} s wall (${(spans.length / wall).toFixed(0)} spans/s), ${cpuS.toFixed(1)} s CPU of this process = ${((cpuS / spans.length) * 1000).toFixed(2)} CPU-s per 1 000 spans ` +
      `(token workers apart); batch median ${ms[ms.length >> 1].toFixed(0)} ms, max ${ms[ms.length - 1].toFixed(0)} ms; load average ${load()}`,
  );
  console.log(`stages, ms summed: ${Object.entries(stages).map(([s, v]) => `${s} ${v.toFixed(0)}`).join(", ")}`);
  if (!process.env.PROF_CPU_ONLY) {
    await db.sql.query(kind === "pglite" ? "CHECKPOINT" : "VACUUM ANALYZE captured_spans, captured_messages");
    const [{ spans: n }] = await db.sql.query<{ spans: number }>(`SELECT count(*)::int AS spans FROM captured_spans`);
    const rels = await db.sql.query<{ name: string; main: string; fsm: string; vm: string }>(
      `SELECT c.relname AS name, pg_relation_size(c.oid, 'main')::text AS main, pg_relation_size(c.oid, 'fsm')::text AS fsm, pg_relation_size(c.oid, 'vm')::text AS vm
         FROM pg_class c WHERE c.oid IN (
           SELECT t.oid FROM pg_class t WHERE t.relname IN ('captured_spans', 'captured_messages')
           UNION SELECT t.reltoastrelid FROM pg_class t WHERE t.relname IN ('captured_spans', 'captured_messages') AND t.reltoastrelid <> 0
           UNION SELECT i.indexrelid FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid WHERE t.relname IN ('captured_spans', 'captured_messages'))
        ORDER BY 1`,
    );
    let total = 0;
    for (const r of rels) {
      const b = Number(r.main) + Number(r.fsm) + Number(r.vm);
      total += b;
      console.log(`  ${r.name.padEnd(48)} ${(Number(r.main) / n).toFixed(0).padStart(5)} B/span (+ fsm/vm ${((Number(r.fsm) + Number(r.vm)) / n).toFixed(0)})`);
    }
    const [tot] = await db.sql.query<{ s: string; m: string }>(`SELECT pg_total_relation_size('captured_spans')::text AS s, pg_total_relation_size('captured_messages')::text AS m`);
    for (const table of ["captured_spans", "captured_messages"]) {
      const cols = await db.sql.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`, [table]);
      const avg = await db.sql.query<Record<string, string>>(
        `SELECT count(*)::text AS rows, ${cols.map((c) => `coalesce(avg(pg_column_size("${c.column_name}")), 0)::numeric(10,1)::text AS "${c.column_name}"`).join(", ")},
                avg(pg_column_size(t.*))::numeric(10,1)::text AS "(whole row)" FROM ${table} t`,
      );
      console.log(`  ${table}: ${avg[0].rows} rows; mean bytes a row by column: ${Object.entries(avg[0]).filter(([k]) => k !== "rows").map(([k, v]) => `${k} ${v}`).join(", ")}`);
    }
    const stored = Number(tot.s) + Number(tot.m);
    console.log(
      `bytes per captured span: ${(stored / n).toFixed(0)} (captured_spans ${(Number(tot.s) / n).toFixed(0)} + captured_messages ${(Number(tot.m) / n).toFixed(0)}); ` +
        `new messages ${(newBytes / spans.length).toFixed(0)} B: ${(stored / newBytes).toFixed(2)}x (target <= 2x); total ${total} B by relation`,
    );
  }
  await db.close();
  if (dir) removeDir(dir);
  await pg?.drop();
}
main();
