import { randomUUID } from "node:crypto";
import type { openDatabase } from "../../lib/db/open-database";
import { makeMemoryGenerator } from "./memory-text";

// bench:as-of's data set: memories with their full history, as the writers leave it.

export const AS_OF_USER = "bench-as-of-user";
const DAY = 86_400_000;

/**
 * Memories and their history in bulk, as the writers would have left them: a create event,
 * then PER - 1 edits (importance and confidence move, content changes every fifth), each
 * event's before = the previous after, the live row = the last after. Other users get a
 * share of memories too, so the user's rows are not the whole table.
 */
export async function loadAsOfDataset(db: Awaited<ReturnType<typeof openDatabase>>, o: { start: number; memories: number; perMemory: number; otherUsers: number }) {
  const { start, memories: MEMORIES, perMemory: PER, otherUsers: OTHER_USERS } = o;
  const USER = AS_OF_USER;
  const gen = makeMemoryGenerator(7);
  const span = 30 * DAY;
  const users = [USER, ...Array.from({ length: OTHER_USERS }, (_, i) => `bench-as-of-other-${i}`)];
  for (const user of users) {
    const count = user === USER ? MEMORIES : Math.ceil(MEMORIES / 10);
    for (let from = 0; from < count; from += 1000) {
      const n = Math.min(1000, count - from);
      const rows = Array.from({ length: n }, () => ({ id: randomUUID(), ...gen() }));
      await db.sql.transaction(async (tx) => {
        // The state after edit g (1-based version g): content gets a suffix every fifth version.
        await tx.query(
          `CREATE TEMP TABLE IF NOT EXISTS bench_src (id uuid, t text, c text, i float8, created timestamptz) ON COMMIT DELETE ROWS`,
        );
        await tx.query(
          `INSERT INTO bench_src SELECT u.id, u.t, u.c, u.i, $5::timestamptz + (random() * $6::float8) * interval '1 millisecond'
             FROM unnest($1::uuid[], $2::text[], $3::text[], $4::float8[]) AS u(id, t, c, i)`,
          [rows.map((r) => r.id), rows.map((r) => r.memory_type), rows.map((r) => r.content), rows.map((r) => r.importance), new Date(start).toISOString(), span / 4],
        );
        const state = (g: string) => `jsonb_build_object('memory_type', s.t, 'content', s.c || CASE WHEN ${g} >= 5 THEN ' (v' || (${g} / 5 * 5) || ')' ELSE '' END,
            'structured_data', NULL, 'importance_score', ((s.i * 10)::int + ${g}) % 11 / 10.0, 'confidence', 0.5 + (${g} % 5) / 10.0, 'status', 'active', 'version', ${g})`;
        const at = (g: string) => `s.created + (${g} - 1) * interval '1 hour' * (${span / 3600000 / 2} / ${PER})`;
        await tx.query(
          // superseded_at given (the next edit's time), as a writer that chains its own rows
          // may: the insert trigger then only checks it (migration 20261126140000).
          `INSERT INTO memory_events (id, memory_id, user_id, event_type, actor, before, after, created_at, project_id, superseded_at)
           SELECT gen_random_uuid(), s.id, $1, CASE WHEN g = 1 THEN 'create' ELSE 'update' END, 'api',
                  CASE WHEN g = 1 THEN NULL ELSE ${state("(g - 1)")} END, ${state("g")}, ${at("g")}, 'default',
                  CASE WHEN g < ${PER} THEN ${at("(g + 1)")} END
             FROM bench_src s, generate_series(1, ${PER}) AS g`,
          [user],
        );
        await tx.query(
          `INSERT INTO memories (id, user_id, memory_type, content, content_key, importance_score, confidence, version, created_at, updated_at)
           SELECT s.id, $1, s.t::memory_type, x.after->>'content', '', (x.after->>'importance_score')::float8, (x.after->>'confidence')::float8, ${PER},
                  s.created, ${at(String(PER))}
             FROM bench_src s CROSS JOIN LATERAL (SELECT ${state(String(PER))} AS after) x`,
          [user],
        );
      });
    }
  }
  await db.sql.query(`UPDATE memories SET content_key = lower(content) WHERE content_key = ''`, []);
  await db.sql.exec("ANALYZE");
}

