// npm run bench:replay  (needs a production build: npx next build)
//
// POST /api/v1/replay of turns of the 646-turn demo conversation ("Trip companion") with
// 10 000 memories of its user (created before the conversation, so all are alive at every
// turn), under a profile running auto_context with placeholder summaries (no model calls)
// and k = 10, over HTTP against `next start` on the embedded database: thread up to the
// turn, memories as of the turn (lib/memories/as-of), the strategy replayed up to that
// model call, assembly, why in / why out, the logged retrieval beside it. Target: p95 < 150 ms.
// Knobs (env): BENCH_MEMORIES (10 000), BENCH_N (60).

import { randomUUID } from "node:crypto";
import os from "node:os";
import { contentKey } from "../lib/memories/normalize-content";
import { DEFAULT_PROJECT_ID, projectSql } from "../lib/db/project-sql";
import { openDatabase } from "../lib/db/open-database";
import { DEMO_IDS } from "../lib/db/seed/demo-data";
import { seedDemo } from "../lib/db/seed/seed-if-empty";
import { embedLexical, LEXICAL_DIMENSIONS, LEXICAL_MODEL } from "../lib/embeddings/lexical-embedder";
import { toVectorLiteral } from "../lib/embeddings/embedding-provider";
import { loadThreadIds } from "../lib/threads/load-thread";
import { makeTempDir, ms, now, postJson, printMachine, removeDir, runMain, stats } from "./lib/common";
import { makeMemoryGenerator } from "./lib/memory-text";
import { startBuiltServer } from "./lib/start-server-dist";

const MEMORIES = Number(process.env.BENCH_MEMORIES || 10_000);
const N = Number(process.env.BENCH_N || 60);
const WARMUP = 5;
const USER = "ana@example.com";
const TARGET_P95 = 150;
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" / ");

runMain("bench:replay", async (cleanup) => {
  printMachine();
  console.log(`Load average at start (1 / 5 / 15 min): ${load()}`);
  delete process.env.MEMSCOPE_CHAT_BASE_URL;
  const dir = makeTempDir("memscope-bench-replay-");
  cleanup(() => removeDir(dir));

  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  await seedDemo(db);
  const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
  const mem = makeMemoryGenerator(4242);
  for (let start = 0; start < MEMORIES; start += 2000) {
    const batch = Array.from({ length: Math.min(2000, MEMORIES - start) }, () => ({ id: randomUUID(), ...mem() }));
    await db.sql.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO memories (id, user_id, memory_type, content, content_key, importance_score, created_at, updated_at)
         SELECT u.id, $2, u.t::memory_type, u.c, u.k, u.i, '2020-01-01T00:00:00Z', '2020-01-01T00:00:00Z'
           FROM unnest($1::uuid[], $3::text[], $4::text[], $5::text[], $6::float8[]) AS u(id, t, c, k, i)`,
        [batch.map((b) => b.id), USER, batch.map((b) => b.memory_type), batch.map((b) => b.content), batch.map((b) => contentKey(b.content)), batch.map((b) => b.importance)],
      );
      await tx.query(
        `INSERT INTO memory_embeddings (memory_id, model, user_id, dimensions, embedding)
         SELECT u.id, $2, $3, $4, u.v::vector FROM unnest($1::uuid[], $5::text[]) AS u(id, v)`,
        [batch.map((b) => b.id), LEXICAL_MODEL, USER, LEXICAL_DIMENSIONS, batch.map((b) => toVectorLiteral(embedLexical(b.content)))],
      );
    });
  }
  await db.sql.exec("ANALYZE");
  // The thread's turns, oldest first: replay the newest, one in the middle, one early.
  const thread = (await loadThreadIds(sql, DEMO_IDS.long)).reverse();
  await db.close();
  const turns = [
    ["newest", thread[thread.length - 1]],
    ["middle", thread[Math.floor(thread.length / 2)]],
    ["early (turn 10)", thread[10]],
  ] as const;
  console.log(`Thread of ${thread.length} turns, ${MEMORIES.toLocaleString("en")} memories of ${USER} in ${dir}`);

  const server = await startBuiltServer(dir);
  cleanup(() => server.stop());
  const profile = await postJson(`${server.base}/api/v1/profiles/travel-planner/versions`, {
    settings: { strategy: { type: "auto_context", summarizer: "placeholder" }, memory: { k: 10 }, system_prompt: "You are a travel companion." },
    effective_from: "2020-01-01T00:00:00Z",
  });
  if (profile.status !== 201) throw new Error(`profile: ${profile.status} ${JSON.stringify(profile.json)}`);

  console.log(`\n=== POST /api/v1/replay over HTTP (next start, embedded database), auto_context (placeholder summaries), k = 10, N=${N} each ===`);
  console.log(`| turn | thread index | prompt messages | candidates | p50 ms | p95 ms | max ms | p95 vs ${TARGET_P95} ms |`);
  for (const [name, id] of turns) {
    const body = { conversation_id: DEMO_IDS.long, message_id: id };
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
  console.log(`Load average: ${load()}`);
});
