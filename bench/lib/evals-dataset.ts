import type { Database } from "../../lib/db/open-database";
import { now } from "./common";
import { loadPlan, type Plan } from "./memory-dataset";

// bench:evals' run data set, shared with bench/diag/evals-run-profile.ts: 100 users of
// 1 000 memories each (lexical vectors, no shared HNSW graph: users of 1 000 memories are
// searched by an exact scan of their rows), and the cases asked of it.

export const EVAL_PLAN: Plan = {
  scale: "1m",
  total: 100_000,
  users: Array.from({ length: 100 }, (_, i) => ({ user: `eval-user-${String(i).padStart(3, "0")}`, n: 1000, tier: "u1k" })),
};

export type BenchCase = { user_id: string; question: string; expected: { memory_ids: string[]; turns: never[]; texts: string[] }; tags: string[] };

/** Seeds `db` with EVAL_PLAN unless it already holds it (seeding takes minutes: keep the folder). */
export async function seedEvalPlan(db: Database, dir: string): Promise<void> {
  const [{ n }] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM memories`);
  if (n >= EVAL_PLAN.total) {
    console.log(`reusing the ${n} memories seeded in ${dir}`);
    return;
  }
  const t0 = now();
  await loadPlan(db, EVAL_PLAN, 5000, { postgres: false, buildIndex: false });
  console.log(`seeded 100 000 memories of 100 users in ${((now() - t0) / 1000).toFixed(1)} s`);
}

/** `count` cases, each asking for one memory with the first words of its text (expected: that id). */
export async function pickCases(db: Database, count: number): Promise<BenchCase[]> {
  const rows = await db.sql.query<{ id: string; user_id: string; content: string }>(`SELECT id, user_id, content FROM memories ORDER BY md5(id::text) LIMIT $1`, [count]);
  return rows.map((r) => ({ user_id: r.user_id, question: r.content.split(/\s+/).slice(0, 6).join(" "), expected: { memory_ids: [r.id], turns: [], texts: [] }, tags: [] }));
}
