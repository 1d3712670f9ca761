// Where a 512-span OTLP request's main-thread time goes on the embedded database (issue 35's
// throughput, docs/benchmarks.md section 71): 256 agents x PROF_TURNS calls (each resending its
// history, as bench/diag/otel-span-cost.ts builds them), ingested in 512-span batches as the server
// does (span histories on, the embedded statement sizes), every batch timed: the ingest's stages,
// each SQL statement (wall time inside PGlite's query: PGlite runs it on this thread; with the
// rows it returned), garbage collection (PerformanceObserver "gc"), and the rows each table
// gained, with the indexes each captured table has. The main thread's own CPU is read from
// /proc/self/task/<pid>/stat (the token workers apart). PROF_DB=postgres with
// MEMSCOPE_TEST_POSTGRES_URL times the same statements as round trips instead; PROF_TIMELINE=1
// prints the last request statement by statement.
//   tsx --conditions=react-server bench/diag/otel-request-split.ts
import fs from "node:fs";
import os from "node:os";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { decodeTracesProto } from "../../lib/capture/otlp-proto";
import { StageTimes, parseServerTiming } from "../../lib/capture/stage-times";
import { ingestTraces, STATEMENT_SIZES } from "../../lib/capture/store-captures";
import { countTextsAllEncodings } from "../../lib/tokens/count-tokens-parallel";
import { openDatabase } from "../../lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import { makeTempDir, removeDir } from "../lib/common";
import { agentBatches } from "../lib/otel-agent-turns";

const AGENTS = 256;
const TURNS = Math.max(4, 2 * Math.floor(Number(process.env.PROF_TURNS || 20) / 2));
const SYSTEM = [{ type: "text", content: "You are the travel desk's assistant. Answer in short paragraphs, cite the booking reference when there is one, never invent prices. ".repeat(10) }];
const kind = process.env.PROF_DB === "postgres" ? "postgres" : "pglite";
const TABLES = ["messages", "conversations", "captured_spans", "captured_messages", "incidents"];

const tick = 1000 / 100; // ms per clock tick (USER_HZ 100 on Linux)
/** The main thread's CPU ms (this process's first task). */
function mainThreadMs(): number {
  const f = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
  const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return (Number(rest[11]) + Number(rest[12])) * tick;
}

