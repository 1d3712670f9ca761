// npm run bench:window
//
// Builds a 100 000-turn conversation in a temporary PGlite folder (insertTurns, 10 000
// per call), then times the token-buffer history window four ways:
//   a) lib getHistory (cached token counts, one pass)
//   b) Dify's naive loop: re-tokenize the whole list after every drop
//   c) @langchain/core trimMessages (strategy "last") with a tiktoken counter
//   d) GET /api/v1/conversations/{id}/history against `next start` on the same folder
//   e) POST /api/v1/window with that 500-turn thread under the framework strategies (issue 42)
// (a) and (d) run twice: as shipped, then after `ANALYZE messages` (diagnostic for the
// stale-statistics plan problem described in docs/benchmarks.md).
// Knobs (env): BENCH_TURNS, BENCH_N, BENCH_READ_N, BENCH_SLOW_BUDGET_S, BENCH_SLOW_MAX_N,
// BENCH_NAIVE_SINGLE=1 (also time Dify's literal one-message-per-drop loop),
// BENCH_ONLY=frameworks (only (e): the 500-turn thread under each framework strategy, warm and cold).

import { randomUUID } from "node:crypto";
import { DEFAULT_PROJECT_ID, projectSql } from "../lib/db/project-sql";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { AIMessage, HumanMessage, trimMessages, type BaseMessage } from "@langchain/core/messages";
import { openDatabase, type Database } from "../lib/db/open-database";
import { createConversation, requireConversation } from "../lib/conversations/conversation-store";
import { ZConversationCreate } from "../lib/conversations/schemas";
import { insertTurns } from "../lib/messages/insert-turns";
import { ZHistoryQuery, ZTurnInput, type HistoryQuery, type HistoryResponse, type TurnInput } from "../lib/messages/schemas";
import { getHistory } from "../lib/window/get-history";
import { applyStrategy } from "../lib/strategies/apply-strategy";
import { ZStrategy, type RoleMessage } from "../lib/strategies/schemas";
import { extractThread } from "../lib/threads/extract-thread";
import { countChatTokens, type ChatMessage } from "../lib/tokens/chat-formula";
import { makeTurnGenerator, wordCount } from "./lib/text";
import { makeTempDir, measure, ms, now, printMachine, removeDir, ROOT, runMain, stats, type Stats } from "./lib/common";
import { cpuUntilQuiet, groupCpuSeconds, threadCpuSecondsByName } from "./lib/proc-cpu";
import { startBuiltServer } from "./lib/start-server-dist";

const TOTAL = Number(process.env.BENCH_TURNS || 100_000);
const CHUNK = 10_000;
const N = Number(process.env.BENCH_N || 200);
const WARMUP = 20;
const READ_N = Number(process.env.BENCH_READ_N || 50); // the bare SELECT, for the breakdown only
const LIMIT = 2000;
const THREAD = 500; // message_limit default
const HTTP_TARGET_P95_MS = 25;
// The naive loop and trimMessages re-tokenize ~250k-500k messages per call (tens of
// seconds each on this class of machine), so they get a time budget instead of N=200.
const SLOW_BUDGET_MS = Number(process.env.BENCH_SLOW_BUDGET_S || 40) * 1000;
const SLOW_MAX_N = Number(process.env.BENCH_SLOW_MAX_N || N);
const ENCODING = "o200k_base" as const;

type Row = { id: string; parentMessageId: string | null; query: string; answer: string };

/** Turn ids, with a few regenerated branches and dead-end side branches, none in the newest 500 rows. */
function planConversation(total: number) {
  const ids = Array.from({ length: total }, () => randomUUID());
  const explicitParent = new Map<number, string>();
  const deadLeaves: number[] = [];
  const last = total - THREAD - 500; // keep branch points well clear of the newest 500 rows
  // Regenerations: turn i answers the same parent as turn i-1 (Dify "regenerate");
  // the main line continues from turn i, turn i-1 is left as a dead leaf.
  for (const f of [0.12, 0.31, 0.55, 0.78, 0.96]) {
    const i = Math.floor(f * total);
    if (i < 2 || i >= last) continue;
    explicitParent.set(i, ids[i - 2]);
    deadLeaves.push(i - 1);
  }
  // Side branches: 5 turns forking from three turns back, then the main line resumes
  // from its previous tip with an explicit parent.
  for (const f of [0.2, 0.64, 0.9]) {
    const i = Math.floor(f * total);
    if (i < 4 || i + 5 >= last) continue;
    explicitParent.set(i, ids[i - 3]);
    explicitParent.set(i + 5, ids[i - 1]);
    deadLeaves.push(i + 4);
  }
  return { ids, explicitParent, deadLeaves };
}

