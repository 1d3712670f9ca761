// BENCH_EVALS_DIR=/path npx tsx --conditions=react-server bench/diag/evals-run-profile.ts [CASES=1000]
//
// Where an eval run spends its time, in process on bench:evals' data folder (seeded there
// when empty: bench/lib/evals-dataset.ts): a set of CASES cases run with runEval, the time
// and count of each kind of statement, the process's CPU seconds, and how long the event
// loop was held (a 50 ms timer's lateness: what a /ready request would wait). Run under
// `node --cpu-prof` (NODE_OPTIONS) for the functions.
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { openDatabase } from "../../lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql, type ProjectSql } from "../../lib/db/project-sql";
import { runEval } from "../../lib/evals/run-eval";
import { addCases, createSet, deleteSet } from "../../lib/evals/sets-db";
import { makeTempDir, now, removeDir, runMain } from "../lib/common";
import { pickCases, seedEvalPlan } from "../lib/evals-dataset";

type Tally = { n: number; ms: number };

/** `sql` with each statement's time added to `tally` under its first words. */
function timed(sql: ProjectSql, tally: Map<string, Tally>): ProjectSql {
  const add = (text: string, ms: number) => {
    const key = text.replace(/\s+/g, " ").trim().slice(0, 90);
    const t = tally.get(key) ?? { n: 0, ms: 0 };
    t.n++;
    t.ms += ms;
    tally.set(key, t);
  };
  return {
    projectId: sql.projectId,
    actorLabel: sql.actorLabel,
    async exec(text) {
      const t = now();
      await sql.exec(text);
      add(text, now() - t);
    },
    async query(text, params) {
      const t = now();
      const r = await sql.query(text, params);
      add(text, now() - t);
      return r as never;
    },
    transaction: (fn) => sql.transaction((tx) => fn(timed(tx, tally))),
  };
}

runMain("diag:evals-run-profile", async (cleanup) => {
  const cases = Number(process.argv[2] || 1000);
  const kept = process.env.BENCH_EVALS_DIR;
  const dir = kept ? path.resolve(kept) : makeTempDir("memscope-evals-run-profile-");
  if (!kept) cleanup(() => removeDir(dir));
  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  cleanup(() => db.close());
  await seedEvalPlan(db, dir);
  const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
  const set = await createSet(sql, { name: `profile ${new Date().toISOString()}` });
  cleanup(() => deleteSet(sql, set.id));
  await addCases(sql, set.id, await pickCases(db, cases));
  const tally = new Map<string, Tally>();
  const lag = monitorEventLoopDelay({ resolution: 10 });
  const probes: number[] = [];
  let running = true;
  const probe = async () => {
    while (running) {
      const t = now();
      await new Promise((r) => setTimeout(r, 50));
      probes.push(now() - t - 50);
    }
  };
  const probing = probe();
  lag.enable();
  const cpu0 = process.cpuUsage();
  const t0 = now();
  const run = await runEval(timed(sql, tally), set.id, { config: { k: 10, protocol: "memscope", status: "active" } });
  const wall = now() - t0;
  const cpu = process.cpuUsage(cpu0);
  running = false;
  await probing;
  lag.disable();
  const sorted = [...probes].sort((a, b) => a - b);
  const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)].toFixed(0);
  console.log(`${cases} cases: wall ${(wall / 1000).toFixed(1)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; recall@10 ${run.metrics.overall.recall.value?.toFixed(3)}`);
  console.log(`50 ms timer lateness (a request's wait): n ${probes.length}, p50 ${p(0.5)}, p99 ${p(0.99)}, max ${sorted[sorted.length - 1].toFixed(0)} ms`);
  const rows = [...tally.entries()].sort((a, b) => b[1].ms - a[1].ms);
  const total = rows.reduce((s, [, t]) => s + t.ms, 0);
  console.log(`statements: ${rows.reduce((s, [, t]) => s + t.n, 0)}, ${(total / 1000).toFixed(1)} s`);
  for (const [k, t] of rows.slice(0, 15)) console.log(`${(t.ms / 1000).toFixed(2).padStart(7)} s ${String(t.n).padStart(6)} x ${(t.ms / t.n).toFixed(2).padStart(7)} ms  ${k}`);
});
