// npx tsx --conditions=react-server bench/diag/incidents-scan-steps.ts
// Where a backfill scan's time goes, statement by statement, on a dataset kept between runs:
// DATA (a folder: PGlite's data, loaded once with COPIES labelled-set copies and N filler
// conversations, then copied for each run) or PG_URL (PostgreSQL, loaded when empty). Statements
// run one at a time through a wrapper that times each from its start (not its wait), grouped by
// their first words; then the process's CPU seconds per 1 000 turns and the event loop's
// lateness (a 20 ms timer: what a request waits). EXPLAIN=1 prints the plans of one batch.
import os from "node:os";
import { startScan, getScan } from "../../lib/incidents/scan-job";
import { mainThreadCpu, openScanDataSet } from "../lib/incident-scan-data";
import { removeDir } from "../lib/common";

const url = process.env.PG_URL;
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const mainCpu = mainThreadCpu;
(async () => {
  const { db, base, dir } = await openScanDataSet(url, "inc-steps-");
  const times = new Map<string, { n: number; ms: number; rows: number; max: number; cpu: number }>();
  let chain: Promise<unknown> = Promise.resolve();
  let explained = 0;
  let stmtCpu = 0;
  const sql = {
    ...base,
    query: (text: string, params?: unknown[]) => {
      const next = chain.then(async () => {
        if (process.env.EXPLAIN && explained < 12 && /^\s*(SELECT|WITH)/.test(text)) {
          explained++;
          const plan = await base.query<Record<string, string>>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params as never);
          console.log(`---- ${text.replace(/\s+/g, " ").slice(0, 100)}\n${plan.map((r) => Object.values(r)[0]).join("\n")}`);
        }
        const t0 = performance.now();
        const u0 = cpu();
        const r = await base.query(text, params as never);
        const took = performance.now() - t0;
        const used = cpu() - u0;
        stmtCpu += used;
        const k = text.replace(/\s+/g, " ").trim().slice(0, 60);
        const e = times.get(k) ?? { n: 0, ms: 0, rows: 0, max: 0, cpu: 0 };
        e.cpu += used;
        e.n++;
        e.ms += took;
        e.max = Math.max(e.max, took);
        e.rows += (r as unknown[]).length;
        times.set(k, e);
        return r;
      });
      chain = next.catch(() => {});
      return next;
    },
  } as typeof base;
  for (let rep = 0; rep < Number(process.env.REPS || 1); rep++) {
    if (rep) await base.query(`DELETE FROM incidents WHERE project_id = 'default'`);
    times.clear();
    stmtCpu = 0;
    const lag: number[] = [];
    let stop = false;
    const probe = (async () => {
      while (!stop) {
        const t0 = performance.now();
        await new Promise((r) => setTimeout(r, 20));
        lag.push(performance.now() - t0 - 20);
      }
    })();
    const c0 = cpu();
    const m0 = mainCpu();
    const w0 = performance.now();
    const job = await startScan(sql, {}, { embedded: !url });
    let st = await getScan(base, job.id);
    while (st.status === "running") {
      await new Promise((r) => setTimeout(r, 50));
      st = await getScan(base, job.id);
    }
    const wall = (performance.now() - w0) / 1000;
    const c = cpu() - c0;
    const m = mainCpu() - m0;
    stop = true;
    await probe;
    lag.sort((a, b) => a - b);
    const total = [...times.values()].reduce((s, e) => s + e.ms, 0);
    for (const [k, e] of [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, 14))
      console.log(`  ${e.ms.toFixed(0).padStart(6)} ms (CPU ${(e.cpu * 1000).toFixed(0).padStart(5)}) ${String(e.n).padStart(5)}x max ${e.max.toFixed(0).padStart(4)} ${String(e.rows).padStart(7)} rows  ${k}`);
    console.log(
      `scan ${rep} (${url ? "PostgreSQL" : "PGlite"}): ${st.status} ${st.turns_scanned} turns, ${st.incidents_found} found, wall ${wall.toFixed(2)} s = ${(st.turns_scanned / wall).toFixed(0)} turns/s; ` +
        `statements ${(total / 1000).toFixed(2)} s (CPU ${stmtCpu.toFixed(2)} s); CPU ${c.toFixed(2)} s (main thread ${m.toFixed(2)} s = ${((1000 * m) / st.turns_scanned).toFixed(3)} s per 1 000 turns); ` +
        `lag p50 ${lag[Math.floor(lag.length / 2)].toFixed(1)} p99 ${lag[Math.floor(lag.length * 0.99)].toFixed(1)} max ${lag[lag.length - 1].toFixed(1)} ms; load ${os.loadavg()[0].toFixed(1)}`,
    );
  }
  await db.close();
  if (dir) removeDir(dir);
})();