async function buildConversation(db: Database) {
  const conv = await createConversation(db.prisma, DEFAULT_PROJECT_ID,
    ZConversationCreate.parse({ app_id: "bench-window", end_user_id: "bench", name: `window bench ${TOTAL} turns` }),
  );
  const plan = planConversation(TOTAL);
  const gen = makeTurnGenerator(20240611);
  console.log(
    `Building ${TOTAL.toLocaleString("en-US")} turns in chunks of ${CHUNK} via insertTurns ` +
      `(${plan.explicitParent.size} explicit-parent turns: 5 regenerations, 3 side branches)`,
  );
  const t0 = now();
  let inserted = 0;
  let insertMs = 0;
  let words = 0;
  const perChunk: { turns: number; ms: number }[] = [];
  for (let start = 0; start < TOTAL; start += CHUNK) {
    const end = Math.min(TOTAL, start + CHUNK);
    const turns: TurnInput[] = [];
    for (let i = start; i < end; i++) {
      const t = gen();
      words += wordCount(t.answer);
      const raw: Record<string, unknown> = { id: plan.ids[i], query: t.query, answer: t.answer };
      if (plan.explicitParent.has(i)) raw.parent_message_id = plan.explicitParent.get(i);
      turns.push(ZTurnInput.parse(raw));
    }
    const a = now();
    const out = await insertTurns(projectSql(db.sql, DEFAULT_PROJECT_ID), conv.id, turns);
    const dt = now() - a;
    if (out.length !== turns.length) throw new Error(`insertTurns returned ${out.length} rows for ${turns.length}`);
    insertMs += dt;
    inserted += out.length;
    perChunk.push({ turns: out.length, ms: dt });
    console.log(
      `  ${inserted.toLocaleString("en-US").padStart(7)} / ${TOTAL.toLocaleString("en-US")} turns  ` +
        `chunk ${(dt / 1000).toFixed(1)} s (${Math.round(out.length / (dt / 1000))} turns/s)  elapsed ${((now() - t0) / 1000).toFixed(0)} s`,
    );
  }
  const totalMs = now() - t0;
  const [c] = await db.sql.query<{ turn_count: number; leaf_count: number; token_count: number }>(
    `SELECT turn_count, leaf_count, token_count FROM conversations WHERE id = $1`,
    [conv.id],
  );
  const build = {
    turns: inserted,
    totalMs,
    insertMs,
    turnsPerSecInsert: inserted / (insertMs / 1000),
    turnsPerSecWall: inserted / (totalMs / 1000),
    avgAnswerWords: words / inserted,
    perChunk,
    leafCount: Number(c.leaf_count),
    tokenCount: Number(c.token_count),
  };
  console.log(
    `Built in ${(totalMs / 1000).toFixed(1)} s: insertTurns ${Math.round(build.turnsPerSecInsert)} turns/s ` +
      `(wall incl. text generation + zod parse ${Math.round(build.turnsPerSecWall)} turns/s); ` +
      `avg answer ${build.avgAnswerWords.toFixed(1)} words; leaves ${build.leafCount}; o200k tokens ${build.tokenCount.toLocaleString("en-US")}`,
  );
  if (build.leafCount !== 1 + plan.deadLeaves.length) {
    throw new Error(`expected ${1 + plan.deadLeaves.length} leaves, conversation says ${build.leafCount}`);
  }
  return { conv, plan, build };
}

/** The 500-row thread's messages oldest first, read the way getHistory reads them. */
async function readThreadMessages(db: Database, conversationId: string): Promise<ChatMessage[]> {
  const rows = await db.sql.query<Row>(
    `SELECT id, parent_message_id AS "parentMessageId", query, answer
       FROM messages WHERE conversation_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`,
    [conversationId, THREAD],
  );
  const thread = extractThread(rows).reverse();
  const msgs: ChatMessage[] = [];
  for (const r of thread) msgs.push({ role: "user", content: r.query }, { role: "assistant", content: r.answer });
  return msgs;
}

/** Dify's TokenBufferMemory loop as the issue states it: drop the oldest turn, re-count everything. */
function naiveTurnDrop(all: ChatMessage[]): ChatMessage[] {
  const messages = all.slice();
  while (messages.length > 0 && countChatTokens(messages, ENCODING) > LIMIT) {
    messages.shift();
    messages.shift();
  }
  return messages;
}

/** Dify's literal loop (pop one message at a time while len > 1), re-counting every time. */
function naiveMessageDrop(all: ChatMessage[]): ChatMessage[] {
  const messages = all.slice();
  while (messages.length > 1 && countChatTokens(messages, ENCODING) > LIMIT) messages.shift();
  return messages;
}

/**
 * The same result as naiveMessageDrop without the quadratic re-count: the chat formula
 * is additive (3 priming + per-message cost), so counting each message once suffices.
 * Used only to check what the literal loop would keep without spending minutes on it.
 */
