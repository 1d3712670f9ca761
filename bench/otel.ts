// npm run bench:otel
//
// OTLP ingest (issue 25, part 2): the production server (scripts/serve.mjs) receives GenAI
// chat spans on POST /api/v1/traces as the OpenTelemetry JS SDK's protobuf exporter sends
// them (the SDK's own ProtobufTraceSerializer, BATCH spans per request, every span new, so
// every span becomes a turn), from BENCH_CONNECTIONS clients for BENCH_DURATION seconds,
// while a probe reads GET /ready at BENCH_READY_RATE requests/s.
// Targets: >= 1 000 spans/s sustained, 0 errors (connection errors, timeouts, non-2xx, and
// spans the answers report rejected), GET /ready p99 < 100 ms meanwhile.
// Authentication as an exporter sends it: a project API key (Authorization: Bearer), made by
// the owner account the server starts with (BENCH_AUTH=open: no accounts, no key check).
// Where the server's time goes: each answer's Server-Timing header (body read, gzip, decode,
// span reading, token counts, database), summed per stage; the rest of a request's latency
// is outside the handler (access check, Next.js, queueing). BENCH_CPU_PROF=<dir> writes the
// server's CPU profile there (node --cpu-prof) when it stops (the agents replay's server: in <dir>/replay).
// CPU seconds per 1 000 spans (what the code costs, whatever else runs on the machine): the
// server process with its token workers, and PostgreSQL's backends for the bench's database
// (when the cluster runs on this machine); the server's figure includes the GET /ready probe
// (~7 ms of CPU each, bench/diag/otel-fixed-cost.ts). Per statement and per stage in-process:
// bench/diag/otel-ingest.ts (CPU, event-loop delay), bench/diag/otel-explain.ts (plans).
// PostgreSQL: BENCH_DATABASE_URL, else MEMSCOPE_TEST_POSTGRES_URL (a fresh database on that
// server); neither: embedded only. The load average is printed beside the figures: on a
// shared machine they are pessimistic.
// Scenario "agents" (issue 35, bench/lib/otel-agents.ts): BENCH_AGENTS (250) agents of
// BENCH_AGENT_TURNS (20) calls each with growing history, through the real Traceloop
// instrumentation and the SDK's BatchSpanProcessor at its defaults; prints spans dropped, split
// conversations, export errors, spans/s, GET /ready p99 and bytes stored per captured span
// beside the span's new messages (target <= 2x). The live phase's spans/s is the client's pace (the
// agents, the instrumentation and the stub share the machine), so its export requests are recorded
// exactly as the SDK sent them and replayed in order to a fresh server and database, as fast as it
// answers, with the exporter's concurrency: the server's spans/s, CPU and GET /ready p99
// (bench/lib/otel-replay.ts; BENCH_REPLAY_CONCURRENCY overrides the concurrency).
// BENCH_SCENARIOS ("synthetic,agents").
// Knobs (env): BENCH_DURATION (60 s), BENCH_CONNECTIONS (4), BENCH_BATCH (100 spans a request),
// BENCH_TURNS (10: turns per conversation in a request, so 10 conversations a request),
// BENCH_READY_RATE (20), BENCH_DATABASES ("embedded,postgres"), BENCH_AUTH ("key" | "open").

import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import autocannon from "autocannon";
import { parseServerTiming } from "../lib/capture/stage-times";
import { makeTempDir, printMachine, removeDir, runMain } from "./lib/common";
import { makeTurnGenerator } from "./lib/text";
import { freshPostgres, rssMiB, startServer, type Server } from "./lib/serve-process";
import { processCpuSeconds, backendCpuSeconds, threadCpuSeconds } from "./lib/otel-cpu";
import { cpuUntilQuiet } from "./lib/proc-cpu";
import { AGENT_TURNS, AGENTS, runAgents, storedFigures, warmUp, type AgentsDb } from "./lib/otel-agents";
import { readyProbe, replayRequests, startRecordingProxy } from "./lib/otel-replay";

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