async function main() {
  const dir = kind === "pglite" ? makeTempDir("memscope-diag-split-") : undefined;
  const db = dir ? await openDatabase({ kind: "pglite", dataDir: dir }) : await openDatabase({ kind: "postgres", url: process.env.MEMSCOPE_TEST_POSTGRES_URL! });
  const stmt = new Map<string, { n: number; ms: number; cpu: number; rows: number; params: number }>();
  let tracing = false;
  let timeline: { k: string; s: number; e: number }[] | null = null;
  // PROF_EXPLAIN=1: the last request's writes (INSERT and UPDATE statements, none of which this ingest reads rows back from)
  // run as EXPLAIN ANALYZE: their triggers' (foreign keys') times and each statement's execution time.
  // PROF_EXPLAIN_READS=1 as well: its reads too, and every plan whole (docs/benchmarks.md section 78 found the reads' scans so).
  let explain = false;
  const explained: string[] = [];
  const wrap = (r: typeof db.sql): typeof db.sql =>
    ({
      ...r,
      query: async (text: string, params?: unknown[]) => {
        const t = performance.now();
        const c = process.cpuUsage();
        const tl = timeline;
        let rows: unknown[] = [];
        try {
          if (explain && /^\s*(SELECT|WITH)/.test(text) && process.env.PROF_EXPLAIN_READS === "1") {
            const plan = (await r.query<Record<string, string>>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params)).map((x) => Object.values(x)[0]);
            explained.push(`${text.replace(/\s+/g, " ").trim().slice(0, 60)}:\n    ${plan.join("\n    ")}`);
          }
          if (explain && /^\s*(INSERT|UPDATE)/.test(text) && !/RETURNING/.test(text)) {
            const plan = (await r.query<Record<string, string>>(`EXPLAIN (ANALYZE) ${text}`, params)).map((x) => Object.values(x)[0]);
            explained.push(
              process.env.PROF_EXPLAIN_READS === "1"
                ? `${text.replace(/\s+/g, " ").trim().slice(0, 60)}:\n    ${plan.join("\n    ")}`
                : `${text.replace(/\s+/g, " ").trim().slice(0, 60)}: ${plan.filter((l) => /Trigger|Execution Time|Insert on|Update on/.test(l)).map((l) => l.trim()).join(" | ")}`,
            );
            return [] as never;
          }
          return (rows = (await r.query(text, params)) as unknown[]);
        } finally {
          if (tl) tl.push({ k: text.replace(/\s+/g, " ").trim().slice(0, 50), s: t, e: performance.now() });
          if (tracing) {
            const k = text.replace(/\s+/g, " ").trim().slice(0, 80);
            const e = stmt.get(k) ?? { n: 0, ms: 0, cpu: 0, rows: 0, params: 0 };
            e.n++;
            e.ms += performance.now() - t;
            const cu = process.cpuUsage(c);
            e.cpu += (cu.user + cu.system) / 1000;
            e.rows += rows.length;
            e.params += (params ?? []).reduce<number>((a, p) => a + (typeof p === "string" ? p.length : Array.isArray(p) ? p.length : 0), 0);
            stmt.set(k, e);
          }
        }
      },
      transaction: <T>(fn: (tx: typeof db.sql) => Promise<T>) => r.transaction((tx) => fn(wrap(tx))),
    }) as typeof db.sql;
  const sql = projectSql(wrap(db.sql), DEFAULT_PROJECT_ID);
  const indexes = await db.sql.query<{ tablename: string; n: number; names: string }>(
    `SELECT tablename, count(*)::int AS n, string_agg(indexname, ', ' ORDER BY indexname) AS names FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ANY($1::text[]) GROUP BY tablename ORDER BY tablename`,
    [TABLES],
  );
  const bodies = agentBatches(AGENTS, TURNS, SYSTEM, "split");
  // The token workers started and their encoders built first, as in a server that has answered before.
  await countTextsAllEncodings(Array.from({ length: 200 }, (_, i) => `warm-up text ${i} `.repeat(20)), { offThread: true });
  const counts = async () => {
    const out: Record<string, number> = {};
    for (const t of TABLES) out[t] = (await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t}`))[0].n;
    return out;
  };
  let gcMs = 0;
  const gcKinds: Record<string, number> = {};
  new PerformanceObserver((list) => {
    if (!tracing) return;
    for (const e of list.getEntries()) {
      gcMs += e.duration;
      const k = String((e as unknown as { detail?: { kind?: number } }).detail?.kind ?? "?");
      gcKinds[k] = (gcKinds[k] ?? 0) + e.duration;
    }
  }).observe({ entryTypes: ["gc"] });
  const sizes = kind === "pglite" ? STATEMENT_SIZES.embedded : STATEMENT_SIZES.server;
  const stages: Record<string, number> = {};
  // Each stage's CPU: the process's (only the tokens stage has other threads working: the token workers) and the main thread's.
  const stageCpu: Record<string, { proc: number; main: number }> = {};
  class CpuTimes extends StageTimes {
    override async time<T>(stage: Parameters<StageTimes["time"]>[0], fn: () => Promise<T> | T): Promise<T> {
      const c = process.cpuUsage();
      const m = mainThreadMs();
      try {
        return await super.time(stage, fn);
      } finally {
        const cu = process.cpuUsage(c);
        const e = (stageCpu[stage] ??= { proc: 0, main: 0 });
        e.proc += (cu.user + cu.system) / 1000;
        e.main += mainThreadMs() - m;
      }
    }
  }
  // The run's sums (ms; spans stored).
  const sum = { wall: 0, mainCpu: 0, procCpu: 0, decodeMs: 0, spans: 0, vacuumCpu: 0 };
  const before = await counts();
  console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}; ${kind}; ${bodies.length} requests of ${AGENTS * 2} spans, ${(bodies.reduce((a, b) => a + b.length, 0) / 1e6).toFixed(1)} MB`);
  for (const [b, body] of bodies.entries()) {
    explain = process.env.PROF_EXPLAIN === "1" && b === bodies.length - 1;
    // PROF_VACUUM=1: the conversations table vacuumed before the last request (are its dead row versions what the foreign keys' checks walk?).
    if (explain && process.env.PROF_VACUUM === "1") await db.sql.query(`VACUUM conversations`);
    const times = new CpuTimes();
    tracing = true;
    const w = performance.now();
    const m = mainThreadMs();
    const c = process.cpuUsage();
    const traces = decodeTracesProto(body);
    sum.decodeMs += performance.now() - w;
    // PROF_TIMELINE=1: the last request's statements in order: the connection's idle time before each (this thread was busy), its round trip, when it was sent.
    if (process.env.PROF_TIMELINE === "1" && b === bodies.length - 1) timeline = [];
    const t0 = performance.now();
    const r = await ingestTraces(sql, traces, new Date(), times, sizes);
    if (timeline) {
      let prev = t0;
      for (const x of timeline) {
        console.log(`idle ${(x.s - prev).toFixed(1).padStart(6)}  run ${(x.e - x.s).toFixed(1).padStart(6)}  at ${(x.s - t0).toFixed(0).padStart(4)}  ${x.k}`);
        prev = x.e;
      }
      console.log(`after the last statement ${(performance.now() - prev).toFixed(1)} total ${(performance.now() - t0).toFixed(1)}`);
      timeline = null;
    }
    sum.wall += performance.now() - w;
    sum.mainCpu += mainThreadMs() - m;
    const cu = process.cpuUsage(c);
    sum.procCpu += (cu.user + cu.system) / 1000;
    tracing = false;
    sum.spans += r.turns_created;
    for (const [k, v] of Object.entries(parseServerTiming(times.header()))) stages[k] = (stages[k] ?? 0) + v;
    // PROF_VACUUM=each: conversations vacuumed after every request, its cost counted apart.
    if (process.env.PROF_VACUUM === "each") {
      const c1 = process.cpuUsage();
      await db.sql.exec(`VACUUM conversations`);
      const cv = process.cpuUsage(c1);
      sum.vacuumCpu += (cv.user + cv.system) / 1000;
    }
  }
  const after = await counts();
  const per = (ms: number) => ((ms / sum.spans) * 1000).toFixed(0).padStart(6);
  const sqlMs = [...stmt.values()].reduce((a, v) => a + v.ms, 0);
  console.log(`${sum.spans} spans stored; per 1 000 spans (ms): wall ${(sum.wall / sum.spans * 1000).toFixed(0)}, main-thread CPU ${(sum.mainCpu / sum.spans * 1000).toFixed(0)}, process CPU ${(sum.procCpu / sum.spans * 1000).toFixed(0)}`);
  if (sum.vacuumCpu) console.log(`  VACUUM conversations after each request (not in the figures above) ${per(sum.vacuumCpu)}`);
  console.log(`  decode (on the thread here; the server decodes big bodies in a worker) ${per(sum.decodeMs)}`);
  for (const [k, v] of Object.entries(stages)) console.log(`  stage ${k.padEnd(10)} wall ${per(v)}, process CPU ${per(stageCpu[k]?.proc ?? 0)}, main thread ${per(stageCpu[k]?.main ?? 0)}`);
  const sqlCpu = [...stmt.values()].reduce((a, v) => a + v.cpu, 0);
  console.log(`  inside db: statements wall ${per(sqlMs)} CPU ${per(sqlCpu)}; JavaScript between them wall ${per((stages.db ?? 0) - sqlMs)} CPU ${per((stageCpu.db?.proc ?? 0) - sqlCpu)}; GC pauses during the run ${per(gcMs)} (${Object.entries(gcKinds).map(([k, v]) => `kind ${k}: ${per(v).trim()}`).join(", ")})`);
  console.log("statements, by CPU (CPU and wall ms per 1 000 spans, calls, rows returned, parameter chars/items per call):");
  for (const [k, v] of [...stmt].sort((a, b) => b[1].cpu - a[1].cpu)) console.log(`${per(v.cpu)} ${per(v.ms)} ${String(v.n).padStart(4)}x rows ${String(v.rows).padStart(6)} params ${String(Math.round(v.params / v.n)).padStart(7)}  ${k}`);
  for (const e of explained) console.log(`explain: ${e}`);
  console.log("rows gained per table (per span):");
  for (const t of TABLES) console.log(`  ${t.padEnd(22)} ${after[t] - before[t]} (${((after[t] - before[t]) / sum.spans).toFixed(2)})`);
  console.log("indexes:");
  for (const i of indexes) console.log(`  ${i.tablename.padEnd(22)} ${i.n}: ${i.names}`);
  console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
  await db.close();
  if (dir) removeDir(dir);
  process.exit(0);
}
main();