function messageDropResult(all: ChatMessage[]): ChatMessage[] {
  const per = all.map((m) => countChatTokens([m], ENCODING) - 3);
  let total = all.length ? 3 + per.reduce((a, b) => a + b, 0) : 0;
  let start = 0;
  while (all.length - start > 1 && total > LIMIT) total -= per[start++];
  return all.slice(start);
}

function toChat(m: BaseMessage): ChatMessage {
  const type = m.getType();
  const role = type === "human" ? "user" : type === "ai" ? "assistant" : type === "system" ? "system" : "tool";
  return { role, content: typeof m.content === "string" ? m.content : JSON.stringify(m.content) };
}

/** LangChain tokenCounter: the same o200k_base chat formula as lib/tokens (3/msg + role + content, +3 priming). */
const langchainCounter = (msgs: BaseMessage[]) => countChatTokens(msgs.map(toChat), ENCODING);

function sameMessages(a: ChatMessage[], b: ChatMessage[]): boolean {
  return a.length === b.length && a.every((m, i) => m.role === b[i].role && m.content === b[i].content);
}

function fmtRow(label: string, s: Stats, note = "") {
  return `| ${label.padEnd(44)} | ${String(s.n).padStart(4)} | ${ms(s.p50).padStart(9)} | ${ms(s.p95).padStart(9)} | ${ms(s.min).padStart(9)} | ${ms(s.max).padStart(9)} | ${note}`;
}

type PlannerStats = { reltuples: number; n_mod_since_analyze: number; last_analyze: string | null };

async function plannerStats(db: Database): Promise<PlannerStats> {
  const [r] = await db.sql.query<PlannerStats>(
    `SELECT c.reltuples::float8 AS reltuples, s.n_mod_since_analyze::int8 AS n_mod_since_analyze, s.last_analyze::text AS last_analyze
       FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = 'messages'`,
  );
  return { reltuples: Number(r.reltuples), n_mod_since_analyze: Number(r.n_mod_since_analyze), last_analyze: r.last_analyze };
}

const HISTORY_SELECT = `SELECT id, parent_message_id AS "parentMessageId", query, answer, answer_tokens,
            query_tokens_o200k AS q, answer_tokens_o200k AS a, file_count
       FROM messages WHERE conversation_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`;

async function queryPlan(db: Database, conversationId: string): Promise<string> {
  const rows = await db.sql.query<{ "QUERY PLAN": string }>(`EXPLAIN ANALYZE ${HISTORY_SELECT}`, [conversationId, THREAD]);
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
}