const DURATION = Number(process.env.BENCH_DURATION || 60);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 4);
const BATCH = Number(process.env.BENCH_BATCH || 100);
const TURNS = Number(process.env.BENCH_TURNS || 10);
const READY_RATE = Number(process.env.BENCH_READY_RATE || 20);
const AUTH = process.env.BENCH_AUTH === "open" ? "open" : "key";
const CPU_PROF = process.env.BENCH_CPU_PROF || "";
const OWNER = { MEMSCOPE_ADMIN_EMAIL: "bench-owner@example.com", MEMSCOPE_ADMIN_PASSWORD: "bench owner password 1" };
const TARGET_SPANS = 1000;
const TARGET_READY_P99 = 100;

const memory = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": "bench-otel" }), spanProcessors: [new SimpleSpanProcessor(memory)] });
const tracer = provider.getTracer("bench-otel");
const turnText = makeTurnGenerator(25);

/** One export request: BATCH chat spans, TURNS per conversation, each sending the conversation so far. */
function exportBody(): Buffer {
  memory.reset();
  const t0 = Date.now();
  for (let c = 0; c < BATCH / TURNS; c++) {
    const conversation = randomBytes(8).toString("hex");
    const history: { role: string; parts: { type: string; content: string }[] }[] = [];
    for (let i = 0; i < TURNS; i++) {
      const t = turnText();
      history.push({ role: "user", parts: [{ type: "text", content: t.query }] });
      tracer
        .startSpan("chat gpt-4o-mini", {
          startTime: new Date(t0 + i),
          attributes: {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.conversation.id": conversation,
            "gen_ai.input.messages": JSON.stringify(history),
            "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: t.answer }], finish_reason: "stop" }]),
            "gen_ai.usage.input_tokens": 100,
            "gen_ai.usage.output_tokens": 20,
          },
        })
        .end(new Date(t0 + i + 1));
      history.push({ role: "assistant", parts: [{ type: "text", content: t.answer }] });
    }
  }
  return Buffer.from(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans() as ReadableSpan[])!);
}

const loadAverage = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");

