// npx tsx --conditions=react-server bench/diag/huge-record-stall.ts
//
// The longest event-loop stall while one ~60 MB single-conversation ChatGPT record is
// imported in-process on PGlite, and which step it falls in (parse, count, write).

import { openDatabase } from "../../lib/db/open-database";
import { projectSql } from "../../lib/db/project-sql";
import { parseImportText } from "../../lib/imports/parse-import";
import { ImportRun } from "../../lib/imports/run-import";
import { makeTempDir, now, removeDir, runMain } from "../lib/common";

runMain("diag:huge-record-stall", async (cleanup) => {
  const dir = makeTempDir("memscope-huge-record-");
  cleanup(() => removeDir(dir));
  // BENCH_POSTGRES_URL: the same on PostgreSQL (a fresh, empty database).
  const db = process.env.BENCH_POSTGRES_URL ? await openDatabase({ kind: "postgres", url: process.env.BENCH_POSTGRES_URL }) : await openDatabase({ kind: "pglite", dataDir: dir });
  cleanup(() => db.close());
  const sql = projectSql(db.sql, "default");
  const text = (i: number) => `${i} ${"lorem ipsum dolor sit amet ".repeat(3800)}`;
  const mapping: Record<string, unknown> = { root: { id: "root", message: null, parent: null, children: ["u0"] } };
  for (let t = 0; t < 300; t++) {
    mapping[`u${t}`] = { id: `u${t}`, parent: t ? `a${t - 1}` : "root", children: [`a${t}`], message: { id: `u${t}`, author: { role: "user" }, create_time: 1700000000 + 2 * t, content: { content_type: "text", parts: [text(2 * t)] } } };
    mapping[`a${t}`] = { id: `a${t}`, parent: `u${t}`, children: t < 299 ? [`u${t + 1}`] : [], message: { id: `a${t}`, author: { role: "assistant" }, create_time: 1700000001 + 2 * t, recipient: "all", content: { content_type: "text", parts: [text(2 * t + 1)] } } };
  }
  const body = JSON.stringify([{ id: "huge-record", title: "one huge conversation", create_time: 1700000000, mapping, current_node: "a299" }]);
  const parsed = parseImportText(body, "chatgpt");
  let last = now();
  let worst = 0;
  const stalls: { at: number; ms: number }[] = [];
  const t0 = now();
  const timer = setInterval(() => {
    const t = now();
    const gap = t - last - 20;
    if (gap > 100) stalls.push({ at: Math.round(t - t0), ms: Math.round(gap) });
    worst = Math.max(worst, gap);
    last = t;
  }, 20);
  process.env.MEMSCOPE_INCIDENTS = process.env.MEMSCOPE_INCIDENTS ?? "on";
  const run = new ImportRun(sql, { dryRun: false });
  await run.add(parsed);
  const imported = now() - t0;
  await new Promise((r) => setTimeout(r, 15_000)); // background work the import set off (incident detection)
  clearInterval(timer);
  console.log(`imported in ${Math.round(imported)} ms`);
  for (const t of ["messages", "conversations"]) {
    const a0 = now();
    await db.sql.exec(`ANALYZE ${t}`);
    console.log(`ANALYZE ${t} afterwards: ${Math.round(now() - a0)} ms`);
  }
  console.log(`import ${Math.round(now() - t0)} ms, counts ${JSON.stringify(run.counts)}; worst stall ${Math.round(worst)} ms; stalls > 100 ms: ${JSON.stringify(stalls)}`);
});