/** Condensed plan: the node names and the execution time. */
function planSummary(plan: string): string {
  const nodes = plan
    .split("\n")
    .map((l) => l.trim().replace(/^->\s*/, ""))
    .filter((l) => /^(Limit|Sort|Index Scan|Bitmap Heap Scan|Bitmap Index Scan|Seq Scan)/.test(l))
    .map((l) => l.replace(/\s+\(cost=.*$/, ""));
  const exec = plan.match(/Execution Time: ([\d.]+) ms/)?.[1];
  return `${nodes.join(" > ")}; execution ${exec} ms`;
}

async function measureLib(db: Database, conversationId: string, query: HistoryQuery, label: string) {
  console.log(`\n(a) lib getHistory [${label}]: warm-up ${WARMUP}, N=${N}...`);
  const a = await measure(() => getHistory(projectSql(db.sql, DEFAULT_PROJECT_ID), conversationId, query), { warmup: WARMUP, n: N });
  const read = await measure(() => db.sql.query(HISTORY_SELECT, [conversationId, THREAD]), { warmup: 5, n: READ_N });
  // The route also runs requireConversation (Prisma findFirst) before getHistory.
  const prisma = await measure(() => requireConversation(db.prisma, DEFAULT_PROJECT_ID, conversationId), { warmup: 5, n: READ_N });
  const plan = planSummary(await queryPlan(db, conversationId));
  const r = { lib: stats(a.samples), read: stats(read.samples), prisma: stats(prisma.samples), plan };
  console.log(
    `  p50 ${ms(r.lib.p50)} ms, p95 ${ms(r.lib.p95)} ms; SELECT alone p50 ${ms(r.read.p50)} ms; ` +
      `requireConversation (Prisma) p50 ${ms(r.prisma.p50)} ms; plan: ${plan}`,
  );
  return r;
}

// e) The framework strategies of issue 42 over the same 500-turn thread, sent inline to POST
// /window as an agent's history (tiktoken and LlamaIndex's joined-text counts included).
const FRAMEWORK_TARGET_P95_MS = 60;
const FRAMEWORK_STRATEGIES: { name: string; strategy: Record<string, unknown> }[] = [
  { name: "langchain_trim last 2000 (model)", strategy: { type: "langchain_trim", max_tokens: LIMIT, strategy: "last", token_counter: "model", start_on: "human" } },
  { name: "llamaindex_buffer 0.75 x 128k", strategy: { type: "llamaindex_buffer" } },
  { name: "llamaindex_buffer 2000", strategy: { type: "llamaindex_buffer", token_limit: LIMIT } },
  { name: "llamaindex_memory 30000 (default)", strategy: { type: "llamaindex_memory" } },
  { name: "mastra_last_messages 10", strategy: { type: "mastra_last_messages", last_messages: 10 } },
];

/** e') The same strategies in process (applyStrategy), to split the HTTP time into the strategy and the rest. */
async function measureFrameworksInProcess(thread: ChatMessage[]) {
  const out: { name: string; stats: Stats }[] = [];
  for (const f of FRAMEWORK_STRATEGIES) {
    const strategy = ZStrategy.parse(f.strategy);
    // Fresh message objects per call, as a request brings (no counts cached on them).
    const r = await measure(() => applyStrategy(structuredClone(thread) as RoleMessage[], strategy, { model: "gpt-4o", temporary: [{ role: "user", content: "And what next?" }] }), { warmup: 5, n: 50 });
    const st = stats(r.samples);
    console.log(`(e') in process: applyStrategy ${f.name}: p50 ${ms(st.p50)} ms, p95 ${ms(st.p95)} ms`);
    out.push({ name: f.name, stats: st });
  }
  return out;
}

// (e) cold: the same thread with every text new to the server (a per-request mark in front of
// each message), so nothing is found in the project's text counts; BENCH_COLD_N requests.
const COLD_N = Number(process.env.BENCH_COLD_N || 50);
type FrameworkRun = { stats: Stats; kept: number; serverCpuMsPerRequest: number | null; byThread: string };

async function measureFrameworks(base: string, pid: number, thread: ChatMessage[]) {
  const out: ({ name: string; cold: FrameworkRun } & FrameworkRun)[] = [];
  const bodyOf = (messages: ChatMessage[], strategy: unknown) =>
    JSON.stringify({ messages, model: "gpt-4o", strategy, temporary_messages: [{ role: "user", content: "And what next?" }] });
  const run = async (bodies: () => string, n: number, warmup: number): Promise<FrameworkRun> => {
    let kept = 0;
    const call = async (body: string) => {
      const res = await fetch(`${base}/api/v1/window`, { method: "POST", headers: { "content-type": "application/json" }, body });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`window answered ${res.status}: ${text.slice(0, 500)}`);
      kept = (JSON.parse(text) as { messages: unknown[] }).messages.length;
    };
    for (let i = 0; i < warmup; i++) await call(bodies());
    // What the warm-up left running (a token pool worker starting, its encoder built) is not a request's cost.
    await cpuUntilQuiet(() => groupCpuSeconds(pid));
    // Bodies are made before the clock starts: only the request is timed.
    const queue = Array.from({ length: n }, bodies);
    const cpu0 = groupCpuSeconds(pid);
    const threads0 = threadCpuSecondsByName(pid);
    const r = await measure(() => call(queue.shift()!), { warmup: 0, n });
    const cpu1 = groupCpuSeconds(pid);
    const threads1 = threadCpuSecondsByName(pid);
    // Server CPU per request says what the code costs, whatever else shares the cores.
    const serverCpuMsPerRequest = cpu0 !== null && cpu1 !== null ? ((cpu1 - cpu0) * 1000) / r.samples.length : null;
    // And which threads paid it (the request thread, V8's GC and compiler helpers, the token pool).
    const byThread = [...threads1]
      .map(([name, s]) => [name, ((s - (threads0.get(name) ?? 0)) * 1000) / r.samples.length] as const)
      .filter(([, v]) => v >= 0.1)
      .sort((a, b) => b[1] - a[1])
      .map(([name, v]) => `${name} ${ms(v)}`)
      .join(", ");
    return { stats: stats(r.samples), kept, serverCpuMsPerRequest, byThread };
  };
  let mark = 0;
  for (const f of FRAMEWORK_STRATEGIES) {
    const body = bodyOf(thread, f.strategy);
    console.log(`(e) HTTP POST /api/v1/window ${f.name}, ${thread.length} messages: warm-up ${WARMUP}, N=${N} sequential (the same thread each time)...`);
    const warm = await run(() => body, N, WARMUP);
    const cpu = (x: number | null) => (x === null ? "n/a" : ms(x));
    console.log(`  p50 ${ms(warm.stats.p50)} ms, p95 ${ms(warm.stats.p95)} ms; kept ${warm.kept} messages; server CPU ${cpu(warm.serverCpuMsPerRequest)} ms a request (${warm.byThread}); load average ${load()}`);
    const cold = await run(() => bodyOf(thread.map((m) => ({ ...m, content: `[${++mark}] ${m.content as string}` })), f.strategy), COLD_N, 5);
    console.log(`  cold (every text new), N=${COLD_N}: p50 ${ms(cold.stats.p50)} ms, p95 ${ms(cold.stats.p95)} ms; kept ${cold.kept}; server CPU ${cpu(cold.serverCpuMsPerRequest)} ms a request (${cold.byThread}); load average ${load()}`);
    out.push({ name: f.name, ...warm, cold });
  }
  return out;
}