/** The owner signs in and makes a project API key with the write scope, as a user would for an exporter. */
async function projectKey(base: string): Promise<string> {
  const signIn = await fetch(`${base}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ email: OWNER.MEMSCOPE_ADMIN_EMAIL, password: OWNER.MEMSCOPE_ADMIN_PASSWORD }),
  });
  if (!signIn.ok) throw new Error(`owner sign-in: ${signIn.status} ${await signIn.text()}`);
  const cookie = signIn.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const made = await fetch(`${base}/api/v1/project/keys`, {
    method: "POST",
    headers: { cookie, origin: base, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench exporter", scopes: ["read", "write"] }),
  });
  if (made.status !== 201 && made.status !== 200) throw new Error(`key: ${made.status} ${await made.text()}`);
  return ((await made.json()) as { key: string }).key;
}

async function runOn(label: string, env: Record<string, string>, pgDatabase?: string) {
  console.log(`\n## ${label}`);
  const server: Server = await startServer({
    ...env,
    // The per-key request limit (default 600/60: one key, 10 requests/s) is a policy, not a capacity: off unless set.
    ...(AUTH === "key" ? { ...OWNER, MEMSCOPE_KEY_RATE_LIMIT: process.env.MEMSCOPE_KEY_RATE_LIMIT || "off" } : {}),
  }, CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${CPU_PROF}`] : []);
  try {
    const url = `${server.base}/api/v1/traces`;
    const headers: Record<string, string> = { "content-type": "application/x-protobuf", ...(AUTH === "key" ? { authorization: `Bearer ${await projectKey(server.base)}` } : {}) };
    console.log(`  auth: ${AUTH === "key" ? "a project API key (Authorization: Bearer)" : "open mode (no accounts)"}`);
    // A first export (warms the route, the token workers and the planner), checked in full.
    const first = await fetch(url, { method: "POST", headers, body: new Uint8Array(exportBody()) });
    const firstBody = new Uint8Array(await first.arrayBuffer());
    if (first.status !== 200 || firstBody.length) throw new Error(`warm-up export answered ${first.status} with ${firstBody.length} bytes (a partial success): ${server.log().slice(-2000)}`);
    const sample = exportBody();
    console.log(`  ${BATCH} spans a request (${TURNS} turns x ${BATCH / TURNS} conversations), ~${(sample.length / 1024).toFixed(0)} KiB protobuf`);

    // Bodies made ahead (every span new), so the client's own work stays out of the measured minute.
    const ahead = Array.from({ length: Math.ceil((DURATION * TARGET_SPANS * 1.5) / BATCH) }, exportBody);
    console.log(`  ${ahead.length} export bodies made ahead`);
    const nextBody = () => ahead.pop() ?? exportBody();
    let partial = 0;
    const stages: Record<string, number> = {};
    let timed = 0;
    const rssBefore = rssMiB(server.pid);
    const cpuBefore = processCpuSeconds(server.pid);
    const pgCpuBefore = pgDatabase ? await backendCpuSeconds(pgDatabase) : null;
    console.log(`  load average before: ${loadAverage()}`);
    const ingest = autocannon({
      url: server.base,
      connections: CONNECTIONS,
      duration: DURATION,
      timeout: 60,
      requests: [
        {
          method: "POST",
          path: "/api/v1/traces",
          headers,
          setupRequest: (req) => ({ ...req, body: nextBody() }),
          // A protobuf answer with a body carries partial_success: spans that did not become turns.
          onResponse: (status: number, body: string, _ctx: unknown, resHeaders: Record<string, string>) => {
            if (status === 200 && body.length) partial++;
            if (status !== 200) return;
            timed++;
            for (const [k, v] of Object.entries(parseServerTiming(resHeaders["server-timing"]))) stages[k] = (stages[k] ?? 0) + v;
          },
        },
      ],
    } as autocannon.Options);
    const ready = autocannon({
      url: `${server.base}/api/v1/ready`,
      connections: 1,
      overallRate: READY_RATE,
      duration: DURATION,
      timeout: 30,
    });
    const [r, q] = await Promise.all([ingest, ready]);
    const loadAfter = loadAverage();
    const cpuAfter = processCpuSeconds(server.pid);
    const pgCpuAfter = pgDatabase ? await backendCpuSeconds(pgDatabase) : null;
    const spansPerS = (r["2xx"] * BATCH) / DURATION;
    const errors = r.errors + r.timeouts + r.non2xx + partial;
    console.log(
      `  POST /traces: ${r.requests.average.toFixed(1)} req/s = ${spansPerS.toFixed(0)} spans/s sustained (target >= ${TARGET_SPANS}); p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms; ` +
        `errors ${r.errors}, timeouts ${r.timeouts}, non-2xx ${r.non2xx}, partial successes ${partial}`,
    );
    console.log(`  GET /ready meanwhile: ${q.requests.total} requests, p50 ${q.latency.p50} ms, p99 ${q.latency.p99} ms (target < ${TARGET_READY_P99}), errors ${q.errors + q.timeouts + q.non2xx}`);
    if (timed) {
      const per = Object.entries(stages).map(([k, v]) => `${k} ${(v / timed).toFixed(1)}`);
      const inHandler = Object.values(stages).reduce((a, b) => a + b, 0) / timed;
      console.log(`  server stages, mean ms per request (Server-Timing): ${per.join(", ")}; outside them ${Math.max(0, r.latency.mean - inHandler).toFixed(1)} (of ${r.latency.mean.toFixed(1)} mean latency)`);
    }
    // CPU per 1 000 spans stored (the server process with its token workers; PostgreSQL's
    // backends of this database apart): what the code costs, whatever else runs on the machine.
    const stored = (r["2xx"] * BATCH) / 1000;
    if (cpuBefore !== null && cpuAfter !== null && stored) {
      const pgPart = pgCpuBefore !== null && pgCpuAfter !== null ? `, PostgreSQL backends ${((pgCpuAfter - pgCpuBefore) / stored).toFixed(2)}` : "";
      console.log(`  CPU seconds per 1 000 spans: server ${((cpuAfter - cpuBefore) / stored).toFixed(2)}${pgPart} (${(cpuAfter - cpuBefore).toFixed(1)} s server CPU for ${r["2xx"] * BATCH} spans)`);
    }
    console.log(`  RSS ${rssBefore.toFixed(0)} -> ${rssMiB(server.pid).toFixed(0)} MiB; load average after: ${loadAfter} (${os.cpus().length} cores)`);
    const pass = spansPerS >= TARGET_SPANS && errors === 0 && q.errors + q.timeouts + q.non2xx === 0 && q.latency.p99 < TARGET_READY_P99;
    console.log(`  ${pass ? "PASS" : "FAIL"} (targets: >= ${TARGET_SPANS} spans/s, 0 errors, /ready p99 < ${TARGET_READY_P99} ms)`);
    if (errors) console.log(server.log().split("\n").filter((l) => /error|fail/i.test(l)).slice(-10).join("\n"));
    return pass;
  } finally {
    await server.stop();
  }
}

type Fresh = { env: Record<string, string>; db: AgentsDb; pgUrl?: string };

/**
 * The agents scenario. Live: the real client exports through a recording proxy to a fresh server and
 * database (drops, splits, export errors, bytes; its spans/s is the client's pace). Replay: the recorded
 * requests, exactly as the SDK sent them and in order, posted to another fresh server and database as fast
 * as it answers, with as many in flight as the exporter had: the server's spans/s, CPU and /ready p99.
 */
async function agentsOn(label: string, fresh: () => Promise<Fresh>, targets: { spans: number; readyP99: number }) {
  console.log(`\n## ${label}: ${AGENTS} agents x ${AGENT_TURNS} calls, real Traceloop instrumentation, BatchSpanProcessor at its defaults`);
  const live = await fresh();
  const server = await startServer({ ...live.env, ...OWNER, MEMSCOPE_KEY_RATE_LIMIT: process.env.MEMSCOPE_KEY_RATE_LIMIT || "off" });
  const proxy = await startRecordingProxy(server.base);
  let r: Awaited<ReturnType<typeof runAgents>>;
  try {
    const key = await projectKey(server.base);
    console.log(`  live phase, load average before: ${loadAverage()}`);
    r = await runAgents(server.base, proxy.url, key, live.db, () => server.stop());
  } finally {
    await proxy.stop();
    await server.stop();
  }
  const recorded = proxy.requests.filter((q) => q.path.endsWith("/v1/traces"));
  console.log(`  spans: ${r.spansMade} made, ${r.ended} ended, ${r.dropped} dropped by the batch processor, ${r.exports} exports, ${r.exportErrors} export errors (${r.failedSpans} spans)${r.errors.length ? `: ${r.errors.join("; ")}` : ""}`);
  console.log(`  stored: ${r.stored} captured spans in ${r.conversations} conversations, ${r.messageRows} captured messages; split conversations ${r.split} (agents whose calls are not one conversation of ${AGENT_TURNS} turns)`);
  console.log(`  live: ${r.spansPerSecond.toFixed(0)} spans/s stored (calls ${r.callsSeconds.toFixed(1)} s, until the last export ${r.totalSeconds.toFixed(1)} s: the client's pace, client and server on this machine)`);
  console.log(`  live: GET /ready ${r.readyCount} requests, p50 ${r.readyP50.toFixed(0)} ms, p99 ${r.readyP99.toFixed(0)} ms, max ${r.readyMax.toFixed(0)} ms, errors ${r.readyErrors}`);
  console.log(
    `  bytes stored per captured span: ${r.bytesPerSpan.toFixed(0)} (captured_spans ${r.spanRowBytesPerSpan.toFixed(0)} + captured_messages ${r.messageBytesPerSpan.toFixed(0)}, of which message JSON ${r.bodyBytesPerSpan.toFixed(0)}, tables and indexes); ` +
      `the span's new messages ${r.newBytesPerSpan.toFixed(0)} B, its whole prompt ${r.wholeBytesPerSpan.toFixed(0)} B: ${r.ratio.toFixed(2)}x the new messages (target <= 2x)`,
  );
  console.log(`  live phase, load average after: ${loadAverage()} (${os.cpus().length} cores)`);
  const liveOk = r.dropped === 0 && r.exportErrors === 0 && r.split === 0 && r.ratio <= 2;

  // Replay: the same requests, the server alone.
  const concurrency = Number(process.env.BENCH_REPLAY_CONCURRENCY || 0) || Math.max(1, proxy.maxInFlight());
  const spans = r.spansMade;
  const bytes = recorded.reduce((a, q) => a + q.body.length, 0);
  console.log(`  replay: ${recorded.length} recorded export requests (${(bytes / 1e6).toFixed(1)} MB, ${spans} spans), ${concurrency} in flight (the most the exporter had at once)`);
  const again = await fresh();
  // BENCH_CPU_PROF profiles the replay's server too (the agents scenario's server-only throughput), in <dir>/replay.
  const replayServer = await startServer(
    { ...again.env, ...OWNER, MEMSCOPE_KEY_RATE_LIMIT: process.env.MEMSCOPE_KEY_RATE_LIMIT || "off" },
    CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.join(CPU_PROF, "replay")}`] : [],
  );
  let ok = liveOk;
  try {
    const key = await projectKey(replayServer.base);
    await warmUp(replayServer.base, key);
    console.log(`  replay, load average before: ${loadAverage()}`);
    const probe = readyProbe(replayServer.base);
    const cpu0 = processCpuSeconds(replayServer.pid);
    const threads0 = threadCpuSeconds(replayServer.pid);
    const pgCpu0 = again.pgUrl ? await backendCpuSeconds(again.pgUrl) : null;
    const c0 = process.cpuUsage();
    const p = await replayRequests(replayServer.base, recorded, concurrency, { authorization: `Bearer ${key}` });
    const ready = await probe.stop();
    const cpu1 = processCpuSeconds(replayServer.pid);
    const threads1 = threadCpuSeconds(replayServer.pid);
    // Detection on ingest (issue 38) runs after each export's answer: its cost is the CPU until
    // the server goes quiet. MEMSCOPE_INCIDENTS=off in the bench's environment turns it off.
    const cpuDrained = await cpuUntilQuiet(() => processCpuSeconds(replayServer.pid));
    const pgCpu1 = again.pgUrl ? await backendCpuSeconds(again.pgUrl) : null;
    const c1 = process.cpuUsage(c0);
    const loadAfter = loadAverage();
    await replayServer.stop();
    const f = await storedFigures(again.db, r.newBytesPerSpan);
    const perS = f.stored / p.seconds;
    const k = f.stored / 1000;
    console.log(`  replay: ${f.stored} captured spans stored in ${p.seconds.toFixed(1)} s = ${perS.toFixed(0)} spans/s (target >= ${targets.spans}); export answers p50 ${pct(p.latencies, 50).toFixed(0)} ms, max ${Math.max(...p.latencies).toFixed(0)} ms; non-200 ${p.non200.length}${p.non200.length ? ` (${p.non200.slice(0, 3).join("; ")})` : ""}, partial successes ${p.partial}`);
    const k1 = spans / 1000;
    console.log(`  replay: server stages (Server-Timing), wall ms per 1 000 spans: ${Object.entries(p.stages).map(([name, ms]) => `${name} ${(ms / k1).toFixed(0)}`).join(", ")}; the answers' own wall ${(p.latencies.reduce((a, b) => a + b, 0) / k1).toFixed(0)}`);
    console.log(`  replay: ${f.conversations} conversations, split ${f.split}; bytes per captured span ${f.bytesPerSpan.toFixed(0)} = ${f.ratio.toFixed(2)}x`);
    console.log(`  replay: GET /ready ${ready.count} requests, p50 ${ready.p50.toFixed(0)} ms, p99 ${ready.p99.toFixed(0)} ms (target < ${targets.readyP99}), max ${ready.max.toFixed(0)} ms, errors ${ready.errors}`);
    if (cpu0 !== null && cpu1 !== null) {
      const pgPart = pgCpu0 !== null && pgCpu1 !== null ? `, PostgreSQL backends ${((pgCpu1 - pgCpu0) / k).toFixed(2)}` : "";
      console.log(`  replay CPU seconds per 1 000 spans: server ${((cpu1 - cpu0) / k).toFixed(2)}${pgPart}, this bench process ${((c1.user + c1.system) / 1e6 / k).toFixed(2)} (server ${(cpu1 - cpu0).toFixed(1)} CPU-s in ${p.seconds.toFixed(1)} s wall)`);
    }
    if (threads0 && threads1) {
      // Which threads of the server worked (the main thread is what one request at a time waits for).
      const by = Object.entries(threads1).map(([name, s]) => [name, (s - (threads0[name] ?? 0)) / k] as const).filter(([, s]) => s >= 0.005).sort((a, b) => b[1] - a[1]);
      const gone = cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / k - by.reduce((a, [, s]) => a + s, 0) : 0;
      console.log(`  replay server CPU-s per 1 000 spans by thread: ${by.map(([name, s]) => `${name} ${s.toFixed(2)}`).join(", ")}; threads that ended ${gone.toFixed(2)}`);
    }
    if (cpu0 !== null && cpuDrained !== null)
      console.log(`  replay server CPU until quiet after the last answer (MEMSCOPE_INCIDENTS=${process.env.MEMSCOPE_INCIDENTS ?? "on"}): ${((cpuDrained - cpu0) / k).toFixed(2)} s per 1 000 spans`);
    console.log(`  replay, load average after: ${loadAfter} (${os.cpus().length} cores)`);
    const replayOk = p.non200.length === 0 && p.partial === 0 && f.stored === spans && f.split === 0 && perS >= targets.spans && ready.p99 < targets.readyP99 && ready.errors === 0;
    console.log(`  ${liveOk ? "PASS" : "FAIL"} live (0 dropped, 0 export errors, 0 split, <= 2x bytes); ${replayOk ? "PASS" : "FAIL"} replay (>= ${targets.spans} spans/s, /ready p99 < ${targets.readyP99} ms, all stored, 0 split)`);
    ok = liveOk && replayOk;
  } finally {
    await replayServer.stop();
  }
  return ok;
}

runMain("bench:otel", async (cleanup) => {
  printMachine();
  const kinds = (process.env.BENCH_DATABASES || "embedded,postgres").split(",");
  const scenarios = (process.env.BENCH_SCENARIOS || "synthetic,agents").split(",");
  const results: boolean[] = [];
  const pgUrl = process.env.BENCH_DATABASE_URL || process.env.MEMSCOPE_TEST_POSTGRES_URL;
  if (scenarios.includes("synthetic")) {
    if (kinds.includes("embedded")) {
      const dir = makeTempDir("memscope-bench-otel-");
      cleanup(() => removeDir(dir));
      results.push(await runOn("embedded database (PGlite)", { MEMSCOPE_DATA_DIR: dir }));
    }
    if (kinds.includes("postgres") && pgUrl) {
      const db = await freshPostgres(pgUrl);
      cleanup(() => db.drop());
      results.push(await runOn("PostgreSQL", { DATABASE_URL: db.url }, db.url));
    }
  }
  if (scenarios.includes("agents")) {
    if (kinds.includes("embedded")) {
      const fresh = async (): Promise<Fresh> => {
        const dir = makeTempDir("memscope-bench-otel-agents-");
        cleanup(() => removeDir(dir));
        return { env: { MEMSCOPE_DATA_DIR: dir }, db: { kind: "pglite", dataDir: dir } };
      };
      results.push(await agentsOn("embedded database (PGlite)", fresh, { spans: 500, readyP99: 250 }));
    }
    if (kinds.includes("postgres") && pgUrl) {
      const fresh = async (): Promise<Fresh> => {
        const db = await freshPostgres(pgUrl);
        cleanup(() => db.drop());
        return { env: { DATABASE_URL: db.url }, db: { kind: "postgres", url: db.url }, pgUrl: db.url };
      };
      results.push(await agentsOn("PostgreSQL", fresh, { spans: 2000, readyP99: 100 }));
    }
  }
  if (results.some((ok) => !ok)) process.exitCode = 1;
});
