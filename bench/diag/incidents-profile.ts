// npx tsx --conditions=react-server bench/diag/incidents-profile.ts  (COPIES=n labelled-set copies, N filler conversations, PG_URL for PostgreSQL)
// Profiling aid for the backfill scan: detectConversations in-process over filler conversations.
import { openDatabase } from "../../lib/db/open-database";
import { projectSql } from "../../lib/db/project-sql";
import { DetectRun, detectConversations } from "../../lib/incidents/detect";
import { startScan, getScan } from "../../lib/incidents/scan-job";
import { loadFiller } from "../lib/incident-filler";
import { INCIDENT_SET, loadScenarios } from "../../tests/helpers/incident-set";
import { makeTempDir, removeDir } from "../lib/common";

const N = Number(process.env.N || 200);
const BATCH = Number(process.env.BATCH || 20);
(async () => {
  const dir = makeTempDir("inc-prof-");
  const url = process.env.PG_URL;
  const db = url ? await openDatabase({ kind: "postgres", url }) : await openDatabase({ kind: "pglite", dataDir: dir });
  const base = projectSql(db.sql, "default");
  const times = new Map<string, { n: number; ms: number; rows: number }>();
  const sql = {
    ...base,
    query: async (text: string, params?: unknown[]) => {
      const t0 = performance.now();
      const r = await base.query(text, params as never);
      const k = text.replace(/\s+/g, " ").slice(0, 70);
      const e = times.get(k) ?? { n: 0, ms: 0, rows: 0 };
      const took = performance.now() - t0;
      if (took > Number(process.env.SLOW || 150)) console.log(`slow ${took.toFixed(0)} ms ${(r as unknown[]).length} rows: ${k}`);
      e.n++; e.ms += took; e.rows += (r as unknown[]).length;
      times.set(k, e);
      return r;
    },
  } as typeof base;
  for (let c = 0; c < Number(process.env.COPIES || 0); c++) await loadScenarios(sql, INCIDENT_SET, { suffix: `c${c}` });
  await loadFiller(sql, N);
  await db.sql.exec("ANALYZE");
  const ids = (await sql.query<{ id: string }>(`SELECT id FROM conversations WHERE project_id = 'default' ORDER BY id`)).map((r) => r.id);
  const run = new DetectRun(sql);
  for (let rep = 0; rep < 2; rep++) {
    const tq = performance.now();
    const page = await sql.query(`SELECT c.id FROM conversations c WHERE c.project_id = $1 AND c.deleted_at IS NULL ORDER BY c.id LIMIT 20`, [sql.projectId]);
    console.log(`page query ${(performance.now() - tq).toFixed(1)} ms (${page.length})`);
    const t0 = performance.now();
    let turns = 0;
    for (let i = 0; i < ids.length; i += BATCH) turns += (await detectConversations(sql, ids.slice(i, i + BATCH), {}, run)).turns;
    const s = (performance.now() - t0) / 1000;
    for (const [k, e] of [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12)) console.log(`  ${e.ms.toFixed(0).padStart(6)} ms ${String(e.n).padStart(5)}x ${String(e.rows).padStart(7)} rows  ${k}`);
    times.clear();
    console.log(`rep ${rep}: ${turns} turns in ${s.toFixed(2)} s = ${(turns / s).toFixed(0)} turns/s`);
  }
  // The scan job as the server runs it, with the event loop's lateness sampled every 20 ms (what a request waits).
  for (let rep = 0; rep < 2; rep++) {
    const lag: number[] = [];
    let stop = false;
    const probe = (async () => {
      while (!stop) {
        const t0 = performance.now();
        await new Promise((r) => setTimeout(r, 20));
        lag.push(performance.now() - t0 - 20);
      }
    })();
    const job = await startScan(sql, {}, { embedded: !url });
    let st = await getScan(base, job.id);
    while (st.status === "running") {
      await new Promise((r) => setTimeout(r, 100));
      st = await getScan(base, job.id);
    }
    stop = true;
    await probe;
    lag.sort((a, b) => a - b);
    const sec = (Date.parse(st.finished_at!) - Date.parse(st.started_at)) / 1000;
    console.log(`scan ${rep}: ${st.status} ${st.turns_scanned} turns in ${sec.toFixed(2)} s = ${(st.turns_scanned / sec).toFixed(0)} turns/s; lag p50 ${lag[Math.floor(lag.length / 2)].toFixed(1)} p99 ${lag[Math.floor(lag.length * 0.99)].toFixed(1)} max ${lag[lag.length - 1].toFixed(1)} ms`);
  }
  await db.close();
  removeDir(dir);
})();
