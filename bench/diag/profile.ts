// Diagnostics behind docs/benchmarks.md: where getHistory and insertTurns spend time.
// npx tsx --conditions=react-server bench/diag/profile.ts [turns]
import { openDatabase } from "../../lib/db/open-database";
import { createConversation } from "../../lib/conversations/conversation-store";
import { ZConversationCreate } from "../../lib/conversations/schemas";
import { insertTurns } from "../../lib/messages/insert-turns";
import { ZHistoryQuery, ZTurnInput } from "../../lib/messages/schemas";
import { getHistory } from "../../lib/window/get-history";
import { countTextAllEncodings } from "../../lib/tokens/count-tokens";
import { makeTurnGenerator } from "../lib/text";
import { makeTempDir, measure, ms, now, removeDir, stats } from "../lib/common";

const TURNS = Number(process.argv[2] || 20_000);
const dir = makeTempDir("memscope-bench-diag-");
const db = await openDatabase({ kind: "pglite", dataDir: dir });
try {
  const conv = await createConversation(db.prisma, ZConversationCreate.parse({ app_id: "diag" }));
  const gen = makeTurnGenerator(1);
  for (let s = 0; s < TURNS; s += 10_000) {
    const turns = Array.from({ length: Math.min(10_000, TURNS - s) }, () => ZTurnInput.parse(gen()));
    let t = now();
    for (const x of turns) { countTextAllEncodings(x.query); countTextAllEncodings(x.answer); }
    const tok = now() - t;
    t = now();
    await insertTurns(db.sql, conv.id, turns);
    const all = now() - t;
    console.log(`chunk ${turns.length}: insertTurns ${ms(all)} ms, of which tokenizing both encodings ~${ms(tok)} ms (${ms(tok / all * 100)}%)`);
  }
  const q = ZHistoryQuery.parse({ max_token_limit: 2000 });
  const show = async (label: string, fn: () => Promise<unknown>) => {
    const r = await measure(fn, { warmup: 20, n: 100 });
    const s = stats(r.samples);
    console.log(`${label.padEnd(60)} p50 ${ms(s.p50).padStart(7)}  p95 ${ms(s.p95).padStart(7)}`);
  };
  const SQL = (cols: string) => `SELECT ${cols} FROM messages WHERE conversation_id = $1 ORDER BY created_at DESC, seq DESC LIMIT 500`;
  const stat = await db.sql.query<{ reltuples: number; last_analyze: string | null; last_autoanalyze: string | null }>(
    `SELECT c.reltuples, s.last_analyze, s.last_autoanalyze FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = 'messages'`,
  );
  console.log("planner stats for messages:", stat[0]);
  await show("getHistory", () => getHistory(db.sql, conv.id, q));
  await show("SELECT all history columns", () => db.sql.query(SQL(`id, parent_message_id, query, answer, answer_tokens, query_tokens_o200k, answer_tokens_o200k, file_count`), [conv.id]));
  await show("SELECT id, parent_message_id only", () => db.sql.query(SQL(`id, parent_message_id`), [conv.id]));
  await show("SELECT count(*) of the same 500 (no transfer)", () => db.sql.query(`SELECT count(*) FROM (${SQL("1")}) s`, [conv.id]));
  await show("SELECT 1 (round-trip floor)", () => db.sql.query(`SELECT 1`));
  const plan = await db.sql.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${SQL("id, parent_message_id, query, answer")}`, [conv.id]);
  console.log(plan.map((r) => r["QUERY PLAN"]).join("\n"));
  console.log("n_mod_since_analyze:", (await db.sql.query(`SELECT n_mod_since_analyze, n_live_tup FROM pg_stat_user_tables WHERE relname = 'messages'`))[0]);
  console.log("\n--- after ANALYZE messages ---");
  let t = now();
  await db.sql.exec("ANALYZE messages");
  console.log(`ANALYZE took ${ms(now() - t)} ms`);
  await show("getHistory", () => getHistory(db.sql, conv.id, q));
  await show("SELECT all history columns", () => db.sql.query(SQL(`id, parent_message_id, query, answer, answer_tokens, query_tokens_o200k, answer_tokens_o200k, file_count`), [conv.id]));
  await show("SELECT id, parent, token counts (no text)", () => db.sql.query(SQL(`id, parent_message_id, answer_tokens, query_tokens_o200k, answer_tokens_o200k, file_count`), [conv.id]));
  const kept = (await getHistory(db.sql, conv.id, q)).thread_message_ids.slice(0, 17);
  await show("SELECT query, answer WHERE id = ANY(17 kept ids)", () => db.sql.query(`SELECT id, query, answer FROM messages WHERE id = ANY($1::uuid[])`, [kept]));
  const plan2 = await db.sql.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${SQL("id, parent_message_id, query, answer")}`, [conv.id]);
  console.log(plan2.map((r) => r["QUERY PLAN"]).join("\n"));
  t = now();
  const newest = await db.sql.query(`EXPLAIN ANALYZE SELECT id, created_at FROM messages WHERE conversation_id = $1 ORDER BY created_at DESC, seq DESC LIMIT 1`, [conv.id]);
  console.log(newest.map((r) => Object.values(r)[0]).join("\n"));
} finally {
  await db.close();
  removeDir(dir);
}