const load = () => os.loadavg().map((x) => x.toFixed(1)).join(" / ");

/** (e) in one table: warm (the thread sent before) and cold (every text new) p95 per strategy, beside the load average. */
function printFrameworkSummary(frameworks: Awaited<ReturnType<typeof measureFrameworks>>) {
  const cpu = (x: number | null) => (x === null ? "n/a" : ms(x));
  const verdict = (p95: number) => (p95 < FRAMEWORK_TARGET_P95_MS ? "met" : "MISSED");
  console.log(`\n=== POST /window, ${THREAD}-turn thread: p95 target < ${FRAMEWORK_TARGET_P95_MS} ms (load average 1/5/15 min now: ${load()}) ===`);
  console.log(`| ${"strategy".padEnd(36)} | warm p50 / p95 ms | warm server CPU | cold p50 / p95 ms | cold server CPU |`);
  for (const f of frameworks) {
    console.log(
      `| ${f.name.padEnd(36)} | ${`${ms(f.stats.p50)} / ${ms(f.stats.p95)} (${verdict(f.stats.p95)})`.padStart(17)} | ${cpu(f.serverCpuMsPerRequest).padStart(15)} | ` +
        `${`${ms(f.cold.stats.p50)} / ${ms(f.cold.stats.p95)} (${verdict(f.cold.stats.p95)})`.padStart(17)} | ${cpu(f.cold.serverCpuMsPerRequest).padStart(15)} |`,
    );
  }
}

async function measureHttp(dataDir: string, conversationId: string, expectedKept: number, label: string, onCleanup: (fn: () => unknown) => void, thread?: ChatMessage[]) {
  const server = await startBuiltServer(dataDir);
  onCleanup(() => server.stop());
  try {
    const frameworks = thread ? await measureFrameworks(server.base, server.pid, thread) : [];
    const url = `${server.base}/api/v1/conversations/${conversationId}/history?max_token_limit=${LIMIT}&model=gpt-4o`;
    let body: HistoryResponse | null = null;
    let bytes = 0;
    console.log(`(d) HTTP GET /api/v1/conversations/{id}/history?max_token_limit=${LIMIT}&model=gpt-4o [${label}]: warm-up ${WARMUP}, N=${N} sequential...`);
    const d = await measure(
      async () => {
        const r = await fetch(url);
        const text = await r.text();
        if (r.status !== 200) throw new Error(`history answered ${r.status}: ${text.slice(0, 500)}`);
        bytes = text.length;
        body = JSON.parse(text) as HistoryResponse;
      },
      { warmup: WARMUP, n: N },
    );
    // Floors, to split the HTTP time: a route with no DB, and the conversation lookup alone.
    const floor = async (u: string) => {
      const r = await measure(
        async () => {
          const res = await fetch(u);
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`${u} answered ${res.status}`);
        },
        { warmup: 5, n: READ_N },
      );
      return stats(r.samples);
    };
    const models = await floor(`${server.base}/api/v1/models`);
    const conv = await floor(`${server.base}/api/v1/conversations/${conversationId}`);
    const kept = (body as HistoryResponse | null)?.messages?.length;
    if (kept !== expectedKept) throw new Error(`HTTP kept ${kept} messages, lib ${expectedKept}`);
    const s = stats(d.samples);
    const b = body as HistoryResponse | null;
    const part = (x: unknown) => JSON.stringify(x ?? null).length;
    const composition = b
      ? `messages ${(part(b.messages) / 1024).toFixed(1)} KiB, thread_message_ids ${(part(b.thread_message_ids) / 1024).toFixed(1)} KiB, ` +
        `dropped_message_ids ${(part(b.dropped_message_ids) / 1024).toFixed(1)} KiB, turn_tokens ${(part(b.turn_tokens) / 1024).toFixed(1)} KiB`
      : "";
    console.log(`  p50 ${ms(s.p50)} ms, p95 ${ms(s.p95)} ms; kept ${kept} messages; response ${(bytes / 1024).toFixed(1)} KiB (${composition})`);
    console.log(`  floors: GET /api/v1/models (no DB) p50 ${ms(models.p50)} / p95 ${ms(models.p95)} ms; GET /api/v1/conversations/{id} (Prisma lookup) p50 ${ms(conv.p50)} / p95 ${ms(conv.p95)} ms`);
    return { http: s, kept, bytes, composition, models, conv, frameworks };
  } finally {
    await server.stop();
  }
}

