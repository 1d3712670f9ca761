// npx tsx --conditions=react-server bench/diag/context-profile.ts [data-dir]
//
// Where POST /context spends its time, in-process (no HTTP): the phases of
// assembleContext on bench:context's data set (500 turns, 10 000 memories). Pass a
// folder to keep the data set between runs; it is built there on the first run.

import fs from "node:fs";
import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import path from "node:path";
import { openDatabase } from "../../lib/db/open-database";
import { assembleContext } from "../../lib/context/assemble-context";
import { ZContextInput } from "../../lib/context/schemas";
import { loadThreadMessages } from "../../lib/context/load-thread-messages";
import { searchMemories } from "../../lib/memories/search-memories";
import { applyStrategy } from "../../lib/strategies/apply-strategy";
import { ZStrategy } from "../../lib/strategies/schemas";
import { savedPresets } from "../../lib/models/model-settings";
import { ZSearchInput } from "../../lib/memories/schemas";
import { makeTempDir, ms, now, removeDir, runMain, stats } from "../lib/common";
import { contextRequest, loadContextDataset } from "../lib/context-dataset";
import { makeQueryGenerator } from "../lib/memory-text";

const USER = "bench-context-user";
const N = Number(process.env.BENCH_N || 100);

runMain("diag:context-profile", async (cleanup) => {
  const given = process.argv[2];
  const dir = given ? path.resolve(given) : makeTempDir("memscope-ctx-profile-");
  if (!given) cleanup(() => removeDir(dir));
  const marker = path.join(dir, "bench-context.json");
  if (!fs.existsSync(marker)) {
    fs.mkdirSync(dir, { recursive: true });
    console.log(`building the data set in ${dir} ...`);
    fs.writeFileSync(marker, JSON.stringify(await loadContextDataset(dir, { turns: 500, memories: 10_000, user: USER })));
  }
  const { conversationId } = JSON.parse(fs.readFileSync(marker, "utf8")) as { conversationId: string };
  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  cleanup(() => db.close());
  const queries = makeQueryGenerator(99);

  const time = async (label: string, fn: () => Promise<unknown>) => {
    for (let i = 0; i < 10; i++) await fn();
    const samples: number[] = [];
    for (let i = 0; i < N; i++) {
      const t = now();
      await fn();
      samples.push(now() - t);
    }
    const s = stats(samples);
    console.log(`${label.padEnd(44)} p50 ${ms(s.p50).padStart(6)} ms   p95 ${ms(s.p95).padStart(6)} ms`);
  };

  const presets = await savedPresets(projectSql(db.sql, DEFAULT_PROJECT_ID));
  const history = await loadThreadMessages(projectSql(db.sql, DEFAULT_PROJECT_ID), conversationId, undefined, "o200k_base");
  const strategies = {
    token_buffer: { type: "token_buffer", max_token_limit: 2000 },
    message_window: { type: "message_window", max_attached_message_count: 10, history_message_truncate_enable: true },
    auto_context: { type: "auto_context" },
  } as const;

  await time("savedPresets", () => savedPresets(projectSql(db.sql, DEFAULT_PROJECT_ID)));
  await time("loadThreadMessages (500 turns)", () => loadThreadMessages(projectSql(db.sql, DEFAULT_PROJECT_ID), conversationId, undefined, "o200k_base"));
  await time("searchMemories k=10 dry run", () => searchMemories(projectSql(db.sql, DEFAULT_PROJECT_ID), USER, ZSearchInput.parse({ query: queries(), k: 10, dry_run: true }), { recordAccess: true }));
  for (const [name, strategy] of Object.entries(strategies)) {
    await time(`applyStrategy ${name}`, () => applyStrategy(history, ZStrategy.parse(strategy), { model: "gpt-4o", presets }));
  }
  for (const [name, strategy] of Object.entries(strategies)) {
    await time(`assembleContext ${name}`, () =>
      assembleContext(
        projectSql(db.sql, DEFAULT_PROJECT_ID),
        ZContextInput.parse(contextRequest(USER, conversationId, queries(), strategy)),
        { recordAccess: true },
      ),
    );
  }
});
