// CPU per captured span, step by step, of an agents' 512-span export (issue 35's throughput):
// the SDK's default batch of 256 agents' turns 10 and 11, each span resending its history
// (as bench/diag/otel-agents-batch.ts builds it), through the ingest's pure steps one at a time
// (decode on the thread and in the worker, reading the spans, continuation digests, prompt
// chains, the JSON size check, token counts) and then the whole ingest on a database holding
// turns 0-9. Each step runs ROUNDS times; CPU is this process's (process.cpuUsage: the steps run
// one at a time, so it is the step's, token and decode workers included), µs per span.
// Then the same with the span histories (lib/capture/span-history.ts: turns 8-9 kept, turns
// 10-11 read from where they ended), and the whole ingest of turns 0-11 (PROF_TURNS) into two
// projects of one database, one reading every input whole and one with the histories, in
// alternating order (PROF_PAIRS pairs).
//   tsx --conditions=react-server bench/diag/otel-span-cost.ts   (PROF_DB=postgres with MEMSCOPE_TEST_POSTGRES_URL)
import os from "node:os";
import { readGenAiSpan } from "../../lib/capture/genai-span";
import { decodeTracesProto } from "../../lib/capture/otlp-proto";
import { decodeProtoOffThread } from "../../lib/capture/otlp-proto-off-thread";
import type { OtlpTraces } from "../../lib/capture/otlp-types";
import { promptChain, promptChainFrom } from "../../lib/capture/prompt-store";
import { historyLinkOf, SpanHistories } from "../../lib/capture/span-history";
import { chainKeys, classifySpans, conversationIdOf, ingestTraces, STATEMENT_SIZES } from "../../lib/capture/store-captures";
import { openDatabase } from "../../lib/db/open-database";
import { projectSql } from "../../lib/db/project-sql";
import { countTextsAllEncodings } from "../../lib/tokens/count-tokens-parallel";
import { makeTempDir, removeDir } from "../lib/common";
import { agentBatches } from "../lib/otel-agent-turns";

const AGENTS = 256;
const ROUNDS = Number(process.env.ROUNDS || 5);
const TURNS = Math.max(4, 2 * Math.floor(Number(process.env.PROF_TURNS || 12) / 2));
const PAIRS = Number(process.env.PROF_PAIRS || 2);
const SYSTEM = [{ type: "text", content: "You are the travel desk's assistant. Answer in short paragraphs, cite the booking reference when there is one, never invent prices. ".repeat(10) }];
const kind = process.env.PROF_DB === "postgres" ? "postgres" : "pglite";
const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

const batches = () => agentBatches(AGENTS, TURNS, SYSTEM, "cost");

async function step<T>(name: string, spans: number, fn: () => Promise<T> | T): Promise<T> {
  let value!: T;
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const c = cpuUs();
    const t = performance.now();
    value = await fn();
    wall.push((performance.now() - t) * 1000);
    cpu.push(cpuUs() - c);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  console.log(`${name.padEnd(44)} ${(median(cpu) / spans).toFixed(0).padStart(6)} µs CPU/span  ${(median(wall) / spans).toFixed(0).padStart(6)} µs wall/span`);
  return value;
}

