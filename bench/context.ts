// npm run bench:context
//
// Context assembly (POST /api/v1/context) for a 500-turn thread and 10 000 long-term
// memories of the same user, over HTTP against `next start` on the embedded database:
// history read + strategy + memory retrieval (HNSW + full text, scored, logged) +
// formatting + context-window fitting. Target: p95 < 60 ms.
// Knobs (env): BENCH_TURNS (500), BENCH_MEMORIES (10 000), BENCH_N (200).

import { makeTempDir, ms, now, postJson, printMachine, removeDir, runMain, stats } from "./lib/common";
import { contextRequest, loadContextDataset } from "./lib/context-dataset";
import { makeQueryGenerator } from "./lib/memory-text";
import { startBuiltServer } from "./lib/start-server-dist";

const TURNS = Number(process.env.BENCH_TURNS || 500);
const MEMORIES = Number(process.env.BENCH_MEMORIES || 10_000);
const N = Number(process.env.BENCH_N || 200);
const WARMUP = 20;
const USER = "bench-context-user";
const TARGET_P95 = 60;

runMain("bench:context", async (cleanup) => {
  printMachine();
  const dir = makeTempDir("memscope-bench-context-");
  cleanup(() => removeDir(dir));

  console.log(`Loading a ${TURNS}-turn thread and ${MEMORIES.toLocaleString("en")} memories into ${dir}`);
  const t0 = now();
  const { conversationId } = await loadContextDataset(dir, { turns: TURNS, memories: MEMORIES, user: USER });
  console.log(`  loaded in ${((now() - t0) / 1000).toFixed(1)} s (index included)`);

  const server = await startBuiltServer(dir);
  cleanup(() => server.stop());
  const queries = makeQueryGenerator(99);
  const strategies = [
    { name: "token_buffer 2000", strategy: { type: "token_buffer", max_token_limit: 2000 } },
    { name: "message_window 10", strategy: { type: "message_window", max_attached_message_count: 10, history_message_truncate_enable: true } },
    { name: "auto_context", strategy: { type: "auto_context" } },
  ];
  const rows: { name: string; p50: number; p95: number; tokens: number }[] = [];
  for (const s of strategies) {
    const body = () => contextRequest(USER, conversationId, queries(), s.strategy);
    let tokens = 0;
    for (let i = 0; i < WARMUP; i++) await postJson(`${server.base}/api/v1/context`, body());
    const samples: number[] = [];
    for (let i = 0; i < N; i++) {
      const t = now();
      const r = await postJson<{ sections: { total: number } }>(`${server.base}/api/v1/context`, body());
      samples.push(now() - t);
      if (r.status !== 200) throw new Error(`POST /context answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
      tokens = r.json.sections.total;
    }
    const st = stats(samples);
    rows.push({ name: s.name, p50: st.p50, p95: st.p95, tokens });
  }

  console.log(`\n=== context assembly over HTTP: ${TURNS}-turn thread, ${MEMORIES.toLocaleString("en")} memories, k=10, N=${N} each ===`);
  console.log(`| strategy | p50 ms | p95 ms | prompt tokens | p95 vs ${TARGET_P95} ms target |`);
  for (const r of rows) {
    console.log(`| ${r.name} | ${ms(r.p50)} | ${ms(r.p95)} | ${r.tokens} | ${r.p95 < TARGET_P95 ? "met" : "MISSED"} (${Math.round((r.p95 / TARGET_P95) * 100)}%) |`);
  }
});
