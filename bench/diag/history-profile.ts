// npx tsx --conditions=react-server bench/diag/history-profile.ts
//
// Where GET /history spends its time, in-process (no HTTP): bench:load's request (a 640-turn
// thread, max_token_limit 100 000, message_limit 500, so every one of the newest 500 turns is
// sent) on a fresh PGlite folder: getHistory alone, and getHistory with the response's
// JSON.stringify, over BENCH_N calls.

import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import { openDatabase } from "../../lib/db/open-database";
import { insertTurns } from "../../lib/messages/insert-turns";
import { ZHistoryQuery, ZTurnInput } from "../../lib/messages/schemas";
import { getHistory } from "../../lib/window/get-history";
import { makeTempDir, now, removeDir, runMain, stats } from "../lib/common";
import { makeTurnGenerator } from "../lib/text";

const N = Number(process.env.BENCH_N || 200);

runMain("diag:history-profile", async (cleanup) => {
  const dir = makeTempDir("memscope-history-profile-");
  cleanup(() => removeDir(dir));
  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  cleanup(() => db.close());
  const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
  const [c] = await db.sql.query<{ id: string }>(`INSERT INTO conversations (id, app_id) VALUES (gen_random_uuid(), 'bench') RETURNING id`);
  const gen = makeTurnGenerator(640);
  for (let i = 0; i < 640; i += 320) await insertTurns(sql, c.id, Array.from({ length: 320 }, () => ZTurnInput.parse(gen())), { minimal: true });
  const q = ZHistoryQuery.parse({ max_token_limit: "100000", message_limit: "500" });

  for (const [label, withJson] of [["getHistory", false], ["getHistory + JSON.stringify", true]] as const) {
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < N; i++) {
      const t0 = now();
      const h = await getHistory(sql, c.id, q);
      if (withJson) bytes = JSON.stringify(h).length;
      times.push(now() - t0);
    }
    const s = stats(times.slice(10));
    console.log(`${label.padEnd(30)} p50 ${s.p50.toFixed(2)} ms  p95 ${s.p95.toFixed(2)} ms${bytes ? `  response ${(bytes / 1024).toFixed(0)} KiB` : ""}`);
  }
});
