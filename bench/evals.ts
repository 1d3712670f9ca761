// npm run bench:evals
//
// The two performance targets of memory evals (issue 23), over HTTP against `next start`
// on the embedded database (PGlite), as a user meets them:
// 1. Run: 100 users x 1 000 memories (lexical embedder) seeded in the data folder, 1 000
//    cases (each asks for one memory with the first words of its text; expected: that id)
//    added through the API, then POST /evals/sets/{id}/runs while another client asks
//    GET /api/v1/ready every 50 ms. Targets: the run < 60 s; /ready p99 < 100 ms meanwhile.
//    (The shared HNSW graph is not built: users of 1 000 memories are searched by an exact
//    scan of their rows, which never reads it.)
// 2. Import: a LongMemEval-format file of BENCH_IMPORT_MB (300) MB, generated here
//    (bench/lib/longmemeval-file.ts), imported with the CLI (`npm run eval -- --import`,
//    streamed to POST /evals/sets/{id}/import/upload) into a fresh server, rules extraction.
//    The server's resident memory (its process group, /proc) is sampled every 200 ms, and
//    its peak (VmHWM) read at the end. Target: < 600 MB.
// Each figure prints the load average beside it (the machine is shared).
// Knobs (env): BENCH_SKIP_RUN=1, BENCH_SKIP_IMPORT=1, BENCH_IMPORT_MB (300), BENCH_CASES
// (1000), BENCH_IMPORT_EXTRACTION (rules), BENCH_IMPORT_FILE (an existing file instead),
// BENCH_EVALS_DIR (the run's data folder, seeded once and kept for later runs).

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../lib/db/open-database";
import { makeTempDir, ms, now, printMachine, removeDir, ROOT, runMain, stats, type Server } from "./lib/common";
import { writeLongMemEvalFile } from "./lib/longmemeval-file";
import { pickCases, seedEvalPlan, type BenchCase } from "./lib/evals-dataset";
import { groupCpuSeconds } from "./lib/proc-cpu";
import { startBuiltServer } from "./lib/start-server-dist";

const CASES = Number(process.env.BENCH_CASES || 1000);
const IMPORT_MB = Number(process.env.BENCH_IMPORT_MB || 300);
const MB = 1024 * 1024;

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(", ");

/** Resident and peak resident bytes of every process in the group `pgid` (the server and any child). */
function groupMemory(pgid: number): { rss: number; hwm: number } {
  let rss = 0;
  let hwm = 0;
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) !== pgid) continue;
      const status = fs.readFileSync(`/proc/${d}/status`, "utf8");
      rss += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
      hwm += Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
    } catch {
      /* gone */
    }
  }
  return { rss, hwm };
}

/** GET /ready in a loop (50 ms apart) until stop() is called: the latencies. */
function probeReady(server: Server) {
  const samples: number[] = [];
  let failures = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = now();
      // A failed probe (a reset connection) counts as a failure, not a latency; it does not stop the figure.
      const ok = await fetch(`${server.base}/api/v1/ready`)
        .then((r) => r.arrayBuffer().then(() => r.ok))
        .catch(() => false);
      if (ok) samples.push(now() - t);
      else failures++;
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const sorted = [...samples].sort((a, b) => a - b);
      const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)];
      return { ...stats(samples), p99, failures };
    },
  };
}

async function runFigure(cleanup: (fn: () => unknown) => void) {
  // BENCH_EVALS_DIR: seed there once and keep it; a later run reuses it (seeding 100 000
  // memories takes minutes).
  const kept = process.env.BENCH_EVALS_DIR;
  const dir = kept ? path.resolve(kept) : makeTempDir("memscope-bench-evals-");
  if (!kept) cleanup(() => removeDir(dir));
  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  let cases: BenchCase[];
  try {
    await seedEvalPlan(db, dir);
    cases = await pickCases(db, CASES);
  } finally {
    await db.close();
  }
  const server = await startBuiltServer(dir);
  cleanup(() => server.stop());
  const call = async (method: string, p: string, body?: unknown) => {
    const r = await fetch(`${server.base}/api/v1${p}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const j = await r.json();
    if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(j).slice(0, 300)}`);
    return j;
  };
  const set = await call("POST", "/evals/sets", { name: `bench ${new Date().toISOString()}` });
  for (let i = 0; i < cases.length; i += 1000) await call("POST", `/evals/sets/${set.id}/cases`, { cases: cases.slice(i, i + 1000) });
  // Warm the server (the first search compiles its query paths).
  await call("POST", `/users/${cases[0].user_id}/memories/search`, { query: cases[0].question, dry_run: true });

  const loadBefore = load();
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, groupMemory(server.pid).rss)), 200);
  const probe = probeReady(server);
  const cpu0 = groupCpuSeconds(server.pid);
  const t0 = now();
  const run = await call("POST", `/evals/sets/${set.id}/runs`, { config: { k: 10 } });
  const wall = now() - t0;
  const cpu = cpu0 === null ? null : groupCpuSeconds(server.pid)! - cpu0;
  const ready = await probe.stop();
  clearInterval(sampler);
  const m = run.metrics.overall;
  console.log(`\n=== eval run: ${CASES} cases over 100 000 memories of 100 users (PGlite, HTTP) ===`);
  console.log(`load average before / after: ${loadBefore} / ${load()}`);
  console.log(`| figure | value | target |`);
  console.log(`| run wall time (POST .../runs) | ${(wall / 1000).toFixed(1)} s | < 60 s: ${wall < 60_000 ? "met" : "MISSED"} |`);
  console.log(`| run's own duration_ms | ${(run.duration_ms / 1000).toFixed(1)} s | |`);
  // The server's CPU time over the run (and the /ready probes): what the run costs whatever
  // else the machine runs; on an idle machine the run takes about this long (one thread).
  console.log(`| server CPU seconds during the run | ${cpu === null ? "-" : cpu.toFixed(1)} s | |`);
  console.log(`| /ready during the run: n (failed), p50, p95, p99, max | ${ready.n} (${ready.failures}), ${ms(ready.p50)}, ${ms(ready.p95)}, ${ms(ready.p99)}, ${ms(ready.max)} ms | p99 < 100 ms: ${ready.p99 < 100 ? "met" : "MISSED"} |`);
  console.log(`| server RSS during the run (max of 200 ms samples) | ${(peakRss / MB).toFixed(0)} MB | |`);
  console.log(`| recall@10 [95% CI] | ${m.recall.value.toFixed(3)} [${m.recall.low.toFixed(3)}, ${m.recall.high.toFixed(3)}] | |`);
  console.log(`| search latency per case p50 / p95 | ${ms(m.latency_p50.value)} / ${ms(m.latency_p95.value)} ms | |`);
}

