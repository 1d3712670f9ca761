import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/lib/db/open-database";
import type { SqlRunner } from "@/lib/db/migrations";
import { startRetentionScheduler } from "@/lib/retention/scheduler";
import { freshDataDir } from "../helpers/fresh-data-dir";
import { removeDir } from "../helpers/temp-dir";

// The retention scheduler on a real (embedded) database: at rest it costs one query per check
// and nothing else; stopped (what SIGTERM does, scripts/serve.mjs) in the middle of a run, it
// ends that run between two batches: whole batches archived, each with its history event, the
// run recorded as incomplete, and no further check.

const MEMORIES = 2000; // 4 batches of 500

let db: Database;
let dir: string;
let queries: string[] = [];

/** The database with every statement the scheduler sends noted. */
function noting(sql: SqlRunner): SqlRunner {
  return {
    exec: (t) => (queries.push(t), sql.exec(t)),
    query: (t, p) => (queries.push(t), sql.query(t, p)),
    transaction: (fn) => sql.transaction((tx) => fn(noting(tx))),
  };
}

beforeAll(async () => {
  dir = await freshDataDir();
  db = await openDatabase({ kind: "pglite", dataDir: dir });
  await db.sql.query(
    `INSERT INTO memories (project_id, id, user_id, memory_type, content, content_key, created_at, updated_at)
     SELECT 'default', gen_random_uuid(), 'sched-user', 'fact', 'fact ' || g, 'fact ' || g, now() - interval '100 days', now() - interval '100 days'
       FROM generate_series(1, ${MEMORIES}) g`,
  );
  await db.sql.query(`INSERT INTO retention_rules (project_id, id, kind, days, enabled) VALUES ('default', gen_random_uuid(), 'archive_memories', 30, false)`);
}, 180_000);
afterAll(async () => {
  await db?.close();
  if (dir) removeDir(dir);
});

const count = async (text: string) => Number((await db.sql.query<{ n: number }>(text))[0].n);

describe("retention scheduler", () => {
  it("at rest: one query per check, for due rules", async () => {
    queries = [];
    const startedAt = performance.now();
    const stop = startRetentionScheduler({ ...db, sql: noting(db.sql) }, 50);
    // Until four checks ran (a loaded machine delays timers: a fixed 600 ms saw fewer), then:
    // never more queries than 50 ms ticks, so each check is one query and nothing spins.
    await expect.poll(() => queries.length, { timeout: 60_000, interval: 25 }).toBeGreaterThan(3);
    await stop();
    const ticks = (performance.now() - startedAt) / 50;
    expect(queries.length).toBeLessThanOrEqual(Math.floor(ticks) + 1);
    expect(new Set(queries.map((q) => q.replace(/\s+/g, " ").trim()))).toEqual(
      new Set(["SELECT * FROM retention_rules WHERE enabled AND next_run_at <= now() ORDER BY next_run_at LIMIT 100"]),
    );
  });

  it("stopped mid-run: whole batches done, the run recorded as incomplete, no check after", async () => {
    await db.sql.query(`UPDATE retention_rules SET enabled = true`);
    // The shutdown arrives as the first batch commits (a signal's timing, made exact).
    let stopping: Promise<void> | null = null;
    let stop: () => Promise<void> = async () => {};
    const firstBatchThenStop = (sql: SqlRunner): SqlRunner => ({
      exec: (t) => sql.exec(t),
      query: (t, p) => sql.query(t, p),
      transaction: async (fn) => {
        const r = await sql.transaction(fn);
        stopping ??= stop();
        return r;
      },
    });
    stop = startRetentionScheduler({ ...db, sql: firstBatchThenStop(db.sql) }, 20);
    const archived = () => count(`SELECT count(*)::int AS n FROM memories WHERE status = 'archived'`);
    const deadline = Date.now() + 60_000;
    while (!stopping) {
      if (Date.now() > deadline) throw new Error("no batch within 60 s");
      await new Promise((r) => setTimeout(r, 20));
    }
    await stopping;
    const done = await archived();
    expect(done).toBe(500);
    expect(await count(`SELECT count(*)::int AS n FROM memory_events WHERE event_type = 'archive' AND actor = 'system'`)).toBe(done);
    const [run] = await db.sql.query<{ details: any }>(`SELECT details FROM audit_events WHERE action = 'retention.run'`);
    expect(run.details).toMatchObject({ trigger: "schedule", complete: false, counts: { memories: done } });
    // Claimed for the day: due again tomorrow, not before.
    expect(await count(`SELECT count(*)::int AS n FROM retention_rules WHERE next_run_at > now() + interval '23 hours'`)).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(await archived()).toBe(done);
  }, 120_000);
});
