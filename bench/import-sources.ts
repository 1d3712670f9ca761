// npm run bench:import-sources (also the second half of npm run bench:import)
//
// The import pipeline end to end on the embedded database (or on PostgreSQL when
// DATABASE_URL is set: an empty database): starts the production server on a fresh PGlite
// folder, writes a Dify Service API JSON file of BENCH_SOURCES_TURNS turns (100 000 by
// default) in conversations of 100 turns, one turn in ten a regenerated sibling (a branch),
// and times POST /api/v1/imports from the request to the job's end (parse, checks, token
// counts, the bulk write of each chunk of new conversations). Then the same file again
// (everything skipped: the idempotence check), an OpenAI JSONL file of 20 000 turns (4 turns
// a conversation) and a Mem0 export of 5 000 memories (embedded one by one, lexical model).
// Prints the load average before and after: the CPU is shared. Target: 2 000 turns/s.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { makeTempDir, now, printMachine, removeDir, ROOT, runMain } from "./lib/common";
import { startBuiltServer } from "./lib/start-server-dist";
import { makeTurnGenerator } from "./lib/text";
import { difyFile, mem0File, openaiFile } from "./lib/import-files";
import { groupCpuSeconds } from "./lib/proc-cpu";

const TOTAL = Number(process.env.BENCH_SOURCES_TURNS || 100_000);
const PER_CONVERSATION = 100;
const OPENAI_TURNS = Number(process.env.BENCH_SOURCES_OPENAI_TURNS || 20_000);
const MEM0_MEMORIES = Number(process.env.BENCH_SOURCES_MEM0 || 5_000);
const TARGET = 2_000;
const DB = process.env.DATABASE_URL ? "PostgreSQL" : "PGlite";
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");

type Job = { id: string; status: string; total: number; processed: number; counts: Record<string, number>; problems: unknown[]; error: string | null };

let serverPid = 0;

async function importAndWait(base: string, body: Record<string, unknown>): Promise<{ job: Job; postMs: number; totalMs: number; cpuS: number | null }> {
  const payload = JSON.stringify(body);
  const cpu0 = groupCpuSeconds(serverPid);
  const t0 = now();
  const r = await fetch(`${base}/api/v1/imports`, { method: "POST", headers: { "content-type": "application/json" }, body: payload });
  const postMs = now() - t0;
  const started = (await r.json()) as Job;
  if (r.status !== 202) throw new Error(`POST /imports answered ${r.status}: ${JSON.stringify(started).slice(0, 500)}`);
  let job = started;
  let lastPrint = 0;
  while (job.status === "running" || job.status === "pending") {
    await new Promise((res) => setTimeout(res, 200));
    job = (await (await fetch(`${base}/api/v1/imports/${started.id}`)).json()) as Job;
    if (now() - lastPrint > 5000) {
      lastPrint = now();
      console.log(`    ${job.processed}/${job.total} records, ${job.counts.turns} turns, ${((now() - t0) / 1000).toFixed(1)} s`);
    }
  }
  const totalMs = now() - t0;
  const cpu1 = groupCpuSeconds(serverPid);
  if (job.status !== "done") throw new Error(`import ${job.id} ${job.status}: ${job.error}`);
  return { job, postMs, totalMs, cpuS: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0 };
}

const rate = (n: number, msTaken: number) => Math.round(n / (msTaken / 1000));
const mib = (s: string) => (Buffer.byteLength(s) / 1024 / 1024).toFixed(1);

