// Where a scan's time goes: the detector over bench:incidents' filler on a fresh embedded
// database, in process, batch by batch (BENCH_FILLER conversations, default 100).
import { openDatabase } from "../../lib/db/open-database";
import { projectSql } from "../../lib/db/project-sql";
import { detectConversations, DetectRun } from "../../lib/incidents/detect";
import { makeTempDir, removeDir, runMain } from "../lib/common";
import { loadFiller } from "../lib/incident-filler";

runMain("incidents-profile", async (cleanup) => {
  const dir = makeTempDir("memscope-incidents-prof-");
  cleanup(() => removeDir(dir));
  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  cleanup(() => db.close());
  const sql = projectSql(db.sql, "default");
  await loadFiller(sql, Number(process.env.BENCH_FILLER || 100));
  await db.sql.exec("ANALYZE");
  const ids = (await sql.query<{ id: string }>(`SELECT id FROM conversations WHERE project_id = 'default' ORDER BY id`)).map((r) => r.id);
  const run = new DetectRun(sql);
  for (let i = 0; i < ids.length; i += 100) {
    const t0 = performance.now();
    const r = await detectConversations(sql, ids.slice(i, i + 100), {}, run);
    const ms = performance.now() - t0;
    console.log(`batch ${i / 100}: ${r.turns} turns, ${r.found} found in ${ms.toFixed(0)} ms = ${((r.turns / ms) * 1000).toFixed(0)} turns/s`);
  }
  const kinds = await sql.query<{ kind: string; n: string; example: string }>(`SELECT kind, count(*) AS n, min(evidence->>'query' || ' <- ' || (evidence->'memory'->>'content') || ' ' || (evidence->>'shared_words')) AS example FROM incidents WHERE project_id = 'default' GROUP BY kind`);
  for (const k of kinds) console.log(`${k.kind}: ${k.n} (${k.example})`);
});
