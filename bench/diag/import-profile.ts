// npx tsx --conditions=react-server bench/diag/import-profile.ts
//
// Where an import spends its time, in-process (no HTTP, no job rows): parses a generated
// Dify Service API file (BENCH_SOURCES_TURNS, default 20 000) and an OpenAI JSONL file,
// runs ImportRun on a fresh PGlite folder, and prints turns/s with the token-counting
// share (the same texts counted alone, warm), and what one ANALYZE costs afterwards.

import { openDatabase } from "../../lib/db/open-database";
import { projectSql } from "../../lib/db/project-sql";
import { parseImportText } from "../../lib/imports/parse-import";
import { ImportRun } from "../../lib/imports/run-import";
import { countTextsAllEncodings } from "../../lib/tokens/count-tokens-parallel";
import { makeTempDir, now, removeDir, runMain } from "../lib/common";
import { difyFile, openaiFile } from "../lib/import-files";
import { makeTurnGenerator } from "../lib/text";

const TOTAL = Number(process.env.BENCH_SOURCES_TURNS || 20_000);
const OPENAI_TURNS = Number(process.env.BENCH_SOURCES_OPENAI_TURNS || 8_000);

runMain("diag:import-profile", async (cleanup) => {
  const dir = makeTempDir("memscope-import-profile-");
  cleanup(() => removeDir(dir));
  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  cleanup(() => db.close());
  const sql = projectSql(db.sql, "default");
  const gen = makeTurnGenerator(4242);

  for (const [label, text, format, turns] of [
    ["dify-api", difyFile(gen, TOTAL).text, "dify-api", TOTAL],
    ["openai", openaiFile(gen, OPENAI_TURNS), "openai", OPENAI_TURNS],
  ] as const) {
    let t0 = now();
    const parsed = parseImportText(text, format);
    const parseMs = now() - t0;
    const texts = parsed.conversations.flatMap((c) => c.turns.flatMap((t) => [t.query, t.answer]));
    await countTextsAllEncodings(texts.slice(0, 2000));
    t0 = now();
    await countTextsAllEncodings(texts);
    const tokMs = now() - t0;
    t0 = now();
    const run = new ImportRun(sql, { dryRun: false });
    await run.add(parsed);
    const runMs = now() - t0;
    if (run.counts.turns !== turns) throw new Error(`${label}: ${JSON.stringify(run.counts)} ${JSON.stringify(run.problems.slice(0, 3))}`);
    t0 = now();
    const again = new ImportRun(sql, { dryRun: false });
    await again.add(parsed);
    const againMs = now() - t0;
    t0 = now();
    await db.sql.exec("ANALYZE messages; ANALYZE conversations");
    const analyzeMs = now() - t0;
    console.log(
      `${label}: ANALYZE messages + conversations after it ${Math.round(analyzeMs)} ms; ${turns} turns in ${parsed.conversations.length} conversations; parse ${(parseMs / 1000).toFixed(2)} s; ` +
        `run ${(runMs / 1000).toFixed(2)} s = ${Math.round(turns / (runMs / 1000))} turns/s; tokens alone ${(tokMs / 1000).toFixed(2)} s ` +
        `(${Math.round(turns / (tokMs / 1000))} turns/s); re-run ${(againMs / 1000).toFixed(2)} s (skipped ${again.counts.skipped})`,
    );
  }
});
