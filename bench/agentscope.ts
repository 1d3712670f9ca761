// npm run bench:agentscope
//
// auto_context (AgentScope v1.0.12 AutoContextMemory) without a chat model:
// 1. the preview of a 200-message tool-heavy history, p95 over BENCH_N runs on fresh
//    copies; target < 100 ms. Two sizes of tool results (about 1.4 KB and 3.8 KB on
//    average), and two scopes: the AgentScope port alone (compression + hook), and all
//    of POST /window's work (plus Memscope's tiktoken totals of the result);
// 2. the replay of the 646-turn demo conversation ("Trip companion") as /context runs
//    it: thread read from the embedded database + compression before each of its model
//    calls + assembly; target < 1 s; and the same for the tool-agent demo.
// Knobs (env): BENCH_N (200).

import { assembleContext } from "../lib/context/assemble-context";
import { DEFAULT_PROJECT_ID, projectSql } from "../lib/db/project-sql";
import { ZContextInput } from "../lib/context/schemas";
import { openDatabase } from "../lib/db/open-database";
import { DEMO_IDS } from "../lib/db/seed/demo-data";
import { TOOL_AGENT_DEMO_ID } from "../lib/db/seed/demo-tool-agent";
import { seedDemo } from "../lib/db/seed/seed-if-empty";
import { applyStrategy } from "../lib/strategies/apply-strategy";
import { runAutoContext } from "../lib/strategies/agentscope/run-auto-context";
import { placeholderSummarizer } from "../lib/strategies/agentscope/summarize-placeholder";
import { ZAutoContextStrategy, type RoleMessage } from "../lib/strategies/schemas";
import { makeTempDir, ms, now, printMachine, removeDir, runMain, stats } from "./lib/common";

const N = Number(process.env.BENCH_N || 200);
const WARMUP = 20;

/** 200 messages: rounds of a question, 6 to 9 tool calls with results of `minLines` to `minLines + spread` lines of ~40 characters, an answer. */
function toolHeavyHistory(size: number, minLines: number, spread: number): RoleMessage[] {
  let seed = 7;
  const r = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const out: RoleMessage[] = [];
  let round = 0;
  while (out.length < size) {
    round++;
    out.push({ role: "user", content: `Round ${round}: check the ${["payments", "inventory", "checkout"][round % 3]} service and report.` });
    const calls = 6 + Math.floor(r() * 4);
    for (let k = 0; k < calls && out.length < size - 1; k++) {
      const id = `call_${round}_${k}`;
      out.push({ role: "assistant", content: "", tool_calls: [{ id, name: ["read_file", "query_logs", "grep"][k % 3], arguments: JSON.stringify({ path: `src/mod${k}.ts`, since: "08:00" }) }] });
      out.push({ role: "tool", tool_call_id: id, content: `line ${round}.${k}: latency_ms=${Math.floor(r() * 900)} status=200\n`.repeat(minLines + Math.floor(r() * spread)) });
    }
    out.push({ role: "assistant", content: `Round ${round} done: nothing unusual in the logs.` });
  }
  out.length = size;
  if (out.at(-1)!.role === "assistant" && !out.at(-1)!.tool_calls) out[size - 1] = { role: "user", content: "And now?" };
  return out;
}

runMain("bench:agentscope", async (cleanup) => {
  printMachine();
  delete process.env.MEMSCOPE_CHAT_BASE_URL; // without a model: placeholders, no calls

  // 1. Preview of a 200-message tool-heavy history.
  const strategy = ZAutoContextStrategy.parse({ type: "auto_context" });
  const summary = { summarize: placeholderSummarizer, model: null, counts: () => ({ calls: 0, cached: 0 }) };
  console.log(`\n=== auto_context preview of a 200-message tool-heavy history, AgentScope defaults, no model, N=${N} each (fresh copies: no cached counts) ===`);
  console.log(`| tool results | history chars | strategy applied | port p50 ms | port p95 ms | /window work p50 ms | /window work p95 ms | p95 vs 100 ms (port / whole) |`);
  for (const [label, minLines, spread] of [
    ["~1.4 KB avg", 10, 50],
    ["~3.8 KB avg", 20, 150],
  ] as const) {
    const history = toolHeavyHistory(200, minLines, spread);
    const chars = history.reduce((n, m) => n + (typeof m.content === "string" ? m.content.length : 0), 0);
    let fired = "";
    const port: number[] = [];
    const whole: number[] = [];
    for (let i = 0; i < WARMUP + N; i++) {
      let copy = structuredClone(history);
      let t = now();
      const r = await runAutoContext(copy, strategy, summary);
      if (i >= WARMUP) port.push(now() - t);
      fired = r.report.steps.map((st) => `${st.strategy ?? "none"} (${st.messages_before} -> ${st.messages_after} msgs)`).join(", ");
      copy = structuredClone(history);
      t = now();
      await applyStrategy(copy, strategy, { model: "gpt-4o" });
      if (i >= WARMUP) whole.push(now() - t);
    }
    const p = stats(port);
    const w = stats(whole);
    const verdict = (x: number) => (x < 100 ? "met" : "MISSED");
    console.log(`| ${label} | ${(chars / 1000).toFixed(0)} K | ${fired} | ${ms(p.p50)} | ${ms(p.p95)} | ${ms(w.p50)} | ${ms(w.p95)} | ${verdict(p.p95)} / ${verdict(w.p95)} |`);
  }

  // 2. Replays through /context's assembly on the seeded demo database.
  const dir = makeTempDir("memscope-bench-agentscope-");
  cleanup(() => removeDir(dir));
  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  cleanup(() => db.close());
  await seedDemo(db);
  console.log(`\n=== auto_context replay of stored conversations via assembleContext (embedded database), no model ===`);
  console.log(`| conversation | messages | model calls | calls compressed | strategies applied | p50 ms | p95 ms | max ms | target |`);
  for (const [name, id, user] of [
    ["Trip companion (646 turns)", DEMO_IDS.long, "ana@example.com"],
    ["Checkout outage (tool agent)", TOOL_AGENT_DEMO_ID, "sam@example.com"],
  ] as const) {
    const input = ZContextInput.parse({ user_id: user, conversation_id: id, query: "What did we decide?", strategy: { type: "auto_context" }, memory: { enabled: false } });
    const times: number[] = [];
    let last: Awaited<ReturnType<typeof assembleContext>> | null = null;
    for (let i = 0; i < 3 + 20; i++) {
      const t = now();
      last = await assembleContext(projectSql(db.sql, DEFAULT_PROJECT_ID), input);
      if (i >= 3) times.push(now() - t);
    }
    const s = stats(times);
    const ac = last!.auto_context!;
    const used = [...new Set(ac.steps.map((x) => x.strategy))].join(", ") || "none";
    console.log(`| ${name} | ${last!.messages.length} | ${ac.calls} | ${ac.steps.length} | ${used} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.max)} | ${s.p95 < 1000 ? "met (< 1 s)" : "MISSED"} |`);
  }
});
