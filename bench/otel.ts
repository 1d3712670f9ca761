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
// server's CPU profile there (node --cpu-prof) when it stops.
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
// beside the span's new messages (target <= 2x). BENCH_SCENARIOS ("synthetic,agents").
// Knobs (env): BENCH_DURATION (60 s), BENCH_CONNECTIONS (4), BENCH_BATCH (100 spans a request),
// BENCH_TURNS (10: turns per conversation in a request, so 10 conversations a request),
// BENCH_READY_RATE (20), BENCH_DATABASES ("embedded,postgres"), BENCH_AUTH ("key" | "open").

import { randomBytes } from "node:crypto";
import os from "node:os";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import autocannon from "autocannon";
import { parseServerTiming } from "../lib/capture/stage-times";
import { makeTempDir, printMachine, removeDir, runMain } from "./lib/common";
import { makeTurnGenerator } from "./lib/text";
import { freshPostgres, rssMiB, startServer, type Server } from "./lib/serve-process";
import { processCpuSeconds, backendCpuSeconds } from "./lib/otel-cpu";
import { AGENT_TURNS, AGENTS, runAgents } from "./lib/otel-agents";

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

/** The agents scenario on a fresh server and database; the figures from the database once the server stopped. */
async function agentsOn(label: string, env: Record<string, string>, db: Parameters<typeof runAgents>[2]) {
  console.log(`\n## ${label}: ${AGENTS} agents x ${AGENT_TURNS} calls, real Traceloop instrumentation, BatchSpanProcessor at its defaults`);
  const server = await startServer({ ...env, ...OWNER, MEMSCOPE_KEY_RATE_LIMIT: process.env.MEMSCOPE_KEY_RATE_LIMIT || "off" });
  try {
    const key = await projectKey(server.base);
    console.log(`  load average before: ${loadAverage()}`);
    const r = await runAgents(server.base, key, db, () => server.stop());
    console.log(`  spans: ${r.spansMade} made, ${r.ended} ended, ${r.dropped} dropped by the batch processor, ${r.exports} exports, ${r.exportErrors} export errors (${r.failedSpans} spans)${r.errors.length ? `: ${r.errors.join("; ")}` : ""}`);
    console.log(`  stored: ${r.stored} captured spans in ${r.conversations} conversations, ${r.messageRows} captured messages; split conversations ${r.split} (agents whose calls are not one conversation of ${AGENT_TURNS} turns)`);
    console.log(`  ${r.spansPerSecond.toFixed(0)} spans/s stored (calls ${r.callsSeconds.toFixed(1)} s, until the last export ${r.totalSeconds.toFixed(1)} s, client and server on this machine)`);
    console.log(`  GET /ready meanwhile: ${r.readyCount} requests, p50 ${r.readyP50.toFixed(0)} ms, p99 ${r.readyP99.toFixed(0)} ms, max ${r.readyMax.toFixed(0)} ms, errors ${r.readyErrors}`);
    console.log(
      `  bytes stored per captured span: ${r.bytesPerSpan.toFixed(0)} (captured_spans ${r.spanRowBytesPerSpan.toFixed(0)} + captured_messages ${r.messageBytesPerSpan.toFixed(0)}, of which message JSON ${r.bodyBytesPerSpan.toFixed(0)}, tables and indexes); ` +
        `the span's new messages ${r.newBytesPerSpan.toFixed(0)} B, its whole prompt ${r.wholeBytesPerSpan.toFixed(0)} B: ${r.ratio.toFixed(2)}x the new messages (target <= 2x)`,
    );
    console.log(`  load average after: ${loadAverage()} (${os.cpus().length} cores)`);
    return r.dropped === 0 && r.exportErrors === 0 && r.split === 0 && r.ratio <= 2;
  } finally {
    await server.stop();
  }
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
      const dir = makeTempDir("memscope-bench-otel-agents-");
      cleanup(() => removeDir(dir));
      results.push(await agentsOn("embedded database (PGlite)", { MEMSCOPE_DATA_DIR: dir }, { kind: "pglite", dataDir: dir }));
    }
    if (kinds.includes("postgres") && pgUrl) {
      const db = await freshPostgres(pgUrl);
      cleanup(() => db.drop());
      results.push(await agentsOn("PostgreSQL", { DATABASE_URL: db.url }, { kind: "postgres", url: db.url }));
    }
  }
  if (results.some((ok) => !ok)) process.exitCode = 1;
});
