// npm run bench:erase
//
// Erasure of a large end user (issue 24): a user with BENCH_MEMORIES (100 000) memories, each
// with a vector and a history event, and BENCH_CONVERSATIONS (2 000) conversations of
// BENCH_TURNS (100) turns, beside BENCH_OTHERS (20 000) memories of other users, on
// PostgreSQL. Data is written in SQL (the bench measures the erasure, not the writes); the
// erasure goes through the production server's POST /users/{id}/erase. Meanwhile /ready is
// polled every 50 ms.
// Targets: erasure under 60 s; /ready p99 under 100 ms meanwhile.
// Prints the load average before and after (a figure taken on a loaded machine is
// pessimistic: run it on a quiet one with `nice -n 5 npm run bench:erase`), the total, the
// time per stage (the receipt's stages_ms: each table's deletes, the probes, ...), /ready at
// rest and during the erasure, and the targets.
// PostgreSQL: BENCH_DATABASE_URL, else MEMSCOPE_TEST_POSTGRES_URL (a fresh database is created
// on that server and dropped afterwards).

import os from "node:os";
import { now, percentile, postJson, printMachine, runMain } from "./lib/common";
import { fill, USER } from "./lib/erase-dataset";
import { freshPostgres, startServer } from "./lib/serve-process";

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");

runMain("bench:erase", async (cleanup) => {
  printMachine();
  console.log(`load average (1, 5, 15 min) at start: ${load()}`);
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

  // /ready every 50 ms until `until` resolves: its latencies, sorted.
  const pollReady = async (until: Promise<unknown>) => {
    const out: number[] = [];
    let on = true;
    void until.finally(() => (on = false));
    while (on) {
      const t = now();
      await fetch(`${server.base}/api/v1/ready`).then((r) => r.text());
      out.push(now() - t);
      await new Promise((r) => setTimeout(r, 50));
    }
    return out.sort((a, b) => a - b);
  };
  // The same polling for 10 s with nothing else running: what this machine gives at rest (a
  // shared or loaded machine's own p99), to read the figure during the erasure against.
  const idle = await pollReady(new Promise((r) => setTimeout(r, 10_000)));
  console.log(`/ready at rest: n=${idle.length} p50=${percentile(idle, 50).toFixed(1)} ms p99=${percentile(idle, 99).toFixed(1)} ms`);

  let stopPoll!: () => void;
  const poll = pollReady(new Promise<void>((r) => (stopPoll = r)));
  const t = now();
  const loadBefore = load();
  const r = await postJson<{ receipt: { total: number; probes: { passed: boolean }; stages_ms?: Record<string, number> } }>(
    `${server.base}/api/v1/users/${USER}/erase`,
    { confirm: true },
  );
  const seconds = (now() - t) / 1000;
  stopPoll();
  const ready = await poll;
  if (r.status !== 200) throw new Error(`erase answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
  console.log("time per stage (the receipt's stages_ms, longest first):");
  const stages = Object.entries(r.json.receipt.stages_ms ?? {}).sort((a, b) => b[1] - a[1]);
  for (const [stage, ms] of stages) console.log(`  ${(ms / 1000).toFixed(2).padStart(7)} s  ${stage}`);
  const p99 = percentile(ready, 99);
  console.log(`load average (1, 5, 15 min) before the erasure: ${loadBefore}; after: ${load()}`);
  console.log(`erased ${r.json.receipt.total} rows; probes passed: ${r.json.receipt.probes.passed}`);
  console.log(`erasure: ${seconds.toFixed(1)} s (target < 60 s: ${seconds < 60 ? "met" : "missed"})`);
  console.log(
    `/ready during it: n=${ready.length} p50=${percentile(ready, 50).toFixed(1)} ms p99=${p99.toFixed(1)} ms max=${ready[ready.length - 1]?.toFixed(1)} ms ` +
      `(target < 100 ms: ${p99 < 100 ? "met" : "missed"}; at rest p99 ${percentile(idle, 99).toFixed(1)} ms)`,
  );
});
