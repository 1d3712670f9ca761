// Where POST /traces spends its time, in-process (no HTTP): decode, classify, token counts and
// each SQL statement of ingestTraces, on PGlite (or BENCH_DATABASE_URL). Diagnostic for bench:otel.
//   tsx --conditions=react-server bench/diag/otel-ingest.ts
import { monitorEventLoopDelay } from "node:perf_hooks";
import { decodeTracesProto } from "../../lib/capture/otlp-proto";
import { classifySpans, ingestTraces, STATEMENT_SIZES } from "../../lib/capture/store-captures";
import { openDatabase } from "../../lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql, type ProjectSql } from "../../lib/db/project-sql";
import { countTextsAllEncodings } from "../../lib/tokens/count-tokens-parallel";
import { makeTempDir, removeDir } from "../lib/common";
import { otelRequestBody } from "../lib/otel-request";
import { backendCpuSeconds } from "../lib/otel-cpu";

const REQUESTS = Number(process.env.BENCH_REQUESTS || 20);
// BENCH_SIZES: the statement sizes (store-captures STATEMENT_SIZES): "embedded", "server", or
// "one" (one messages insert and ~128 KB captured-prompt statements, as before they were by database).
const SIZES_NAME = process.env.BENCH_SIZES || (process.env.BENCH_DATABASE_URL ? "server" : "embedded");
const body = otelRequestBody;

const dir = makeTempDir("memscope-diag-otel-");
const url = process.env.BENCH_DATABASE_URL;
const db = await openDatabase(url ? { kind: "postgres", url } : { kind: "pglite", dataDir: dir });
const base = projectSql(db.sql, DEFAULT_PROJECT_ID);
const bySql = new Map<string, number>();
const cpuBySql = new Map<string, number>();
/** CPU milliseconds of this process so far (all threads: the token workers and, on PGlite, the database). */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const timed = (s: ProjectSql): ProjectSql => ({
  ...s,
  query: async (text, params) => {
    const t = performance.now();
    const c = cpuMs();
    try {
      return await s.query(text, params);
    } finally {
      const k = text.trim().split("\n")[0].slice(0, 60);
      bySql.set(k, (bySql.get(k) ?? 0) + performance.now() - t);
      cpuBySql.set(k, (cpuBySql.get(k) ?? 0) + cpuMs() - c);
    }
  },
  transaction: (fn) => s.transaction((tx) => fn(timed(tx))),
});
const sql = timed(base);
const sizes = SIZES_NAME === "one" ? { turns: Number.POSITIVE_INFINITY, captureBytes: 128 * 1024 } : STATEMENT_SIZES[SIZES_NAME as "embedded" | "server"];
// How long the thread went without turning its event loop (what a GET /ready waits behind).
const loopDelay = monitorEventLoopDelay({ resolution: 2 });
const bodies = Array.from({ length: REQUESTS + 2 }, body);
const phase = { decode: 0, classify: 0, tokens: 0, ingest: 0 };
let cpuIngest = 0;
let pgCpu0: number | null = null;
let cpuTokens = 0;
for (const [i, b] of bodies.entries()) {
  if (i === 2) {
    bySql.clear();
    cpuBySql.clear();
    loopDelay.enable();
    if (url) pgCpu0 = await backendCpuSeconds(url);
  }
  let t = performance.now();
  const traces = decodeTracesProto(b);
  const d = performance.now() - t;
  t = performance.now();
  const c = classifySpans(traces, new Date());
  const cl = performance.now() - t;
  t = performance.now();
  let c0 = cpuMs();
  await countTextsAllEncodings(c.chats.flatMap((x) => [x.query, x.answer]));
  const tk = performance.now() - t;
  if (i >= 2) cpuTokens += cpuMs() - c0;
  t = performance.now();
  c0 = cpuMs();
  await ingestTraces(sql, traces, new Date(), undefined, sizes);
  const ing = performance.now() - t;
  if (i >= 2) cpuIngest += cpuMs() - c0;
  if (i >= 2) Object.assign(phase, { decode: phase.decode + d, classify: phase.classify + cl, tokens: phase.tokens + tk, ingest: phase.ingest + ing });
}
const per = (x: number) => (x / REQUESTS).toFixed(1);
loopDelay.disable();
const pgCpu1 = url ? await backendCpuSeconds(url) : null;
console.log(`per request of 100 spans (${REQUESTS} requests after 2 warm-ups, ${url ? "PostgreSQL" : "PGlite"}, statement sizes "${SIZES_NAME}"):`);
console.log(`  event loop delay: p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms, max ${(loopDelay.max / 1e6).toFixed(1)} ms (the longest stretch another request waits)`);
console.log(`  decode ${per(phase.decode)} ms, classify ${per(phase.classify)} ms, token counts alone ${per(phase.tokens)} ms, ingestTraces in all ${per(phase.ingest)} ms`);
console.log(`  CPU (this process, all threads): token counts alone ${per(cpuTokens)} ms, ingestTraces in all ${per(cpuIngest)} ms${url ? " (PostgreSQL's own CPU not included)" : ""}`);
if (pgCpu0 !== null && pgCpu1 !== null) console.log(`  PostgreSQL backend CPU: ${per((pgCpu1 - pgCpu0) * 1000)} ms`);
console.log(`  per statement: wall ms, CPU ms of this process`);
for (const [k, v] of [...bySql.entries()].sort((a, b) => b[1] - a[1])) console.log(`  ${per(v).padStart(8)} ${per(cpuBySql.get(k)!).padStart(8)}  ${k}`);
await db.close?.();
removeDir(dir);
process.exit(0);
