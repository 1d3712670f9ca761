// npx tsx --conditions=react-server bench/diag/replay-profile.ts <data-dir> [as-of-data-dir]
//
// Where a replay (POST /replay, issue 22) and an as-of list spend their time, in process
// (no HTTP): every SQL statement of one call, timed, the slowest with their EXPLAIN ANALYZE.
// The first folder holds bench:replay's data set (the demo, 10 000 memories of its user),
// the second bench:as-of's (10 000 memories, 200 000 history events); each is built on the
// first run and kept (the second one as bench:as-of with BENCH_DATA_DIR does: either can reuse it). BENCH_N (20): calls timed per case. BENCH_EXPLAIN=0: no plans.
// BENCH_LIST=1: each statement's own CPU too (process.cpuUsage around it: PGlite runs in this
// process), and the last call's statements in order; with BENCH_EXPLAIN=all their planning and
// execution times as PostgreSQL counts them, with BENCH_REPEAT=n each one's CPU run alone n times.

import fs from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import path from "node:path";
import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import { openDatabase, type Database } from "../../lib/db/open-database";
import type { SqlRunner } from "../../lib/db/migrations";
import { ensureUserVectorIndexes } from "../../lib/embeddings/user-vector-indexes";
import { createProfileVersion } from "../../lib/profiles/profile-versions";
import { ZProfileVersionCreate } from "../../lib/profiles/schemas";
import { replayTurn } from "../../lib/replay/replay-turn";
import { listMemoriesAsOf } from "../../lib/memories/as-of";
import { ms, now, runMain, stats } from "../lib/common";
import { loadReplayDataset, REPLAY_CONVERSATION, REPLAY_PROFILE } from "../lib/replay-dataset";
import { AS_OF_USER, loadAsOfDataset } from "../lib/as-of-dataset";

const N = Number(process.env.BENCH_N || 20);
// BENCH_CPU_PROF=<dir>: a V8 CPU profile of each case's timed calls only (not start-up, not
// the warm-up), one file per case, for bench/diag/cpu-profile-top.ts.
const CPU_PROF = process.env.BENCH_CPU_PROF;
const EXPLAIN = process.env.BENCH_EXPLAIN !== "0" && process.env.BENCH_EXPLAIN !== "all";
const DAY = 86_400_000;

type Timed = { text: string; params: unknown[]; ms: number; cpu: number };

/** CPU time of this process (PGlite runs in it), in ms. */
const PER_STATEMENT_CPU = process.env.BENCH_LIST === "1";
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/** The runner with every statement timed into `log` (transactions too). */
function timed(sql: SqlRunner, log: Timed[]): SqlRunner {
  return {
    exec: async (text) => {
      const t = now();
      const c = PER_STATEMENT_CPU ? cpuMs() : 0;
      await sql.exec(text);
      log.push({ text, params: [], ms: now() - t, cpu: PER_STATEMENT_CPU ? cpuMs() - c : 0 });
    },
    query: async (text, params) => {
      const t = now();
      const c = PER_STATEMENT_CPU ? cpuMs() : 0;
      const r = await sql.query(text, params);
      log.push({ text, params: params ?? [], ms: now() - t, cpu: PER_STATEMENT_CPU ? cpuMs() - c : 0 });
      return r as any;
    },
    transaction: (fn) => sql.transaction((tx) => fn(timed(tx, log))),
  };
}

const short = (text: string) => text.replace(/\s+/g, " ").trim().slice(0, 110);
// Statements told apart by their whole text (two may share their first 110 characters: the
// HNSW walk and the exact scan), shown by their start and a short hash of the rest.
const keyOf = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim();
  let h = 0;
  for (let i = 0; i < flat.length; i++) h = (h * 31 + flat.charCodeAt(i)) | 0;
  return `${flat.slice(0, 100)} #${(h >>> 0).toString(36).slice(0, 4)}`;
};

