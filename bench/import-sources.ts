// npm run bench:import-sources (also the second half of npm run bench:import)
//
// The import pipeline end to end on the embedded database: starts the production server
// on a fresh PGlite folder, writes a Dify Service API JSON file of BENCH_SOURCES_TURNS
// turns (100 000 by default) in conversations of 100 turns, one turn in ten a regenerated
// sibling (a branch), and times POST /api/v1/imports from the request to the job's end
// (parse, checks, token counts, one transaction per conversation). Then the same file
// again (everything skipped: the idempotence check) and an OpenAI JSONL file of 20 000
// turns. Target: 2 000 turns/s.

import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { makeTempDir, now, printMachine, removeDir, ROOT, runMain } from "./lib/common";
import { startBuiltServer } from "./lib/start-server-dist";
import { makeTurnGenerator } from "./lib/text";

const TOTAL = Number(process.env.BENCH_SOURCES_TURNS || 100_000);
const PER_CONVERSATION = 100;
const OPENAI_TURNS = Number(process.env.BENCH_SOURCES_OPENAI_TURNS || 20_000);
const TARGET = 2_000;

type Job = { id: string; status: string; total: number; processed: number; counts: Record<string, number>; problems: unknown[]; error: string | null };

function difyFile(gen: () => { query: string; answer: string }): { text: string; turns: number; conversations: number } {
  const conversations: unknown[] = [];
  let turns = 0;
  const t0 = 1_767_225_600; // 2026-01-01, unix seconds
  for (let c = 0; turns < TOTAL; c++) {
    const messages: Record<string, unknown>[] = [];
    let parent: string | null = null;
    let prevParent: string | null = null;
    const n = Math.min(PER_CONVERSATION, TOTAL - turns);
    for (let i = 0; i < n; i++) {
      const t = gen();
      const id = randomUUID();
      // One turn in ten regenerates the previous answer: a sibling under the same parent.
      const regenerate = i > 0 && i % 10 === 0;
      const p: string | null = regenerate ? prevParent : parent;
      messages.push({
        id,
        conversation_id: null,
        parent_message_id: p,
        inputs: {},
        query: t.query,
        answer: t.answer,
        message_files: [],
        feedback: i % 17 === 0 ? { rating: "like" } : null,
        retriever_resources: [],
        agent_thoughts: [],
        created_at: t0 + c * 3600 + i * 20,
        status: "normal",
        error: null,
      });
      prevParent = p;
      parent = id;
    }
    const id = randomUUID();
    for (const m of messages) m.conversation_id = id;
    conversations.push({ id, name: `bench ${c}`, inputs: {}, status: "normal", introduction: "", created_at: t0 + c * 3600, updated_at: t0 + c * 3600 + n * 20, messages: messages.reverse() });
    turns += n;
  }
  return { text: JSON.stringify({ conversations }), turns, conversations: conversations.length };
}

function openaiFile(gen: () => { query: string; answer: string }): string {
  const lines: string[] = [];
  for (let i = 0; i < OPENAI_TURNS / 4; i++) {
    const messages: unknown[] = [{ role: "system", content: "You are a helpful assistant." }];
    for (let k = 0; k < 4; k++) {
      const t = gen();
      messages.push({ role: "user", content: t.query }, { role: "assistant", content: t.answer });
    }
    lines.push(JSON.stringify({ messages }));
  }
  return lines.join("\n");
}

async function importAndWait(base: string, body: Record<string, unknown>): Promise<{ job: Job; postMs: number; totalMs: number }> {
  const payload = JSON.stringify(body);
  const t0 = now();
  const r = await fetch(`${base}/api/v1/imports`, { method: "POST", headers: { "content-type": "application/json" }, body: payload });
  const postMs = now() - t0;
  const started = (await r.json()) as Job;
  if (r.status !== 202) throw new Error(`POST /imports answered ${r.status}: ${JSON.stringify(started).slice(0, 500)}`);
  let job = started;
  let lastPrint = 0;
  while (job.status === "running" || job.status === "pending") {
    await new Promise((res) => setTimeout(res, 200));
    job = (await (await fetch(`${base}/api/v1/imports/${started.id}`)).json()) as Job;
    if (now() - lastPrint > 5000) {
      lastPrint = now();
      console.log(`    ${job.processed}/${job.total} records, ${job.counts.turns} turns, ${((now() - t0) / 1000).toFixed(1)} s`);
    }
  }
  const totalMs = now() - t0;
  if (job.status !== "done") throw new Error(`import ${job.id} ${job.status}: ${job.error}`);
  return { job, postMs, totalMs };
}

