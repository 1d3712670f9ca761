// npm run bench:load
//
// Load held (issue 9, part 4): the production server (scripts/serve.mjs) under autocannon,
// 32 concurrent clients for 60 s per endpoint, on the embedded database and on PostgreSQL:
//   GET /ready (reference), GET /conversations/{id} (the baseline), GET /history of a
//   640-turn thread, memory search, POST /context, then a mixed run that adds writes
//   (10-turn batch imports, memory edits with their version, memory saves, counted searches
//   that bump access counters) to those reads.
// Prints per run: requests/s, p50/p99, errors (connection errors and timeouts), non-2xx,
// and the server's RSS before and after; and its RSS at rest (issue 21, part 8): after a fresh
// seeded start (as `npm start` on an empty database) and again after the load, each after
// BENCH_IDLE_S seconds without requests.
// Targets: 0 errors and 0 non-2xx; history throughput >= 0.4x the baseline GET in the same
// run; RSS after the mixed run within 15% of its value after warm-up; RSS at rest after the
// seeded start at most 400 MiB embedded, 250 MiB on PostgreSQL.
// PostgreSQL: BENCH_DATABASE_URL, else MEMSCOPE_TEST_POSTGRES_URL (a fresh database is
// created on that server; `source .ci/postgres.sh` starts one); neither: embedded only.
// Knobs (env): BENCH_DURATION (60 s), BENCH_CONNECTIONS (32), BENCH_TURNS (640), BENCH_MEMORIES (400),
// BENCH_DATABASES ("embedded,postgres"), BENCH_IDLE_S (30), BENCH_LIFTOFF=0 (V8's default WebAssembly tiers).

import autocannon from "autocannon";
import { makeTempDir, now, postJson, printMachine, removeDir, runMain } from "./lib/common";
import { makeMemoryGenerator } from "./lib/memory-text";
import { makeTurnGenerator } from "./lib/text";
import { withPgClient } from "./lib/pg-client";
import { freshPostgres, rssMiB, startServer, type Server } from "./lib/serve-process";

const DURATION = Number(process.env.BENCH_DURATION || 60);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 32);
const TURNS = Number(process.env.BENCH_TURNS || 640);
const MEMORIES = Number(process.env.BENCH_MEMORIES || 400);
const WARMUP = Math.max(5, Math.round(DURATION / 6));
const IDLE_S = Number(process.env.BENCH_IDLE_S || 30);
/** Issue 21, part 8: RSS at rest, in MiB, per database. */
const REST_TARGET = { embedded: 400, postgres: 250 };
const USER = "bench-load-user";
const JSON_HEADERS = { "content-type": "application/json" };

