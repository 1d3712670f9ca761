// npm run bench:agentscope  (needs a production build: npx next build)
//
// auto_context (AgentScope v1.0.12 AutoContextMemory) without a chat model (placeholder
// summaries, so no model latency is in these figures):
// 1. the preview of a 200-message tool-heavy history, p95 over BENCH_N runs, each on a new
//    history (new text: no cached count of a message helps); target < 100 ms. Two sizes of
//    tool results, three scopes:
//    - port: the AgentScope port alone (compression + hook), in process;
//    - /window work: what POST /window's handler does, in process: the port, Memscope's
//      tiktoken total of the result, the offloaded originals written to the embedded database;
//    - HTTP: the whole POST /api/v1/window request against `next start` (the built app on
//      the embedded database): body read, input guard, schema, handler, JSON answer.
// 2. the replay of the 646-turn demo conversation ("Trip companion") as POST /context runs
//    it (thread read + compression before each of its model calls + assembly), in process
//    and over HTTP; target < 1 s; and the same for the tool-agent demo.
// Knobs (env): BENCH_N (200 in process, BENCH_HTTP_N = 100 over HTTP).

import os from "node:os";
import { assembleContext } from "../lib/context/assemble-context";
import { DEFAULT_PROJECT_ID, projectSql } from "../lib/db/project-sql";
import { ZContextInput } from "../lib/context/schemas";
import { openDatabase } from "../lib/db/open-database";
import { DEMO_IDS } from "../lib/demo/demo-data";
import { TOOL_AGENT_DEMO_ID } from "../lib/demo/demo-tool-agent";
import { seedDemo } from "../lib/demo/seed-if-empty";
import { runAutoContext } from "../lib/strategies/agentscope/run-auto-context";
import { placeholderSummarizer } from "../lib/strategies/agentscope/summarize-placeholder";
import { applyStrategy } from "../lib/strategies/apply-strategy";
import { storeOffloads } from "../lib/strategies/offloaded-contents";
import { ZAutoContextStrategy } from "../lib/strategies/schemas";
import { makeTempDir, ms, now, printMachine, removeDir, runMain, stats } from "./lib/common";
import { startBuiltServer } from "./lib/start-server-dist";
import { toolHeavyHistory } from "./lib/tool-heavy-history";

const N = Number(process.env.BENCH_N || 200);
const HTTP_N = Number(process.env.BENCH_HTTP_N || 100);
const WARMUP = 20;
const SIZES = [
  ["~1.5 KB avg", 8, 30],
  ["~4 KB avg", 16, 100],
] as const;
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" / ");
const verdict = (x: number, target: number) => (x < target ? "met" : "MISSED");

async function post(url: string, body: string): Promise<{ status: number; json: any }> {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  return { status: r.status, json: await r.json() };
}

