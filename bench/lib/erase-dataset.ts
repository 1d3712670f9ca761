import { withPgClient } from "./pg-client";
import { now } from "./common";

// bench:erase's data set (bench/erase.ts, bench/diag/erase-profile.ts): one large end user
// (conversations of turns, memories each with a history event and a vector) beside other
// users' memories, written in SQL on an already migrated PostgreSQL database.

export const MEMORIES = Number(process.env.BENCH_MEMORIES || 100_000);
export const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS || 2_000);
export const TURNS = Number(process.env.BENCH_TURNS || 100);
export const OTHERS = Number(process.env.BENCH_OTHERS || 20_000);
export const USER = "bench-erase-user";

export async function fill(url: string) {
  await withPgClient(url, async (c) => {
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
    // Random unit-ish vectors (one per memory: the subquery refers to the row). The vector
    // indexes are dropped first and built again after: pgvector inserting 120 000 rows one by
    // one into an HNSW graph took over 10 minutes; a build over the filled table is a fraction.
    const vectorIndexes = await c.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE tablename = 'memory_embeddings' AND indexdef ILIKE '%USING hnsw%'`,
    );
    for (const ix of vectorIndexes.rows) await c.query(`DROP INDEX "${ix.name}"`);
    await c.query(
      `INSERT INTO memory_embeddings (project_id, memory_id, model, user_id, dimensions, embedding)
       SELECT 'default', m.id, 'lexical-hash-v1', m.user_id, 256,
              (SELECT array_agg(random() - 0.5) FROM generate_series(1, 256) WHERE m.id IS NOT NULL)::vector
         FROM memories m`,
    );
    await c.query("SET maintenance_work_mem = '512MB'"); // the graph in memory: a build without spilling
    for (const ix of vectorIndexes.rows) await c.query(ix.def);
    await c.query("ANALYZE");
    console.log(`filled in ${((now() - t) / 1000).toFixed(1)} s`);
  });
}

