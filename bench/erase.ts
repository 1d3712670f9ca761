// npm run bench:erase
//
// Erasure of a large end user (issue 24): a user with BENCH_MEMORIES (100 000) memories, each
// with a vector and a history event, and BENCH_CONVERSATIONS (2 000) conversations of
// BENCH_TURNS (100) turns, beside BENCH_OTHERS (20 000) memories of other users, on
// PostgreSQL. Data is written in SQL (the bench measures the erasure, not the writes); the
// erasure goes through the production server's POST /users/{id}/erase. Meanwhile /ready is
// polled every 50 ms.
// Targets: erasure under 60 s; /ready p99 under 100 ms meanwhile.
// PostgreSQL: BENCH_DATABASE_URL, else MEMSCOPE_TEST_POSTGRES_URL (a fresh database is created
// on that server and dropped afterwards).

import pg from "pg";
import { now, percentile, postJson, printMachine, runMain } from "./lib/common";
import { freshPostgres, startServer } from "./lib/serve-process";

const MEMORIES = Number(process.env.BENCH_MEMORIES || 100_000);
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS || 2_000);
const TURNS = Number(process.env.BENCH_TURNS || 100);
const OTHERS = Number(process.env.BENCH_OTHERS || 20_000);
const USER = "bench-erase-user";

async function fill(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const t = now();
    await c.query(
      `INSERT INTO conversations (project_id, id, app_id, end_user_id, name, turn_count)
       SELECT 'default', gen_random_uuid(), 'bench', $1, 'conversation ' || g, $3 FROM generate_series(1, $2) g`,
      [USER, CONVERSATIONS, TURNS],
    );
    await c.query(
      `INSERT INTO messages (project_id, id, conversation_id, query, answer)
       SELECT 'default', gen_random_uuid(), c.id, 'question ' || g || ' ' || md5(random()::text), 'answer ' || md5(random()::text)
         FROM conversations c, generate_series(1, $2) g WHERE c.end_user_id = $1`,
      [USER, TURNS],
    );
    for (const [user, n] of [
      [USER, MEMORIES],
      ...Array.from({ length: 20 }, (_, i) => [`bench-other-${i}`, Math.ceil(OTHERS / 20)] as const),
    ] as const) {
      await c.query(
        `INSERT INTO memories (project_id, id, user_id, memory_type, content, content_key)
         SELECT 'default', gen_random_uuid(), $1, 'fact', 'fact ' || g || ' ' || md5($1 || g), 'fact ' || g || ' ' || md5($1 || g)
           FROM generate_series(1, $2) g`,
        [user, n],
      );
    }
    await c.query(
      `INSERT INTO memory_events (project_id, id, memory_id, event_type, actor, after)
       SELECT 'default', gen_random_uuid(), m.id, 'create', 'api', jsonb_build_object('content', m.content) FROM memories m`,
    );
    // Random unit-ish vectors (one per memory: the subquery refers to the row).
    await c.query(
      `INSERT INTO memory_embeddings (project_id, memory_id, model, user_id, dimensions, embedding)
       SELECT 'default', m.id, 'lexical-hash-v1', m.user_id, 256,
              (SELECT array_agg(random() - 0.5) FROM generate_series(1, 256) WHERE m.id IS NOT NULL)::vector
         FROM memories m`,
    );
    await c.query("ANALYZE");
    console.log(`filled in ${((now() - t) / 1000).toFixed(1)} s`);
  } finally {
    await c.end();
  }
}

runMain("bench:erase", async (cleanup) => {
  printMachine();
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.MEMSCOPE_TEST_POSTGRES_URL;
  if (!serverUrl) throw new Error("Needs PostgreSQL: BENCH_DATABASE_URL or MEMSCOPE_TEST_POSTGRES_URL");
  const db = await freshPostgres(serverUrl);
  cleanup(() => db.drop());
  // Migrated by a first start; filled in SQL; then the server that erases.
  const first = await startServer({ DATABASE_URL: db.url, MEMSCOPE_USER_VECTOR_INDEX_MIN: "0" });
  await first.stop();
  await fill(db.url);
  const server = await startServer({ DATABASE_URL: db.url, MEMSCOPE_USER_VECTOR_INDEX_MIN: "0" });
  cleanup(() => server.stop());

  const dry = await postJson<{ counts: Record<string, number>; total: number }>(`${server.base}/api/v1/users/${USER}/erase`, { dry_run: true });
  console.log(`rows of the user: ${dry.json.total}`, dry.json.counts);

  const ready: number[] = [];
  let erasing = true;
  const poll = (async () => {
    while (erasing) {
      const t = now();
      await fetch(`${server.base}/api/v1/ready`).then((r) => r.text());
      ready.push(now() - t);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const t = now();
  const r = await postJson<{ receipt: { total: number; probes: { passed: boolean } } }>(`${server.base}/api/v1/users/${USER}/erase`, { confirm: true });
  const seconds = (now() - t) / 1000;
  erasing = false;
  await poll;
  if (r.status !== 200) throw new Error(`erase answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
  ready.sort((a, b) => a - b);
  console.log(
    `erased ${r.json.receipt.total} rows in ${seconds.toFixed(1)} s (target < 60 s); probes passed: ${r.json.receipt.probes.passed}; ` +
      `/ready during it: n=${ready.length} p50=${percentile(ready, 50).toFixed(1)} ms p99=${percentile(ready, 99).toFixed(1)} ms (target < 100 ms)`,
  );
});