runMain("bench:agentscope", async (cleanup) => {
  printMachine();
  console.log(`Load average at start (1 / 5 / 15 min): ${load()}`);
  delete process.env.MEMSCOPE_CHAT_BASE_URL; // without a model: placeholders, no calls

  const dir = makeTempDir("memscope-bench-agentscope-");
  cleanup(() => removeDir(dir));
  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  await seedDemo(db, DEFAULT_PROJECT_ID);
  const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);

  // 1a. In process.
  const strategy = ZAutoContextStrategy.parse({ type: "auto_context" });
  const summary = { summarize: placeholderSummarizer, model: null, counts: () => ({ calls: 0, cached: 0 }) };
  console.log(`\n=== auto_context preview of a 200-message tool-heavy history, AgentScope defaults, no model, in process, N=${N} each (a new history each run) ===`);
  console.log(`| tool results | history chars | strategy applied | port p50 ms | port p95 ms | /window work p50 ms | /window work p95 ms | p95 vs 100 ms (port / work) |`);
  let variant = 0;
  for (const [label, minLines, spread] of SIZES) {
    let fired = "";
    let chars = 0;
    const port: number[] = [];
    const work: number[] = [];
    for (let i = 0; i < WARMUP + N; i++) {
      const history = toolHeavyHistory(200, minLines, spread, ++variant);
      chars += history.reduce((n, m) => n + (typeof m.content === "string" ? m.content.length : 0), 0);
      let t = now();
      const r = await runAutoContext(structuredClone(history), strategy, summary);
      if (i >= WARMUP) port.push(now() - t);
      fired = r.report.steps.map((st) => `${st.strategy ?? "none"} (${st.messages_before} -> ${st.messages_after} msgs)`).join(", ");
      t = now();
      const w = await applyStrategy(history, strategy, { model: "gpt-4o" });
      await storeOffloads(sql, w.offloads);
      if (i >= WARMUP) work.push(now() - t);
    }
    const p = stats(port);
    const w = stats(work);
    console.log(`| ${label} | ${(chars / (WARMUP + N) / 1000).toFixed(0)} K | ${fired} | ${ms(p.p50)} | ${ms(p.p95)} | ${ms(w.p50)} | ${ms(w.p95)} | ${verdict(p.p95, 100)} / ${verdict(w.p95, 100)} |`);
  }
  console.log(`Load average: ${load()}`);

  // 2a. Replays through /context's assembly on the seeded demo database, in process.
  const replays = [
    ["Trip companion (646 turns)", DEMO_IDS.long, "ana@example.com"],
    ["Checkout outage (tool agent)", TOOL_AGENT_DEMO_ID, "sam@example.com"],
  ] as const;
  const contextBody = (id: string, user: string) => ({ user_id: user, conversation_id: id, query: "What did we decide?", strategy: { type: "auto_context" }, memory: { enabled: false } });
  console.log(`\n=== auto_context replay of stored conversations via assembleContext (embedded database), no model, in process ===`);
  console.log(`| conversation | messages | model calls | calls compressed | strategies applied | p50 ms | p95 ms | max ms | target |`);
  for (const [name, id, user] of replays) {
    const input = ZContextInput.parse(contextBody(id, user));
    const times: number[] = [];
    let last: Awaited<ReturnType<typeof assembleContext>> | null = null;
    for (let i = 0; i < 3 + 20; i++) {
      const t = now();
      last = await assembleContext(sql, input, { recordAccess: true });
      if (i >= 3) times.push(now() - t);
    }
    const s = stats(times);
    const ac = last!.auto_context!;
    const used = [...new Set(ac.steps.map((x) => x.strategy))].join(", ") || "none";
    console.log(`| ${name} | ${last!.messages.length} | ${ac.calls} | ${ac.steps.length} | ${used} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.max)} | ${verdict(s.p95, 1000)} (< 1 s) |`);
  }
  await db.close();

  // 1b and 2b. The whole HTTP request on the built app, same folder.
  const server = await startBuiltServer(dir);
  cleanup(() => server.stop());
  console.log(`\n=== POST /api/v1/window over HTTP (the server as npm start runs it, embedded database), same histories, no model, N=${HTTP_N} each (a new history each request; bodies built before timing) ===`);
  console.log(`| tool results | body chars | p50 ms | p95 ms | max ms | p95 vs 100 ms |`);
  for (const [label, minLines, spread] of SIZES) {
    const times: number[] = [];
    let chars = 0;
    for (let i = 0; i < WARMUP + HTTP_N; i++) {
      const body = JSON.stringify({ messages: toolHeavyHistory(200, minLines, spread, ++variant), strategy: { type: "auto_context" }, model: "gpt-4o" });
      chars += body.length;
      const t = now();
      const r = await post(`${server.base}/api/v1/window`, body);
      if (i >= WARMUP) times.push(now() - t);
      if (r.status !== 200 || !r.json.auto_context) throw new Error(`POST /window answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
    }
    const s = stats(times);
    console.log(`| ${label} | ${(chars / (WARMUP + HTTP_N) / 1000).toFixed(0)} K | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.max)} | ${verdict(s.p95, 100)} |`);
  }
  // What any request costs on this machine now (access, settings read, routing, JSON): the floor under the rows above.
  const one = JSON.stringify({ messages: [{ role: "user", content: "Hello?" }], strategy: { type: "auto_context" }, model: "gpt-4o" });
  const base: number[] = [];
  for (let i = 0; i < WARMUP + HTTP_N; i++) {
    const t = now();
    const r = await post(`${server.base}/api/v1/window`, one);
    if (i >= WARMUP) base.push(now() - t);
    if (r.status !== 200) throw new Error(`POST /window answered ${r.status}`);
  }
  const b = stats(base);
  console.log(`| baseline: a 1-message history | ${(one.length / 1000).toFixed(1)} K | ${ms(b.p50)} | ${ms(b.p95)} | ${ms(b.max)} | - |`);
  console.log(`Load average: ${load()}`);

  console.log(`\n=== POST /api/v1/context over HTTP: auto_context replay of stored conversations, no model, 20 requests after 3 ===`);
  console.log(`| conversation | p50 ms | p95 ms | max ms | target |`);
  for (const [name, id, user] of replays) {
    const body = JSON.stringify(contextBody(id, user));
    const times: number[] = [];
    for (let i = 0; i < 3 + 20; i++) {
      const t = now();
      const r = await post(`${server.base}/api/v1/context`, body);
      if (i >= 3) times.push(now() - t);
      if (r.status !== 200 || !r.json.auto_context) throw new Error(`POST /context answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
    }
    const s = stats(times);
    console.log(`| ${name} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.max)} | ${verdict(s.p95, 1000)} (< 1 s) |`);
  }
  console.log(`Load average at end: ${load()}`);
});
