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
// Knobs (env): BENCH_MEMORIES (10 000), BENCH_N (60), BENCH_STEPS (40).

import os from "node:os";
import { openDatabase } from "../lib/db/open-database";
import { makeTempDir, ms, now, postJson, printMachine, removeDir, runMain, stats } from "./lib/common";
import { loadReplayDataset, REPLAY_CONVERSATION, REPLAY_PROFILE, REPLAY_USER } from "./lib/replay-dataset";
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

  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  const t0 = now();
  const thread = await loadReplayDataset(db, MEMORIES);
  await db.close();
  console.log(`Loaded in ${((now() - t0) / 1000).toFixed(1)} s`);
  const turns = [
    ["newest", thread[thread.length - 1]],
    ["middle", thread[Math.floor(thread.length / 2)]],
    ["early (turn 10)", thread[10]],
  ] as const;
  console.log(`Thread of ${thread.length} turns, ${MEMORIES.toLocaleString("en")} memories of ${USER} in ${dir}`);

  const server = await startBuiltServer(dir);
  cleanup(() => server.stop());
  const profile = await postJson(`${server.base}/api/v1/profiles/travel-planner/versions`, REPLAY_PROFILE);
  if (profile.status !== 201) throw new Error(`profile: ${profile.status} ${JSON.stringify(profile.json)}`);

  console.log(`\n=== POST /api/v1/replay over HTTP (next start, embedded database), auto_context (placeholder summaries), k = 10, N=${N} each ===`);
  console.log(`| turn | thread index | prompt messages | candidates | p50 ms | p95 ms | max ms | p95 vs ${TARGET_P95} ms |`);
  for (const [name, id] of turns) {
    const body = { conversation_id: REPLAY_CONVERSATION, message_id: id };
    const samples: number[] = [];
    let last: any = null;
    for (let i = 0; i < WARMUP + N; i++) {
      const t = now();
      const r = await postJson<any>(`${server.base}/api/v1/replay`, body);
      if (i >= WARMUP) samples.push(now() - t);
      if (r.status !== 200) throw new Error(`POST /replay answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
      last = r.json;
    }
    const s = stats(samples);
    console.log(
      `| ${name} | ${last.turn.index} | ${last.context.messages.length} | ${last.retrieval?.candidate_count ?? 0} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.max)} | ${s.p95 < TARGET_P95 ? "met" : "MISSED"} (${Math.round((s.p95 / TARGET_P95) * 100)}%) |`,
    );
  }
  // The timeline scrubber: each step replays the next turn once.
  const from = Math.max(0, Math.floor(thread.length / 2) - Math.floor(STEPS / 2));
  const steps: number[] = [];
  for (const id of thread.slice(from, from + STEPS)) {
    const t = now();
    const r = await postJson<any>(`${server.base}/api/v1/replay`, { conversation_id: REPLAY_CONVERSATION, message_id: id });
    steps.push(now() - t);
    if (r.status !== 200) throw new Error(`POST /replay answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
  }
  const st = stats(steps);
  console.log(
    `| scrubber: ${steps.length} consecutive turns from index ${from}, each once | | | | ${ms(st.p50)} | ${ms(st.p95)} | ${ms(st.max)} | every step < ${TARGET_P95} ms: ${st.max < TARGET_P95 ? "met" : "MISSED"} (max ${Math.round((st.max / TARGET_P95) * 100)}%) |`,
  );
  console.log(`Load average at the end (1 / 5 / 15 min): ${load()}; targets: p95 < ${TARGET_P95} ms per turn, each scrubber step < ${TARGET_P95} ms`);
});