async function check<T>(what: string, r: Promise<{ status: number; json: T }>, status = 201): Promise<T> {
  const res = await r;
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.json).slice(0, 300)}`);
  return res.json;
}

/** A 640-turn thread, a conversation for the imports of the mixed run, and MEMORIES memories. */
async function loadData(base: string) {
  const api = `${base}/api/v1`;
  const conv = await check<{ id: string }>("create conversation", postJson(`${api}/conversations`, { app_id: "bench-load", end_user_id: USER, name: "640 turns" }));
  const gen = makeTurnGenerator(640);
  for (let done = 0; done < TURNS; done += 320) {
    const messages = Array.from({ length: Math.min(320, TURNS - done) }, () => gen());
    await check("batch import", postJson(`${api}/conversations/${conv.id}/messages/batch`, { messages, return: "minimal" }));
  }
  const sink = await check<{ id: string }>("create conversation", postJson(`${api}/conversations`, { app_id: "bench-load", end_user_id: USER, name: "imports" }));
  const mem = makeMemoryGenerator(640);
  const memoryIds: string[] = [];
  for (let i = 0; i < MEMORIES; i += 8) {
    const made = await Promise.all(
      Array.from({ length: Math.min(8, MEMORIES - i) }, () => {
        const m = mem();
        return check<{ id: string }>("create memory", postJson(`${api}/users/${USER}/memories`, { memory_type: m.memory_type, content: m.content, importance_score: m.importance }));
      }),
    );
    memoryIds.push(...made.map((r) => r.id));
  }
  return { conversationId: conv.id, sinkId: sink.id, memoryIds, turnGen: makeTurnGenerator(7), memoryGen: makeMemoryGenerator(7) };
}

type Row = { name: string; rps: number; p50: number; p99: number; errors: number; non2xx: number; rssBefore: number; rssAfter: number };

async function cannon(name: string, server: Server, opts: Partial<autocannon.Options>, duration = DURATION): Promise<Row> {
  const rssBefore = rssMiB(server.pid);
  const r = await autocannon({ url: server.base, connections: CONNECTIONS, duration, timeout: 30, ...opts } as autocannon.Options);
  const row = {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    rssBefore,
    rssAfter: rssMiB(server.pid),
  };
  console.log(
    `  ${name.padEnd(34)} ${row.rps.toFixed(0).padStart(6)} req/s  p50 ${String(row.p50).padStart(5)} ms  p99 ${String(row.p99).padStart(5)} ms  errors ${row.errors}  non-2xx ${row.non2xx}  RSS ${row.rssBefore.toFixed(0)} -> ${row.rssAfter.toFixed(0)} MiB`,
  );
  return row;
}

/** RSS of a server left alone for IDLE_S seconds (its token workers end after 10 s without work). */
async function restingRss(server: Server): Promise<number> {
  await new Promise((r) => setTimeout(r, IDLE_S * 1000));
  return rssMiB(server.pid);
}

async function runOn(label: string, env: Record<string, string>, restTarget: number) {
  console.log(`\n## ${label}`);
  // Started as \`npm start\` starts on an empty database: migrations and the demo seed.
  const server = await startServer({ MEMSCOPE_SEED: "1", ...env });
  try {
    const restStart = await restingRss(server);
    console.log(`  RSS at rest after a fresh seeded start (${IDLE_S} s idle): ${restStart.toFixed(0)} MiB (target <= ${restTarget})`);
    const t0 = now();
    const data = await loadData(server.base);
    console.log(`  loaded ${TURNS} turns and ${MEMORIES} memories in ${((now() - t0) / 1000).toFixed(1)} s`);
    const api = "/api/v1";
    const searchBody = JSON.stringify({ query: "what does the user prefer for travel and food", k: 10, dry_run: true });
    const contextBody = JSON.stringify({
      user_id: USER,
      conversation_id: data.conversationId,
      query: "Plan my next trip",
      model: "gpt-4o",
      strategy: { type: "token_buffer", max_token_limit: 2000 },
      memory: { k: 10, dry_run: true },
    });
    const history = `${api}/conversations/${data.conversationId}/history?max_token_limit=100000&message_limit=500`;
    const reads: autocannon.Request[] = [
      { method: "GET", path: `${api}/conversations/${data.conversationId}` },
      { method: "GET", path: history },
      { method: "POST", path: `${api}/users/${USER}/memories/search`, headers: JSON_HEADERS, body: searchBody },
      { method: "POST", path: `${api}/context`, headers: JSON_HEADERS, body: contextBody },
    ];
    // Writes: a 10-turn import; an edit of this connection's own memory with the version
    // its GET just read (so no edit conflicts with another client's); a memory saved; and a
    // counted search (not a dry run: it bumps its hits' access counters), over a few queries
    // whose hits overlap in different orders: concurrent ones deadlocked on PostgreSQL before
    // the counters were locked in id order (issue 43).
    const countedQueries = ["what does the user prefer for travel and food", "food the user prefers", "travel plans and preferences", "what the user likes to eat when travelling"];
    let nextQuery = 0;
    let nextMemory = 0;
    type Ctx = { memoryId?: string; version?: number };
    const writes: autocannon.Request[] = [
      {
        method: "POST",
        path: `${api}/conversations/${data.sinkId}/messages/batch`,
        headers: JSON_HEADERS,
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ messages: Array.from({ length: 10 }, () => data.turnGen()), return: "minimal" }) }),
      },
      {
        method: "GET",
        setupRequest: (req, c) => {
          const ctx = c as Ctx;
          ctx.memoryId ??= data.memoryIds[nextMemory++ % data.memoryIds.length];
          return { ...req, path: `${api}/memories/${ctx.memoryId}` };
        },
        onResponse: (status, body, c) => {
          if (status === 200) (c as Ctx).version = JSON.parse(body).version;
        },
      },
      {
        method: "PATCH",
        headers: JSON_HEADERS,
        setupRequest: (req, c) => ({
          ...req,
          path: `${api}/memories/${(c as Ctx).memoryId}`,
          body: JSON.stringify({ version: (c as Ctx).version, importance_score: Math.round(Math.random() * 100) / 100, reason: "bench:load" }),
        }),
      },
      {
        method: "POST",
        path: `${api}/users/${USER}/memories`,
        headers: JSON_HEADERS,
        setupRequest: (req) => {
          const m = data.memoryGen();
          return { ...req, body: JSON.stringify({ memory_type: m.memory_type, content: m.content, importance_score: m.importance }) };
        },
      },
      {
        method: "POST",
        path: `${api}/users/${USER}/memories/search`,
        headers: JSON_HEADERS,
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ query: countedQueries[nextQuery++ % countedQueries.length], k: 10 }) }),
      },
    ];

    await cannon("warm-up (mixed)", server, { requests: [...reads, ...writes] }, WARMUP);
    const rows: Row[] = [];
    rows.push(await cannon("GET /ready", server, { requests: [{ method: "GET", path: `${api}/ready` }] }));
    rows.push(await cannon("GET /conversations/{id} (baseline)", server, { requests: [reads[0]] }));
    rows.push(await cannon(`GET /history (${TURNS}-turn thread)`, server, { requests: [reads[1]] }));
    rows.push(await cannon("POST /memories/search", server, { requests: [reads[2]] }));
    rows.push(await cannon("POST /context", server, { requests: [reads[3]] }));
    const warmRss = rssMiB(server.pid);
    rows.push(await cannon("mixed (reads + imports + edits)", server, { requests: [...reads, ...writes] }));

    const baseline = rows[1].rps;
    const historyRatio = rows[2].rps / baseline;
    const mixed = rows[rows.length - 1];
    const rssGrowth = (mixed.rssAfter - warmRss) / warmRss;
    const errors = rows.reduce((n, r) => n + r.errors + r.non2xx, 0);
    console.log(`  history / baseline: ${historyRatio.toFixed(2)}x (target >= 0.4)`);
    console.log(`  RSS after the mixed run vs after warm-up: ${(rssGrowth * 100).toFixed(1)}% (${warmRss.toFixed(0)} -> ${mixed.rssAfter.toFixed(0)} MiB; target within 15%)`);
    console.log(`  errors + non-2xx over all runs: ${errors} (target 0)`);
    if (errors) console.log(server.log().split("\n").filter((l) => /error|fail/i.test(l)).slice(-10).join("\n"));
    const restAfter = await restingRss(server);
    console.log(`  RSS at rest after the load (${IDLE_S} s idle): ${restAfter.toFixed(0)} MiB; right after it ${mixed.rssAfter.toFixed(0)} MiB`);
    return { label, rows, historyRatio, rssGrowth, errors, restStart, restAfter, restTarget };
  } finally {
    await server.stop();
  }
}