async function main() {
  const bodies = batches();
  const last = bodies.length - 1;
  const body = bodies[last];
  console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}; ${AGENTS * 2} spans, body ${body.length} B (turns ${TURNS - 2}-${TURNS - 1}), median of ${ROUNDS}`);
  const n = AGENTS * 2;
  const traces = await step("decode on the thread", n, () => decodeTracesProto(body));
  await step("decode in the worker (+ structured clone back)", n, () =>
    decodeProtoOffThread<OtlpTraces>(new Uint8Array(body), "traces", { maxHeapMb: 256, maxMs: 60_000, maxMessages: 10_000_000, maxItemWeight: 1_000_000 }),
  );
  const receivedAt = new Date();
  const spans = traces.resourceSpans.flatMap((rs) => rs.spans.map((s) => ({ s, r: rs.resource })));
  const readings = await step("  read spans (JSON.parse + shape)", n, () => spans.map(({ s, r }) => readGenAiSpan(s, r, receivedAt)));
  const classified = await step("classify (read + checks + ids)", n, () => classifySpans(traces, receivedAt));
  const chats = classified.chats;
  console.log(`  ${chats.length} chats, ${readings.filter((x) => x.kind === "chat").length} read, mean input ${(chats.reduce((a, c) => a + c.inputMessages.length, 0) / chats.length).toFixed(1)} messages`);
  await step("  JSON size check (stringify in, out, system)", n, () => chats.map((c) => JSON.stringify(c.inputMessages).length + JSON.stringify(c.outputMessages).length + JSON.stringify(c.systemInstructions).length));
  await step("continuation digests (chainKeys)", n, () => chats.map((c) => chainKeys(c)));
  await step("prompt chains (promptChain)", n, () => chats.map((c) => promptChain(conversationIdOf(c), c.systemInstructions, c.inputMessages, c.outputMessages)));
  await step("token counts (2 encodings, workers)", n, () => countTextsAllEncodings(chats.flatMap((c) => [c.query, c.answer]), { offThread: true }));

  // The pure steps again with the span histories: each round a fresh cache holding the turns
  // before (classify, digests and chains of the batch before, untimed), then this batch's.
  const previous = decodeTracesProto(bodies[last - 1]);
  const pureSteps = (history?: { histories: SpanHistories; scope: string }) => {
    const cs = classifySpans(traces, receivedAt, history).chats;
    for (const c of cs) chainKeys(c);
    for (const c of cs) {
      const link = historyLinkOf(c.inputMessages);
      const made = promptChainFrom(conversationIdOf(c), c.systemInstructions, c.inputMessages, c.outputMessages, link?.own.nodes ?? link?.base?.nodes);
      if (link) link.own.nodes = made.closed;
    }
    return cs;
  };
  for (const kept of [false, true]) {
    const cpu: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const history = kept ? { histories: new SpanHistories(), scope: "diag" } : undefined;
      if (history) {
        const cs = classifySpans(previous, receivedAt, history).chats;
        for (const c of cs) chainKeys(c);
        for (const c of cs) historyLinkOf(c.inputMessages)!.own.nodes = promptChainFrom(conversationIdOf(c), c.systemInstructions, c.inputMessages, c.outputMessages).closed;
      }
      const c0 = cpuUs();
      pureSteps(history);
      cpu.push(cpuUs() - c0);
      if (history && r === 0) console.log(`  histories: ${history.histories.hits} inputs continued a kept one, ${history.histories.misses} read whole`);
    }
    const median = [...cpu].sort((a, b) => a - b)[cpu.length >> 1];
    console.log(`${`classify + digests + chains, ${kept ? "with the histories" : "read whole"}`.padEnd(44)} ${(median / n).toFixed(0).padStart(6)} µs CPU/span`);
  }

  const dir = kind === "pglite" ? makeTempDir("memscope-diag-span-cost-") : undefined;
  const db = dir ? await openDatabase({ kind: "pglite", dataDir: dir }) : await openDatabase({ kind: "postgres", url: process.env.MEMSCOPE_TEST_POSTGRES_URL! });
  const sizes = kind === "pglite" ? STATEMENT_SIZES.embedded : STATEMENT_SIZES.server;
  // The whole ingest of every batch into a fresh project, reading whole or with fresh histories;
  // the pairs alternate which goes first. CPU: this process's (PGlite's WebAssembly included;
  // PostgreSQL's own not).
  let project = 0;
  for (let pair = 0; pair < PAIRS; pair++) {
    for (const kept of pair % 2 ? [true, false] : [false, true]) {
      const id = `diag-span-cost-${Date.now()}-${project++}`;
      await db.sql.query(`INSERT INTO projects (id, name, slug, created_at) VALUES ($1, $1, $1, now())`, [id]);
      const sql = projectSql(db.sql, id);
      const histories = kept ? new SpanHistories() : null;
      let all = 0;
      let lastCpu = 0;
      let lastWall = 0;
      let created = 0;
      for (const [b, one] of bodies.entries()) {
        const traces = decodeTracesProto(one);
        const c = cpuUs();
        const t = performance.now();
        const r = await ingestTraces(sql, traces, new Date(), undefined, sizes, histories);
        const used = cpuUs() - c;
        all += used;
        created += r.turns_created;
        if (b === last) {
          lastCpu = used;
          lastWall = (performance.now() - t) * 1000;
        }
      }
      console.log(
        `whole ingest, ${kind}, ${kept ? "histories" : "read whole"}`.padEnd(44),
        `turns ${TURNS - 2}-${TURNS - 1}: ${(lastCpu / n).toFixed(0).padStart(5)} µs CPU/span ${(lastWall / n).toFixed(0).padStart(5)} µs wall/span; turns 0-${TURNS - 1}: ${(all / (n * bodies.length)).toFixed(0).padStart(5)} µs CPU/span (${created} turns${histories ? `, ${histories.hits} continued, ${histories.misses} whole` : ""}; load ${os.loadavg()[0].toFixed(2)})`,
      );
    }
  }
  if (kind === "postgres") console.log("  (PostgreSQL's own CPU not included)");
  await db.close();
  if (dir) removeDir(dir);
  console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
}
main();