runMain("bench:import-sources", async (onCleanup) => {
  const machine = printMachine();
  const loadBefore = load();
  console.log(`Database: ${DB}; load average ${loadBefore}`);
  const dataDir = makeTempDir("memscope-bench-import-sources-");
  onCleanup(() => removeDir(dataDir));
  const server = await startBuiltServer(dataDir);
  onCleanup(() => server.stop());
  serverPid = server.pid;
  const perCpu = (n: number, r: { cpuS: number | null }) => (r.cpuS ? Math.round(n / r.cpuS) : NaN);

  const gen = makeTurnGenerator(4242);
  const dify = difyFile(gen, TOTAL, PER_CONVERSATION);
  console.log(`Dify Service API JSON: ${dify.conversations} conversations, ${dify.turns.toLocaleString("en-US")} turns, ${mib(dify.text)} MiB`);
  const first = await importAndWait(server.base, { content: dify.text, format: "dify-api", file_name: "bench-dify.json" });
  if (first.job.counts.turns !== dify.turns || first.job.counts.failed) throw new Error(`imported ${JSON.stringify(first.job.counts)}, problems ${JSON.stringify(first.job.problems).slice(0, 500)}`);
  const difyRate = rate(dify.turns, first.totalMs);
  console.log(
    `  imported in ${(first.totalMs / 1000).toFixed(1)} s (POST answered after ${(first.postMs / 1000).toFixed(2)} s): ${difyRate} turns/s; ` +
      `server CPU ${first.cpuS?.toFixed(1)} s = ${perCpu(dify.turns, first)} turns per CPU-second`,
  );

  const again = await importAndWait(server.base, { content: dify.text, format: "dify-api" });
  if (again.job.counts.turns !== 0 || again.job.counts.skipped !== dify.conversations) throw new Error(`re-run wrote ${JSON.stringify(again.job.counts)}`);
  console.log(`  same file again: ${again.job.counts.skipped} conversations skipped, 0 turns written, ${(again.totalMs / 1000).toFixed(1)} s`);

  const oa = openaiFile(gen, OPENAI_TURNS);
  console.log(`OpenAI JSONL: ${OPENAI_TURNS.toLocaleString("en-US")} turns in ${OPENAI_TURNS / 4} lines, ${mib(oa)} MiB`);
  const openai = await importAndWait(server.base, { content: oa, format: "openai", file_name: "bench-openai.jsonl" });
  if (openai.job.counts.turns !== OPENAI_TURNS) throw new Error(`openai imported ${JSON.stringify(openai.job.counts)}`);
  const oaRate = rate(OPENAI_TURNS, openai.totalMs);
  console.log(`  imported in ${(openai.totalMs / 1000).toFixed(1)} s: ${oaRate} turns/s; server CPU ${openai.cpuS?.toFixed(1)} s = ${perCpu(OPENAI_TURNS, openai)} turns per CPU-second`);

  const m0 = mem0File(gen, MEM0_MEMORIES);
  console.log(`Mem0 export: ${MEM0_MEMORIES.toLocaleString("en-US")} memories, ${mib(m0)} MiB`);
  const mem0 = await importAndWait(server.base, { content: m0, format: "mem0", file_name: "bench-mem0.json" });
  if (mem0.job.counts.memories !== MEM0_MEMORIES) throw new Error(`mem0 imported ${JSON.stringify(mem0.job.counts)} ${JSON.stringify(mem0.job.problems).slice(0, 300)}`);
  const m0Rate = rate(MEM0_MEMORIES, mem0.totalMs);
  console.log(`  imported in ${(mem0.totalMs / 1000).toFixed(1)} s: ${m0Rate} memories/s`);

  await server.stop();
  const loadAfter = load();

  console.log(`\n=== import pipeline (POST /api/v1/imports to job done), npm start's server + ${DB}; load average before ${loadBefore}, after ${loadAfter} ===`);
  const cpuCell = (n: number, r: { cpuS: number | null }) => `${r.cpuS?.toFixed(1) ?? "-"} | ${Number.isNaN(perCpu(n, r)) ? "-" : perCpu(n, r)}`;
  console.log(`| source | records | turns | seconds | turns/s | server CPU s | per CPU-second |`);
  console.log(`| Dify Service API JSON, ${mib(dify.text)} MiB | ${dify.conversations} | ${dify.turns} | ${(first.totalMs / 1000).toFixed(1)} | ${difyRate} | ${cpuCell(dify.turns, first)} |`);
  console.log(`| same file again (all skipped) | ${dify.conversations} | 0 | ${(again.totalMs / 1000).toFixed(1)} | - | ${again.cpuS?.toFixed(1) ?? "-"} | - |`);
  console.log(`| OpenAI JSONL, ${mib(oa)} MiB | ${OPENAI_TURNS / 4} | ${OPENAI_TURNS} | ${(openai.totalMs / 1000).toFixed(1)} | ${oaRate} | ${cpuCell(OPENAI_TURNS, openai)} |`);
  console.log(`| Mem0 export, ${mib(m0)} MiB | ${MEM0_MEMORIES} memories | - | ${(mem0.totalMs / 1000).toFixed(1)} | ${m0Rate} memories/s | ${cpuCell(MEM0_MEMORIES, mem0)} |`);
  console.log(`Target ${TARGET} turns/s with ${dify.turns.toLocaleString("en-US")} turns: ${difyRate >= TARGET ? "MET" : "MISSED"} (${((difyRate / TARGET) * 100).toFixed(0)}% of target)`);

  const resultsDir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.writeFileSync(
    path.join(resultsDir, DB === "PGlite" ? "import-sources.json" : "import-sources-postgres.json"),
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine,
        database: DB,
        loadAverage: { before: loadBefore, after: loadAfter },
        dify: { conversations: dify.conversations, turns: dify.turns, mib: Number(mib(dify.text)), seconds: first.totalMs / 1000, postSeconds: first.postMs / 1000, turnsPerSec: difyRate, serverCpuSeconds: first.cpuS },
        rerun: { seconds: again.totalMs / 1000, skipped: again.job.counts.skipped },
        openai: { turns: OPENAI_TURNS, seconds: openai.totalMs / 1000, turnsPerSec: oaRate, serverCpuSeconds: openai.cpuS },
        mem0: { memories: MEM0_MEMORIES, seconds: mem0.totalMs / 1000, memoriesPerSec: m0Rate, serverCpuSeconds: mem0.cpuS },
        target: TARGET,
      },
      null,
      2,
    ) + "\n",
  );
  console.log(`Results written to bench/results/${DB === "PGlite" ? "import-sources.json" : "import-sources-postgres.json"}`);
});
