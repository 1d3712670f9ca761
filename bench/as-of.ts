// npm run bench:as-of
//
// The as-of list (GET /api/v1/users/{user_id}/memories?as_of=T, issue 22) of a user with
// 10 000 memories and 200 000 history events (a create and 19 edits each, spread over 30
// days), over HTTP against `next start` on the embedded database; T is drawn at random over
// the history. Target: p95 < 100 ms.
// Knobs (env): BENCH_MEMORIES (10 000), BENCH_EVENTS_PER_MEMORY (20), BENCH_N (200),
// BENCH_DATABASE_URL (a PostgreSQL database to load and serve instead of a PGlite folder;
// it must be empty), BENCH_DATA_DIR (a PGlite folder to load once and keep for re-runs),
// BENCH_OTHER_USERS (20: other users with a tenth of the memories each).

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../lib/db/open-database";
import { makeTempDir, ms, now, printMachine, removeDir, runMain, stats } from "./lib/common";
import { AS_OF_USER, loadAsOfDataset } from "./lib/as-of-dataset";
import { startBuiltServer } from "./lib/start-server-dist";

const MEMORIES = Number(process.env.BENCH_MEMORIES || 10_000);
const PER = Number(process.env.BENCH_EVENTS_PER_MEMORY || 20);
const N = Number(process.env.BENCH_N || 200);
const PG_URL = process.env.BENCH_DATABASE_URL;
const WARMUP = 20;
const USER = AS_OF_USER;
const OTHER_USERS = Number(process.env.BENCH_OTHER_USERS ?? 20);
const TARGET_P95 = 100;
const DAY = 86_400_000;
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" / ");

runMain("bench:as-of", async (cleanup) => {
  printMachine();
  console.log(`Load average at start (1 / 5 / 15 min): ${load()}`);
  // BENCH_DATA_DIR: load the data set into that folder once and keep it (re-runs skip the load).
  const kept = !PG_URL && process.env.BENCH_DATA_DIR ? path.resolve(process.env.BENCH_DATA_DIR) : null;
  const dir = kept ?? makeTempDir("memscope-bench-as-of-");
  if (!kept) cleanup(() => removeDir(dir));
  const marker = path.join(dir, "bench-as-of.json");
  let start = Date.now() - 31 * DAY;
  if (kept && fs.existsSync(marker)) {
    start = JSON.parse(fs.readFileSync(marker, "utf8")).start;
    console.log(`Reusing the data set in ${dir} (history from ${new Date(start).toISOString()})`);
  } else {
    fs.mkdirSync(dir, { recursive: true });
    const db = await openDatabase(PG_URL ? { kind: "postgres", url: PG_URL } : { kind: "pglite", dataDir: dir });
    console.log(`Loading ${MEMORIES.toLocaleString("en")} memories with ${(MEMORIES * PER).toLocaleString("en")} history events (and ${OTHER_USERS} other users with a tenth each) into ${PG_URL ? "PostgreSQL" : dir}`);
    const t0 = now();
    try {
      await loadAsOfDataset(db, { start, memories: MEMORIES, perMemory: PER, otherUsers: OTHER_USERS });
      const [{ n }] = await db.sql.query<{ n: string }>(`SELECT count(*) AS n FROM memory_events WHERE user_id = $1`, [USER]);
      console.log(`  loaded in ${((now() - t0) / 1000).toFixed(1)} s: ${Number(n).toLocaleString("en")} events of the user`);
    } finally {
      await db.close();
    }
    if (kept) fs.writeFileSync(marker, JSON.stringify({ start }));
  }

  const server = await startBuiltServer(dir, 90_000, "/api/v1/ready", PG_URL ? { DATABASE_URL: PG_URL } : {});
  cleanup(() => server.stop());
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const url = (t: number, extra = "") => `${server.base}/api/v1/users/${USER}/memories?as_of=${encodeURIComponent(new Date(t).toISOString())}${extra}`;
  const rows: { name: string; p50: number; p95: number; n: number }[] = [];
  const runs: [string, () => string][] = [
    ["as_of at a random instant, default sort (updated_at), limit 50", () => url(start + rnd() * 31 * DAY)],
    ["as_of at a random instant, sort=importance_score, status=all", () => url(start + rnd() * 31 * DAY, "&sort=importance_score&status=all")],
    ["as_of now (no event after it)", () => url(Date.now())],
    ["live list (no as_of), for comparison", () => `${server.base}/api/v1/users/${USER}/memories`],
  ];
  for (const [name, next] of runs) {
    for (let i = 0; i < WARMUP; i++) await fetch(next()).then((r) => r.text());
    const samples: number[] = [];
    let size = 0;
    for (let i = 0; i < N; i++) {
      const t = now();
      const r = await fetch(next());
      const body = (await r.json()) as { data: unknown[] };
      samples.push(now() - t);
      if (r.status !== 200) throw new Error(`GET answered ${r.status}: ${JSON.stringify(body).slice(0, 300)}`);
      size = body.data.length;
      // The loaded history is complete: every memory must be rebuilt exactly.
      const off = (body.data as { reconstructed?: boolean }[]).filter((m) => m.reconstructed === false).length;
      if (off) throw new Error(`${off} memories answered reconstructed: false: ${JSON.stringify(body.data.find((m: any) => m.reconstructed === false)).slice(0, 500)}`);
    }
    const st = stats(samples);
    rows.push({ name, p50: st.p50, p95: st.p95, n: size });
  }
  console.log(`\n=== as-of list over HTTP: ${MEMORIES.toLocaleString("en")} memories, ${(MEMORIES * PER).toLocaleString("en")} events, ${PG_URL ? "PostgreSQL" : "PGlite"}, N=${N} each ===`);
  console.log(`| request | p50 ms | p95 ms | rows | p95 vs ${TARGET_P95} ms target |`);
  for (const r of rows) {
    console.log(`| ${r.name} | ${ms(r.p50)} | ${ms(r.p95)} | ${r.n} | ${r.p95 < TARGET_P95 ? "met" : "MISSED"} (${Math.round((r.p95 / TARGET_P95) * 100)}%) |`);
  }
  console.log(`Load average at the end (1 / 5 / 15 min): ${load()}; target: the default list (first row) p95 < ${TARGET_P95} ms`);
});
