// npx tsx --conditions=react-server bench/diag/evals-import-profile.ts [MB=3]
//
// Where a LongMemEval-format import spends its time, in process on a fresh PGlite folder:
// the generated file (bench/lib/longmemeval-file.ts) imported with importBenchmark, the
// seconds per record printed. Run under `node --cpu-prof` for the functions.
import fs from "node:fs";
import path from "node:path";
import { openDatabase } from "../../lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import { importBenchmark } from "../../lib/evals/import-benchmark";
import { createSet } from "../../lib/evals/sets-db";
import { makeTempDir, now, removeDir, runMain } from "../lib/common";
import { writeLongMemEvalFile } from "../lib/longmemeval-file";

runMain("diag:evals-import-profile", async (cleanup) => {
  const dir = makeTempDir("memscope-evals-import-profile-");
  cleanup(() => removeDir(dir));
  const file = path.join(dir, "lme.json");
  const f = await writeLongMemEvalFile(file, Number(process.argv[2] || 3));
  const db = await openDatabase({ kind: "pglite", dataDir: path.join(dir, "db") });
  cleanup(() => db.close());
  const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
  const set = await createSet(sql, { name: "profile" });
  const t0 = now();
  let last = t0;
  const s = await importBenchmark(sql, set.id, {
    format: "longmemeval",
    chunks: fs.createReadStream(file, { highWaterMark: 1 << 20 }), // bytes, as the upload reads them
    extraction: (process.env.EXTRACTION as "rules" | "turns") || "rules",
    onRecord: (x) => {
      const t = now();
      if (x.cases % 5 === 0) { const m = process.memoryUsage(); const f = (v: number) => (v / 1048576).toFixed(0); console.log(`record ${x.cases}: ${(t - last).toFixed(0)} ms, rss ${f(m.rss)} heapUsed ${f(m.heapUsed)} heapTotal ${f(m.heapTotal)} external ${f(m.external)} arrayBuffers ${f(m.arrayBuffers)} MB`); }
      last = t;
    },
  });
  const secs = (now() - t0) / 1000;
  console.log(`${(f.bytes / 1048576).toFixed(1)} MB, ${f.questions} records: ${JSON.stringify(s)} in ${secs.toFixed(1)} s (${(f.bytes / 1048576 / secs).toFixed(3)} MB/s)`);
});