runMain("bench:window", async (onCleanup) => {
  const started = now();
  const machine = printMachine();
  const dataDir = makeTempDir("memscope-bench-window-");
  onCleanup(() => removeDir(dataDir));
  console.log(`Data folder: ${dataDir}`);

  let db: Database | null = await openDatabase({ kind: "pglite", dataDir });
  onCleanup(async () => {
    if (db) await db.close();
  });

  const { conv, plan, build } = await buildConversation(db);
  const query = ZHistoryQuery.parse({ max_token_limit: LIMIT, model: "gpt-4o" });

  if (process.env.BENCH_ONLY === "frameworks") {
    const thread = await readThreadMessages(db, conv.id);
    await db.close();
    db = null;
    const server = await startBuiltServer(dataDir);
    onCleanup(() => server.stop());
    try {
      printFrameworkSummary(await measureFrameworks(server.base, server.pid, thread));
    } finally {
      await server.stop();
    }
    return;
  }

  // Sanity: the newest 500 rows are one 500-turn thread ending at the newest turn.
  const first = await getHistory(projectSql(db.sql, DEFAULT_PROJECT_ID), conv.id, query);
  const expectedThread = plan.ids.slice(TOTAL - THREAD).reverse();
  if (first.thread_message_ids.length !== THREAD || first.thread_message_ids.some((id, i) => id !== expectedThread[i])) {
    throw new Error(`thread check failed: ${first.thread_message_ids.length} ids, expected the newest ${THREAD} turns`);
  }
  const libMessages = first.messages!;
  console.log(
    `\nhistory(max_token_limit=${LIMIT}, message_limit=${first.message_limit}): thread ${first.thread_message_ids.length} turns, ` +
      `kept ${libMessages.length} messages (${libMessages.length / 2} turns), ${first.total_tokens} tokens, dropped ${first.dropped_message_ids.length} turns`,
  );

  // Phase 1: the product as shipped (statistics as insertTurns leaves them).
  const statsBefore = await plannerStats(db);
  console.log(`Planner statistics on messages after the import: reltuples ${statsBefore.reltuples}, n_mod_since_analyze ${statsBefore.n_mod_since_analyze}, last_analyze ${statsBefore.last_analyze}`);
  const a1 = await measureLib(db, conv.id, query, "as shipped");

  // Messages for b) and c): read once, outside the timed region.
  const threadMessages = await readThreadMessages(db, conv.id);
  const threadTokens = countChatTokens(threadMessages, ENCODING);
  console.log(`\nThread messages for (b)/(c): ${threadMessages.length} (read once, untimed), ${threadTokens.toLocaleString("en-US")} o200k tokens in all`);

  // Kept-count check: lib drops whole turns; the literal Dify loop drops single messages.
  const literal = messageDropResult(threadMessages);
  console.log(
    `Check: lib keeps ${libMessages.length} messages; Dify's literal loop (one message per drop) would keep ${literal.length}` +
      (literal.length !== libMessages.length
        ? ` — it can stop with an orphan assistant message at the head (its user half dropped).`
        : ` (same count here, but it could stop on an orphan assistant message).`) +
      ` Timing the fair variant: drop one whole turn (2 messages) per iteration, the issue's rule.`,
  );

  // b) naive, whole-turn drop
  console.log(`\n(b) naive loop (drop oldest turn, re-tokenize all): time budget ${SLOW_BUDGET_MS / 1000} s, up to N=${SLOW_MAX_N}; no warm-up (tiktoken is already warm)...`);
  let naiveOut: ChatMessage[] = [];
  const b = await measure(
    () => {
      naiveOut = naiveTurnDrop(threadMessages);
    },
    {
      warmup: 0,
      n: SLOW_MAX_N,
      budgetMs: SLOW_BUDGET_MS,
      minN: 1,
      onProgress: (i, el, last) => console.log(`  iteration ${i}: ${(last / 1000).toFixed(1)} s (elapsed ${(el / 1000).toFixed(0)} s)`),
    },
  );
  const bStats = stats(b.samples);
  const naiveSame = sameMessages(naiveOut, libMessages);
  console.log(`  naive kept ${naiveOut.length} messages; identical to lib: ${naiveSame}`);
  if (!naiveSame) throw new Error(`naive (turn drop) kept ${naiveOut.length} messages, lib ${libMessages.length}: they must agree`);

  let bSingle: Stats | null = null;
  if (process.env.BENCH_NAIVE_SINGLE === "1") {
    console.log(`(b') naive literal loop (one message per drop): budget ${SLOW_BUDGET_MS / 1000} s...`);
    let out: ChatMessage[] = [];
    const r = await measure(() => void (out = naiveMessageDrop(threadMessages)), { warmup: 0, n: SLOW_MAX_N, budgetMs: SLOW_BUDGET_MS, minN: 1 });
    bSingle = stats(r.samples);
    if (out.length !== literal.length) throw new Error(`literal loop kept ${out.length}, expected ${literal.length}`);
  }

  // c) LangChain trimMessages
  const lcMessages: BaseMessage[] = threadMessages.map((m) =>
    m.role === "user" ? new HumanMessage(m.content as string) : new AIMessage(m.content as string),
  );
  console.log(`\n(c) @langchain/core trimMessages(strategy "last", maxTokens ${LIMIT}, startOn "human"): time budget ${SLOW_BUDGET_MS / 1000} s, up to N=${SLOW_MAX_N}...`);
  let lcOut: BaseMessage[] = [];
  const c = await measure(
    async () => {
      lcOut = await trimMessages(lcMessages, { maxTokens: LIMIT, strategy: "last", tokenCounter: langchainCounter, startOn: "human" });
    },
    {
      warmup: 0,
      n: SLOW_MAX_N,
      budgetMs: SLOW_BUDGET_MS,
      minN: 1,
      onProgress: (i, el, last) => console.log(`  iteration ${i}: ${(last / 1000).toFixed(1)} s (elapsed ${(el / 1000).toFixed(0)} s)`),
    },
  );
  const cStats = stats(c.samples);
  const lcSame = sameMessages(lcOut.map(toChat), libMessages);
  console.log(`  trimMessages kept ${lcOut.length} messages; identical to lib: ${lcSame}`);
  if (!lcSame) throw new Error(`trimMessages kept ${lcOut.length} messages, lib ${libMessages.length}: they must agree`);

  const inProcess = await measureFrameworksInProcess(threadMessages);

  // d) HTTP: close the lib handle (one process per PGlite folder), then `next start`.
  await db.close();
  db = null;
  console.log("");
  const d1 = await measureHttp(dataDir, conv.id, libMessages.length, "as shipped", onCleanup, threadMessages);

  // Phase 2: the same after `ANALYZE messages` — what the suggested fix would give.
  // PGlite has no autovacuum daemon, so nothing analyzes the table on its own.
  console.log(`\n--- Phase 2: after ANALYZE messages (diagnostic: the suggested fix) ---`);
  db = await openDatabase({ kind: "pglite", dataDir });
  const ta = now();
  await db.sql.exec("ANALYZE messages");
  const analyzeMs = now() - ta;
  const statsAfter = await plannerStats(db);
  console.log(`ANALYZE messages took ${ms(analyzeMs)} ms; reltuples now ${statsAfter.reltuples}`);
  const a2 = await measureLib(db, conv.id, query, "after ANALYZE");
  await db.close();
  db = null;
  const d2 = await measureHttp(dataDir, conv.id, libMessages.length, "after ANALYZE", onCleanup);

  // Report
  const naiveRatio = bStats.p50 / a1.lib.p50;
  const lcRatio = cStats.p50 / a1.lib.p50;
  const naiveRatio2 = bStats.p50 / a2.lib.p50;
  const lcRatio2 = cStats.p50 / a2.lib.p50;
  const budgetNote = (t: boolean) => (t ? `stopped by the ${SLOW_BUDGET_MS / 1000} s time budget` : "");
  console.log(`\n=== history window: ${TOTAL.toLocaleString("en-US")}-turn conversation, 500-turn thread, max_token_limit=${LIMIT}, gpt-4o (o200k_base) ===`);
  console.log(`| ${"variant".padEnd(44)} | ${"N".padStart(4)} | ${"p50 ms".padStart(9)} | ${"p95 ms".padStart(9)} | ${"min ms".padStart(9)} | ${"max ms".padStart(9)} |`);
  console.log(fmtRow("a) lib getHistory, as shipped", a1.lib));
  console.log(fmtRow("   its SELECT ... LIMIT 500 alone", a1.read));
  console.log(fmtRow("a) lib getHistory, after ANALYZE", a2.lib));
  console.log(fmtRow("   its SELECT ... LIMIT 500 alone", a2.read));
  console.log(fmtRow("b) naive Dify loop, drop turn, re-tokenize", bStats, budgetNote(b.truncated)));
  if (bSingle) console.log(fmtRow("b') naive literal loop, drop 1 message", bSingle));
  console.log(fmtRow("c) LangChain trimMessages (tiktoken)", cStats, budgetNote(c.truncated)));
  console.log(fmtRow("d) HTTP GET /history, as shipped", d1.http));
  console.log(fmtRow("d) HTTP GET /history, after ANALYZE", d2.http));
  for (const f of d1.frameworks) console.log(fmtRow(`e) POST /window ${f.name}`, f.stats));
  for (const f of d1.frameworks) console.log(fmtRow(`e) POST /window ${f.name}, cold`, f.cold.stats));
  for (const f of inProcess) console.log(fmtRow(`e') in process ${f.name}`, f.stats));
  console.log(fmtRow("   floor: HTTP GET /api/v1/models (no DB)", d2.models));
  console.log(fmtRow("   floor: HTTP GET /conversations/{id}", d2.conv));
  console.log(fmtRow("   in-process requireConversation (Prisma)", a2.prisma));
  console.log(`(b) and (c) exclude the DB read (messages read once before timing); (a) and (d) include it.`);
  console.log(`Plan as shipped:     ${a1.plan}`);
  console.log(`Plan after ANALYZE:  ${a2.plan}`);
  console.log(`Ratios (p50): naive/lib ${naiveRatio.toFixed(0)}x, langchain/lib ${lcRatio.toFixed(0)}x (as shipped); ${naiveRatio2.toFixed(0)}x, ${lcRatio2.toFixed(0)}x (after ANALYZE)`);
  for (const [label, s] of [["as shipped", d1.http], ["after ANALYZE", d2.http]] as const) {
    console.log(
      `HTTP p95 ${label}: ${ms(s.p95)} ms vs target ${HTTP_TARGET_P95_MS} ms: ${s.p95 <= HTTP_TARGET_P95_MS ? "MET" : "MISSED"} ` +
        `(${((s.p95 / HTTP_TARGET_P95_MS) * 100).toFixed(0)}% of target)`,
    );
  }
  for (const f of d1.frameworks) {
    console.log(`POST /window ${f.name}: p95 ${ms(f.stats.p95)} ms vs target ${FRAMEWORK_TARGET_P95_MS} ms: ${f.stats.p95 <= FRAMEWORK_TARGET_P95_MS ? "MET" : "MISSED"}; kept ${f.kept}; server CPU ${f.serverCpuMsPerRequest === null ? "n/a" : ms(f.serverCpuMsPerRequest)} ms a request`);
    console.log(`  cold (every text new): p95 ${ms(f.cold.stats.p95)} ms: ${f.cold.stats.p95 <= FRAMEWORK_TARGET_P95_MS ? "MET" : "MISSED"}; server CPU ${f.cold.serverCpuMsPerRequest === null ? "n/a" : ms(f.cold.serverCpuMsPerRequest)} ms a request`);
  }
  printFrameworkSummary(d1.frameworks);
  console.log(`Kept: lib ${libMessages.length} = naive(turn) ${naiveOut.length} = langchain ${lcOut.length} = HTTP ${d1.kept}; literal message-drop loop ${literal.length}`);
  const totalS = (now() - started) / 1000;
  console.log(`Total runtime ${totalS.toFixed(0)} s`);

  const out = {
    date: new Date().toISOString(),
    machine,
    turns: TOTAL,
    build,
    thread: THREAD,
    threadTokens,
    kept: { lib: libMessages.length, naiveTurn: naiveOut.length, langchain: lcOut.length, http: d1.kept, literalMessageDrop: literal.length },
    plannerStatsBefore: statsBefore,
    plannerStatsAfter: statsAfter,
    analyzeMs,
    asShipped: { lib: a1.lib, select: a1.read, prisma: a1.prisma, plan: a1.plan, http: d1.http, httpBytes: d1.bytes, composition: d1.composition, models: d1.models, conv: d1.conv },
    afterAnalyze: { lib: a2.lib, select: a2.read, prisma: a2.prisma, plan: a2.plan, http: d2.http, models: d2.models, conv: d2.conv },
    frameworks: d1.frameworks.map((f) => ({
      name: f.name,
      kept: f.kept,
      server_cpu_ms_per_request: f.serverCpuMsPerRequest,
      ...f.stats,
      cold: { kept: f.cold.kept, server_cpu_ms_per_request: f.cold.serverCpuMsPerRequest, ...f.cold.stats },
    })),
    frameworksInProcess: inProcess.map((f) => ({ name: f.name, ...f.stats })),
    naive: { ...bStats, truncated: b.truncated, samples: b.samples },
    naiveSingle: bSingle,
    langchain: { ...cStats, truncated: c.truncated, samples: c.samples },
    ratios: {
      naiveOverLib: naiveRatio,
      langchainOverLib: lcRatio,
      naiveOverLibAfterAnalyze: naiveRatio2,
      langchainOverLibAfterAnalyze: lcRatio2,
      httpP95OverTarget: d1.http.p95 / HTTP_TARGET_P95_MS,
      httpP95OverTargetAfterAnalyze: d2.http.p95 / HTTP_TARGET_P95_MS,
    },
    totalSeconds: totalS,
  };
  const resultsDir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.writeFileSync(path.join(resultsDir, "window.json"), JSON.stringify(out, null, 2) + "\n");
  console.log(`Results written to bench/results/window.json`);
});