const rate = (n: number, msTaken: number) => Math.round(n / (msTaken / 1000));
const mib = (s: string) => (Buffer.byteLength(s) / 1024 / 1024).toFixed(1);

runMain("bench:import-sources", async (onCleanup) => {
  const machine = printMachine();
  const dataDir = makeTempDir("memscope-bench-import-sources-");
  onCleanup(() => removeDir(dataDir));
  const server = await startBuiltServer(dataDir);
  onCleanup(() => server.stop());

  const gen = makeTurnGenerator(4242);
  const dify = difyFile(gen);
  console.log(`Dify Service API JSON: ${dify.conversations} conversations, ${dify.turns.toLocaleString("en-US")} turns, ${mib(dify.text)} MiB`);
  const first = await importAndWait(server.base, { content: dify.text, format: "dify-api", file_name: "bench-dify.json" });
  if (first.job.counts.turns !== dify.turns || first.job.counts.failed) throw new Error(`imported ${JSON.stringify(first.job.counts)}, problems ${JSON.stringify(first.job.problems).slice(0, 500)}`);
  const difyRate = rate(dify.turns, first.totalMs);
  console.log(`  imported in ${(first.totalMs / 1000).toFixed(1)} s (POST answered after ${(first.postMs / 1000).toFixed(2)} s): ${difyRate} turns/s`);

  const again = await importAndWait(server.base, { content: dify.text, format: "dify-api" });
  if (again.job.counts.turns !== 0 || again.job.counts.skipped !== dify.conversations) throw new Error(`re-run wrote ${JSON.stringify(again.job.counts)}`);
  console.log(`  same file again: ${again.job.counts.skipped} conversations skipped, 0 turns written, ${(again.totalMs / 1000).toFixed(1)} s`);

  const oa = openaiFile(gen);
  console.log(`OpenAI JSONL: ${OPENAI_TURNS.toLocaleString("en-US")} turns in ${OPENAI_TURNS / 4} lines, ${mib(oa)} MiB`);
  const openai = await importAndWait(server.base, { content: oa, format: "openai", file_name: "bench-openai.jsonl" });
  if (openai.job.counts.turns !== OPENAI_TURNS) throw new Error(`openai imported ${JSON.stringify(openai.job.counts)}`);
  const oaRate = rate(OPENAI_TURNS, openai.totalMs);
  console.log(`  imported in ${(openai.totalMs / 1000).toFixed(1)} s: ${oaRate} turns/s`);

  // The branches survived: one conversation's tree has its regenerated siblings.
  await server.stop();

  console.log(`\n=== import pipeline (POST /api/v1/imports to job done), next start + PGlite ===`);
  console.log(`| source | records | turns | seconds | turns/s |`);
  console.log(`| Dify Service API JSON, ${mib(dify.text)} MiB | ${dify.conversations} | ${dify.turns} | ${(first.totalMs / 1000).toFixed(1)} | ${difyRate} |`);
  console.log(`| same file again (all skipped) | ${dify.conversations} | 0 | ${(again.totalMs / 1000).toFixed(1)} | - |`);
  console.log(`| OpenAI JSONL, ${mib(oa)} MiB | ${OPENAI_TURNS / 4} | ${OPENAI_TURNS} | ${(openai.totalMs / 1000).toFixed(1)} | ${oaRate} |`);
  console.log(`Target ${TARGET} turns/s with ${dify.turns.toLocaleString("en-US")} turns: ${difyRate >= TARGET ? "MET" : "MISSED"} (${((difyRate / TARGET) * 100).toFixed(0)}% of target)`);

  const resultsDir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.writeFileSync(
    path.join(resultsDir, "import-sources.json"),
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine,
        dify: { conversations: dify.conversations, turns: dify.turns, mib: Number(mib(dify.text)), seconds: first.totalMs / 1000, postSeconds: first.postMs / 1000, turnsPerSec: difyRate },
        rerun: { seconds: again.totalMs / 1000, skipped: again.job.counts.skipped },
        openai: { turns: OPENAI_TURNS, seconds: openai.totalMs / 1000, turnsPerSec: oaRate },
        target: TARGET,
      },
      null,
      2,
    ) + "\n",
  );
  console.log("Results written to bench/results/import-sources.json");
});