async function profile(db: Database, label: string, call: (sql: ReturnType<typeof projectSql>) => Promise<unknown>) {
  for (let i = 0; i < 3; i++) await call(projectSql(db.sql, DEFAULT_PROJECT_ID));
  const totals: number[] = [];
  // CPU time of this process per call (PGlite runs in it): on a loaded machine the wall
  // time is inflated by the other processes, the CPU time much less.
  const cpu: number[] = [];
  const byText = new Map<string, { n: number; total: number; cpu: number; max: number; sample: Timed }>();
  let last: Timed[] = [];
  const session = CPU_PROF ? new Session() : null;
  if (session) {
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
  }
  for (let i = 0; i < N; i++) {
    const log: Timed[] = [];
    const t = now();
    const c = process.cpuUsage();
    await call(projectSql(timed(db.sql, log), DEFAULT_PROJECT_ID));
    totals.push(now() - t);
    const dc = process.cpuUsage(c);
    cpu.push((dc.user + dc.system) / 1000);
    last = log;
    for (const q of log) {
      const key = keyOf(q.text);
      const x = byText.get(key) ?? { n: 0, total: 0, cpu: 0, max: 0, sample: q };
      x.n++;
      x.total += q.ms;
      x.cpu += q.cpu;
      if (q.ms > x.max) (x.max = q.ms), (x.sample = q);
      byText.set(key, x);
    }
  }
  if (session) {
    const { profile } = await session.post("Profiler.stop");
    fs.mkdirSync(CPU_PROF!, { recursive: true });
    const file = path.join(CPU_PROF!, `${label.replace(/[^a-z0-9]+/gi, "-")}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
    console.log(`CPU profile of the ${N} timed calls: ${file}`);
  }
  const s = stats(totals);
  const sqlTotal = [...byText.values()].reduce((a, x) => a + x.total, 0) / N;
  console.log(`\n### ${label}: p50 ${ms(s.p50)} ms, p95 ${ms(s.p95)} ms; CPU p50 ${ms(stats(cpu).p50)} ms, p95 ${ms(stats(cpu).p95)} ms (load ${os.loadavg()[0].toFixed(1)}); SQL ${ms(sqlTotal)} ms per call in ${[...byText.values()].reduce((a, x) => a + x.n, 0) / N} statements`);
  const top = [...byText.entries()].sort((a, b) => b[1].total - a[1].total);
  const sqlCpu = [...byText.values()].reduce((a, x) => a + x.cpu, 0) / N;
  if (PER_STATEMENT_CPU) console.log(`SQL CPU ${ms(sqlCpu)} ms per call (the statements' own CPU: PGlite and its result decoding)`);
  for (const [key, x] of top.slice(0, Number(process.env.BENCH_TOP || 14))) {
    console.log(`${ms(x.total / N).padStart(8)} ms/call${PER_STATEMENT_CPU ? `  CPU ${ms(x.cpu / N).padStart(6)}` : ""}  x${(x.n / N).toFixed(1).padStart(5)}  max ${ms(x.max).padStart(7)}  ${key}`);
  }
  // BENCH_LIST=1: the last call's statements in the order they ran.
  if (process.env.BENCH_LIST === "1") {
    console.log(`\nthe last call's statements in order:`);
    for (const q of last) {
      // With BENCH_EXPLAIN=all: each statement's planning and execution time as PostgreSQL
      // counts them; the rest of its CPU is the protocol and the result's decoding in JS.
      let plan = "";
      if (process.env.BENCH_EXPLAIN === "all" && /^\s*(SELECT|WITH|\()/i.test(q.text)) {
        const rows = await db.sql.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, SUMMARY) ${q.text}`, q.params);
        const text = rows.map((r) => r["QUERY PLAN"]).join("\n");
        plan = `  plan ${/Planning Time: ([\d.]+)/.exec(text)?.[1]} exec ${/Execution Time: ([\d.]+)/.exec(text)?.[1]}`;
      }
      // BENCH_REPEAT=n: the statement alone, n times: its CPU apart from the call around it.
      const repeat = Number(process.env.BENCH_REPEAT || 0);
      if (repeat > 0) {
        const c = cpuMs();
        for (let i = 0; i < repeat; i++) {
          if (/^\s*SET LOCAL/i.test(q.text)) break;
          await db.sql.query(q.text, q.params);
        }
        plan += `  alone ${ms((cpuMs() - c) / repeat)} ms CPU`;
      }
      console.log(`  ${ms(q.ms).padStart(7)} ms  CPU ${ms(q.cpu).padStart(6)}${plan}  ${keyOf(q.text)}`);
    }
  }
  if (EXPLAIN) {
    for (const [, x] of top.slice(0, 3)) {
      if (!/^\s*(SELECT|WITH|\()/i.test(x.sample.text)) continue;
      const plan = await db.sql.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${x.sample.text}`, x.sample.params);
      console.log(`\n--- plan (${ms(x.max)} ms when timed): ${short(x.sample.text)}\n${plan.map((p) => p["QUERY PLAN"]).join("\n")}`);
    }
  }
}

async function open(dir: string, name: string, build: (db: Database) => Promise<unknown>) {
  const marker = path.join(dir, name);
  const fresh = !fs.existsSync(marker);
  if (fresh) fs.mkdirSync(dir, { recursive: true });
  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  if (fresh) {
    const t = now();
    console.log(`building the data set in ${dir} ...`);
    fs.writeFileSync(marker, JSON.stringify((await build(db)) ?? {}));
    console.log(`  built in ${((now() - t) / 1000).toFixed(1)} s`);
  }
  return { db, data: JSON.parse(fs.readFileSync(marker, "utf8")) };
}

runMain("diag:replay-profile", async (cleanup) => {
  const [replayDir, asOfDir] = process.argv.slice(2).map((d) => path.resolve(d));
  if (!replayDir) throw new Error("usage: replay-profile.ts <replay-data-dir> [as-of-data-dir]");
  if (process.env.BENCH_ONLY !== "as-of") {
    // BENCH_ONLY=as-of: only the as-of list (BENCH_OTHER_USERS: other users of its data set, 20).
    const { db, data } = await open(replayDir, "bench-replay.json", async (db) => {
      const turns = await loadReplayDataset(db, 10_000);
      await createProfileVersion(projectSql(db.sql, DEFAULT_PROJECT_ID), "travel-planner", ZProfileVersionCreate.parse(REPLAY_PROFILE));
      return { turns };
    });
    // The server builds a large user's own HNSW index at start-up: so does this.
    const built = await ensureUserVectorIndexes(db);
    if (built.length) console.log(`built ${built.length} user vector index(es) in ${ms(built.reduce((a, b) => a + b.ms, 0))} ms`);
    const turns = data.turns as string[];
    // BENCH_TURNS=newest (or middle, turn 10: a comma list): only those turns, e.g. under --cpu-prof.
    const only = process.env.BENCH_TURNS?.split(",");
    const cases = ([["newest", turns[turns.length - 1]], ["middle", turns[Math.floor(turns.length / 2)]], ["turn 10", turns[10]]] as const).filter(([name]) => !only || only.includes(name));
    for (const [name, id] of cases) {
      await profile(db, `replay, ${name} turn`, (sql) => replayTurn(sql, { conversation_id: REPLAY_CONVERSATION, message_id: id }));
    }
    // Scrubber steps: consecutive turns, each replayed once (left out with BENCH_TURNS).
    const steps: number[] = [];
    const stepCpu: number[] = [];
    for (let i = 300; i < (only ? 300 : 320); i++) {
      const t = now();
      const c = process.cpuUsage();
      await replayTurn(projectSql(db.sql, DEFAULT_PROJECT_ID), { conversation_id: REPLAY_CONVERSATION, message_id: turns[i] });
      steps.push(now() - t);
      const dc = process.cpuUsage(c);
      stepCpu.push((dc.user + dc.system) / 1000);
    }
    if (steps.length) console.log(`\nscrubber steps (turns 300-319, each once): p50 ${ms(stats(steps).p50)} ms, max ${ms(stats(steps).max)} ms; CPU p50 ${ms(stats(stepCpu).p50)} ms, max ${ms(stats(stepCpu).max)} ms (load ${os.loadavg()[0].toFixed(1)})`);
    await db.close();
  }
  if (asOfDir) {
    const { db, data } = await open(asOfDir, "bench-as-of.json", async (db) => {
      const start = Date.now() - 31 * DAY;
      await loadAsOfDataset(db, { start, memories: 10_000, perMemory: 20, otherUsers: Number(process.env.BENCH_OTHER_USERS ?? 20) });
      return { start };
    });
    cleanup(() => db.close());
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const at = () => new Date(data.start + rnd() * 31 * DAY).toISOString();
    await profile(db, "as-of list, random instant, default order", (sql) => listMemoriesAsOf(sql, { userId: AS_OF_USER, asOf: at() }));
    await profile(db, "as-of list, random instant, importance order, status all", (sql) =>
      listMemoriesAsOf(sql, { userId: AS_OF_USER, asOf: at(), sort: "importance_score", filters: { status: "all" } }),
    );
  }
});
