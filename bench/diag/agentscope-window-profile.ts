// Where POST /window's time goes for a 200-message tool-heavy auto_context preview
// (diagnostic, not a benchmark; `npx tsx --conditions=react-server bench/diag/agentscope-window-profile.ts`,
// N=30 by default): body parse, input guard, schema, the port, tiktoken
// totals, the offload insert, response check, response JSON.
import { checkJsonValue } from "../../lib/http/input-guard";
import { openDatabase } from "../../lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import { runAutoContext } from "../../lib/strategies/agentscope/run-auto-context";
import { placeholderSummarizer } from "../../lib/strategies/agentscope/summarize-placeholder";
import { listTokens } from "../../lib/strategies/message-tokens";
import { storeOffloads } from "../../lib/strategies/offloaded-contents";
import { ZWindowInput, ZWindowResult, type RoleMessage } from "../../lib/strategies/schemas";
import { makeTempDir, removeDir } from "../lib/common";
import { toolHeavyHistory } from "../lib/tool-heavy-history";

const summary = { summarize: placeholderSummarizer, model: null, counts: () => ({ calls: 0, cached: 0 }) };
const dir = makeTempDir("memscope-diag-window-");
const db = await openDatabase({ kind: "pglite", dataDir: dir });
const N = Number(process.env.N || 30);
for (const [minLines, spread] of [[8, 30], [16, 100]]) {
  const t: Record<string, number[]> = {};
  const add = (k: string, v: number) => (t[k] ??= []).push(v);
  for (let i = 0; i < N; i++) {
    const body = JSON.stringify({ messages: toolHeavyHistory(200, minLines, spread, i), strategy: { type: "auto_context" }, model: "gpt-4o" });
    let a = performance.now();
    const raw = JSON.parse(body);
    add("JSON.parse", performance.now() - a);
    a = performance.now();
    checkJsonValue(raw);
    add("input guard", performance.now() - a);
    a = performance.now();
    const input = ZWindowInput.parse(raw);
    add("body schema", performance.now() - a);
    a = performance.now();
    const r = await runAutoContext(input.messages as RoleMessage[], input.strategy as never, summary);
    add("port", performance.now() - a);
    a = performance.now();
    const total = listTokens(r.messages, "o200k_base");
    add("tiktoken total", performance.now() - a);
    a = performance.now();
    await storeOffloads(projectSql(db.sql, DEFAULT_PROJECT_ID), r.offloads ?? []);
    add("offload insert", performance.now() - a);
    const out = { messages: r.messages, total_tokens: total, dropped: r.dropped, transformed: r.transformed, triggered: r.triggered, auto_context: r.report, model: "gpt-4o", encoding: "o200k_base", context_window: 128000 };
    a = performance.now();
    ZWindowResult.safeParse(out);
    add("response schema (dev/test only)", performance.now() - a);
    a = performance.now();
    const s = JSON.stringify(out);
    add("response JSON", performance.now() - a);
    if (i === 0) console.log(`body ${(body.length / 1000).toFixed(0)} K chars, offloads ${r.offloads?.length}, ${r.report.steps.map((x) => x.strategy).join()}`);
  }
  for (const [k, v] of Object.entries(t)) {
    const s = v.slice(3).sort((x, y) => x - y);
    console.log(`${k.padEnd(36)} p50 ${s[Math.floor(s.length / 2)].toFixed(1)} ms  p95 ${s[Math.ceil(s.length * 0.95) - 1].toFixed(1)} ms`);
  }
}
await db.close();
removeDir(dir);