runMain("bench:load", async (cleanup) => {
  printMachine();
  console.log(`${CONNECTIONS} connections, ${DURATION} s per run (warm-up ${WARMUP} s)`);
  const which = (process.env.BENCH_DATABASES || "embedded,postgres").split(",");
  const results = [];
  if (which.includes("embedded")) {
    const dir = makeTempDir("memscope-bench-load-");
    cleanup(() => removeDir(dir));
    results.push(await runOn("embedded database (PGlite)", { MEMSCOPE_DATA_DIR: dir }, REST_TARGET.embedded));
  }
  if (which.includes("postgres")) {
    const explicit = process.env.BENCH_DATABASE_URL?.trim();
    const server = process.env.MEMSCOPE_TEST_POSTGRES_URL?.trim();
    if (explicit) results.push(await runOn("PostgreSQL (BENCH_DATABASE_URL)", { DATABASE_URL: explicit }, REST_TARGET.postgres));
    else if (server) {
      const db = await freshPostgres(server);
      cleanup(() => db.drop());
      const version = await withPgClient(db.url, async (c) => {
        const { rows } = await c.query(`SELECT current_setting('server_version') AS v, (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS pgv`);
        return `PostgreSQL ${rows[0].v}, pgvector ${rows[0].pgv}`;
      });
      results.push(await runOn(version, { DATABASE_URL: db.url }, REST_TARGET.postgres));
    } else console.log("\n(no BENCH_DATABASE_URL or MEMSCOPE_TEST_POSTGRES_URL: PostgreSQL skipped)");
  }
  console.log("\nRSS at rest (MiB): database | fresh seeded start | after the load | target");
  for (const r of results) console.log(`  ${r.label} | ${r.restStart.toFixed(0)} | ${r.restAfter.toFixed(0)} | <= ${r.restTarget}`);
  const failed = results.filter((r) => r.errors > 0 || r.historyRatio < 0.4 || Math.abs(r.rssGrowth) > 0.15 || r.restStart > r.restTarget);
  console.log(`\n${failed.length ? "TARGETS MISSED on: " + failed.map((r) => r.label).join(", ") : "All targets met."}`);
});
