// npm run bench:replay  (needs a production build: npx next build)
//
// POST /api/v1/replay of turns of the 646-turn demo conversation ("Trip companion") with
// 10 000 memories of its user (created before the conversation, so all are alive at every
// turn), under a profile running auto_context with placeholder summaries (no model calls)
// and k = 10, over HTTP against `next start` on the embedded database: thread up to the
// turn, memories as of the turn (lib/memories/as-of), the strategy replayed up to that
// model call, assembly, why in / why out, the logged retrieval beside it; then the timeline
// scrubber: BENCH_STEPS consecutive turns, each replayed once. Targets: p95 < 150 ms per
// turn, every scrubber step < 150 ms.
// Knobs (env): BENCH_MEMORIES (10 000), BENCH_N (60), BENCH_STEPS (40); BENCH_DATA_DIR: a data
// folder kept by bench/diag/replay-profile.ts (its bench-replay.json marker), copied and used
// instead of loading the data set again (its profile version is already there).
// Besides wall times, the server's CPU time per replay (its process group, from /proc): on a
// shared machine the wall time says little, the CPU time what the code costs.
// BENCH_CPU_PROF=<dir>: the server's CPU profiles (node --cpu-prof) written there when it stops,
// for bench/diag/cpu-profile-top.ts; BENCH_TURNS=newest (middle, early: a comma list) and
// BENCH_STEPS=0 narrow the run to what is being profiled.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../lib/db/open-database";
import { makeTempDir, ms, now, postJson, printMachine, removeDir, runMain, stats } from "./lib/common";
import { loadReplayDataset, REPLAY_CONVERSATION, REPLAY_PROFILE, REPLAY_USER } from "./lib/replay-dataset";
import { groupCpuSeconds } from "./lib/proc-cpu";
import { startBuiltServer } from "./lib/start-server-dist";

const MEMORIES = Number(process.env.BENCH_MEMORIES || 10_000);
const N = Number(process.env.BENCH_N || 60);
const WARMUP = 5;
const USER = REPLAY_USER;
// Scrubber steps: consecutive turns of the thread, each replayed once (no warm-up per turn).
const STEPS = Number(process.env.BENCH_STEPS || 40);
const TARGET_P95 = 150;
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" / ");

runMain("bench:replay", async (cleanup) => {
  printMachine();
  console.log(`Load average at start (1 / 5 / 15 min): ${load()}`);
  delete process.env.MEMSCOPE_CHAT_BASE_URL;
  const dir = makeTempDir("memscope-bench-replay-");
  cleanup(() => removeDir(dir));

  const kept = process.env.BENCH_DATA_DIR;
  const marker = kept && path.join(kept, "bench-replay.json");
  let thread: string[];
  const t0 = now();
  if (marker && fs.existsSync(marker)) {
    fs.cpSync(kept, dir, { recursive: true });
    thread = JSON.parse(fs.readFileSync(marker, "utf8")).turns;
    console.log(`Copied the kept data set ${kept} in ${((now() - t0) / 1000).toFixed(1)} s`);
  } else {
    const db = await openDatabase({ kind: "pglite", dataDir: dir });
    thread = await loadReplayDataset(db, MEMORIES);
    await db.close();
    console.log(`Loaded in ${((now() - t0) / 1000).toFixed(1)} s`);
  }
  const turns = [
    ["newest", thread[thread.length - 1]],
    ["middle", thread[Math.floor(thread.length / 2)]],
    ["early (turn 10)", thread[10]],
  ] as const;
  console.log(`Thread of ${thread.length} turns, ${MEMORIES.toLocaleString("en")} memories of ${USER} in ${dir}`);

  const prof = process.env.BENCH_CPU_PROF;
  const server = await startBuiltServer(dir, undefined, undefined, {}, prof ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(prof)}`] : []);
  cleanup(() => server.stop());
  if (!marker || !fs.existsSync(marker)) {
    const profile = await postJson(`${server.base}/api/v1/profiles/travel-planner/versions`, REPLAY_PROFILE);
    if (profile.status !== 201) throw new Error(`profile: ${profile.status} ${JSON.stringify(profile.json)}`);
  }
  const cpu = () => groupCpuSeconds(server.pid);
  const cpuMs = (from: number | null, calls: number) => {
    const to = cpu();
    return from === null || to === null ? "n/a" : ms(((to - from) * 1000) / calls);
  };

  console.log(`\n=== POST /api/v1/replay over HTTP (the server as npm start runs it, embedded database), auto_context (placeholder summaries), k = 10, N=${N} each ===`);
  console.log(`| turn | thread index | prompt messages | candidates | p50 ms | p95 ms | max ms | p95 vs ${TARGET_P95} ms | server CPU ms per replay |`);
  const only = process.env.BENCH_TURNS?.split(",");
  for (const [name, id] of turns.filter(([name]) => !only || only.includes(name.split(" ")[0]))) {
    const body = { conversation_id: REPLAY_CONVERSATION, message_id: id };
    const samples: number[] = [];
    let last: any = null;
    let cpu0: number | null = null;
    for (let i = 0; i < WARMUP + N; i++) {
      if (i === WARMUP) cpu0 = cpu();
      const t = now();
      const r = await postJson<any>(`${server.base}/api/v1/replay`, body);
      if (i >= WARMUP) samples.push(now() - t);
      if (r.status !== 200) throw new Error(`POST /replay answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
      last = r.json;
    }
    const s = stats(samples);
    console.log(
      `| ${name} | ${last.turn.index} | ${last.context.messages.length} | ${last.retrieval?.candidate_count ?? 0} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.max)} | ${s.p95 < TARGET_P95 ? "met" : "MISSED"} (${Math.round((s.p95 / TARGET_P95) * 100)}%) | ${cpuMs(cpu0, N)} |`,
    );
  }
  // The timeline scrubber: each step replays the next turn once.
  const from = Math.max(0, Math.floor(thread.length / 2) - Math.floor(STEPS / 2));
  const steps: number[] = [];
  const stepCpu0 = cpu();
  for (const id of thread.slice(from, from + STEPS)) {
    const t = now();
    const r = await postJson<any>(`${server.base}/api/v1/replay`, { conversation_id: REPLAY_CONVERSATION, message_id: id });
    steps.push(now() - t);
    if (r.status !== 200) throw new Error(`POST /replay answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
  }
  if (!steps.length) return;
  const st = stats(steps);
  console.log(
    `| scrubber: ${steps.length} consecutive turns from index ${from}, each once | | | | ${ms(st.p50)} | ${ms(st.p95)} | ${ms(st.max)} | every step < ${TARGET_P95} ms: ${st.max < TARGET_P95 ? "met" : "MISSED"} (max ${Math.round((st.max / TARGET_P95) * 100)}%) | ${cpuMs(stepCpu0, steps.length)} |`,
  );
  console.log(`Load average at the end (1 / 5 / 15 min): ${load()}; targets: p95 < ${TARGET_P95} ms per turn, each scrubber step < ${TARGET_P95} ms`);
});