async function importFigure(cleanup: (fn: () => unknown) => void) {
  const dir = makeTempDir("memscope-bench-evals-import-");
  cleanup(() => removeDir(dir));
  let file = process.env.BENCH_IMPORT_FILE;
  if (!file) {
    file = path.join(dir, "longmemeval_bench.json");
    const t0 = now();
    const f = await writeLongMemEvalFile(file, IMPORT_MB);
    console.log(`\nwrote ${(f.bytes / MB).toFixed(0)} MB, ${f.questions} questions (40 sessions of 10 turns each) in ${((now() - t0) / 1000).toFixed(1)} s`);
  }
  const bytes = fs.statSync(file).size;
  const server = await startBuiltServer(path.join(dir, "db"));
  cleanup(() => server.stop());
  const base = groupMemory(server.pid);
  const extraction = process.env.BENCH_IMPORT_EXTRACTION || "rules";
  const loadBefore = load();
  let peakRss = base.rss;
  let lastPrint = now();
  const sampler = setInterval(() => {
    const m = groupMemory(server.pid);
    peakRss = Math.max(peakRss, m.rss);
    if (now() - lastPrint > 30_000) {
      lastPrint = now();
      console.log(`  ... server RSS ${(m.rss / MB).toFixed(0)} MB (peak so far ${(peakRss / MB).toFixed(0)} MB), load ${load()}`);
    }
  }, 200);
  const probe = probeReady(server);
  const t0 = now();
  // The CLI, as a user runs it: the file is streamed to the upload route.
  const cli = spawn(process.execPath, [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), path.join(ROOT, "scripts/eval.ts"), "--set", "longmemeval-bench", "--import", file, "--format", "longmemeval", "--extraction", extraction, "--no-run"], {
    cwd: ROOT,
    env: { ...process.env, MEMSCOPE_URL: server.base },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const code = await new Promise<number | null>((r) => cli.on("exit", r));
  const secs = (now() - t0) / 1000;
  const ready = await probe.stop();
  clearInterval(sampler);
  const end = groupMemory(server.pid);
  if (code !== 0) {
    // Which side ended it: a server that died (its log's last lines say why) or one that
    // closed the connection and still answers.
    const alive = await fetch(`${server.base}/api/v1/ready`).then((r) => r.ok, () => false);
    console.log(`server ${alive ? "still answers /ready" : "does not answer /ready (it died?)"}; RSS ${(end.rss / MB).toFixed(0)} MB, peak ${(Math.max(peakRss, end.hwm) / MB).toFixed(0)} MB; its log ends:\n${server.log().slice(-4000)}`);
    throw new Error(`the CLI exited with ${code}`);
  }
  const peak = Math.max(peakRss, end.hwm);
  console.log(`\n=== LongMemEval-format import: ${(bytes / MB).toFixed(0)} MB over HTTP (CLI --import, streamed), PGlite, ${extraction} extraction ===`);
  console.log(`load average before / after: ${loadBefore} / ${load()}`);
  console.log(`| figure | value | target |`);
  console.log(`| wall time | ${secs.toFixed(0)} s (${(bytes / MB / secs).toFixed(2)} MB/s) | |`);
  console.log(`| server peak RSS (VmHWM; RSS at start ${(base.rss / MB).toFixed(0)} MB) | ${(peak / MB).toFixed(0)} MB | < 600 MB: ${peak < 600 * MB ? "met" : "MISSED"} |`);
  console.log(`| /ready during the import: n (failed), p50, p95, p99, max | ${ready.n} (${ready.failures}), ${ms(ready.p50)}, ${ms(ready.p95)}, ${ms(ready.p99)}, ${ms(ready.max)} ms | |`);
}

runMain("bench:evals", async (cleanup) => {
  printMachine();
  if (!process.env.BENCH_SKIP_RUN) await runFigure(cleanup);
  if (!process.env.BENCH_SKIP_IMPORT) await importFigure(cleanup);
});
