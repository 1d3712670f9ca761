// npm run bench:import-chatgpt (needs a production build: npx next build)
//
// A ChatGPT data export of BENCH_CHATGPT_MB (300 by default) MB, generated to a temporary
// file (conversations of 20 turns, one answer in ten regenerated: a branch; hidden system
// root nodes, metadata as the export has it), streamed to POST /api/v1/imports/upload of the
// production server on a fresh embedded database (or DATABASE_URL's PostgreSQL), timed from
// the first byte sent to the job's end. The server's resident memory (its process group,
// worker threads included) is sampled every 200 ms: the peak is the figure. Targets:
// >= 2 000 turns/s, RSS < 600 MB. Prints the load average: the machine is shared.
// BENCH_CPU_PROF=<dir> writes the server's CPU profiles there (node --cpu-prof: one file per
// thread, the token workers' included) when it stops; bench/diag/cpu-profile-top.ts reads them.
// BENCH_SERVER_LOG=<file> keeps the server's output (with BENCH_NODE_ARGS=--trace-gc: heap sizes).
// Also printed: turns per server CPU-second (what a loaded machine changes least) and the RSS
// left 12 s after the job, once the token workers have ended (the server's own thread and the
// embedded database's WASM memory, which never shrinks).

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { makeTempDir, now, printMachine, removeDir, ROOT, runMain } from "./lib/common";
import { startBuiltServer } from "./lib/start-server-dist";
import { groupCpuSeconds } from "./lib/proc-cpu";
import { makeRng } from "./lib/text";

const MB = Number(process.env.BENCH_CHATGPT_MB || 300);
const TURNS_PER_CONVERSATION = 20;
const TARGET_TURNS = 2_000;
const TARGET_RSS_MB = 600;
const DB = process.env.DATABASE_URL ? "PostgreSQL" : "PGlite";
const CPU_PROF = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : "";
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");

const WORDS = "the a train ticket museum coffee recipe budget weekend garden python error deploy meeting summary invoice river bicycle mountain winter schedule".split(" ");

/** Writes the export, a conversation at a time; answers its turn count. */
function writeExport(file: string): { conversations: number; turns: number; bytes: number } {
  const rng = makeRng(2525);
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rng() * WORDS.length)]).join(" ");
  const fd = fs.openSync(file, "w");
  let bytes = 0;
  let conversations = 0;
  let turns = 0;
  const put = (s: string) => {
    bytes += Buffer.byteLength(s);
    fs.writeSync(fd, s);
  };
  put("[");
  let t = 1_700_000_000.123;
  while (bytes < MB * 1024 * 1024) {
    const id = `bench-${conversations}`;
    const mapping: Record<string, unknown> = {};
    const node = (nid: string, parent: string | null, children: string[], message: unknown) => (mapping[nid] = { id: nid, message, parent, children });
    const msg = (nid: string, role: string, text: string) => ({
      id: nid, author: { role, name: null, metadata: {} }, create_time: (t += 7.25), update_time: null,
      content: { content_type: "text", parts: [text] }, status: "finished_successfully", end_turn: role === "assistant" ? true : null, weight: 1.0,
      metadata: role === "assistant" ? { model_slug: "gpt-4o", finish_details: { type: "stop" }, citations: [] } : {}, recipient: "all",
    });
    node(`${id}-root`, null, [`${id}-sys`], null);
    const sys = { ...msg(`${id}-sys`, "system", ""), metadata: { is_visually_hidden_from_conversation: true } };
    let parent = `${id}-sys`;
    const kids: Record<string, string[]> = { [`${id}-root`]: [parent] };
    let current = parent;
    for (let k = 0; k < TURNS_PER_CONVERSATION; k++) {
      const u = `${id}-u${k}`;
      const a = `${id}-a${k}`;
      (kids[parent] ??= []).push(u);
      node(u, parent, [], msg(u, "user", `${words(30)}?`));
      const answers = [a];
      if (k % 10 === 9) answers.push(`${id}-a${k}r`); // a regenerated answer: a branch
      kids[u] = answers;
      for (const x of answers) node(x, u, [], msg(x, "assistant", words(120)));
      turns += answers.length;
      parent = answers[answers.length - 1];
      current = parent;
    }
    node(`${id}-sys`, `${id}-root`, [], sys);
    for (const [nid, ch] of Object.entries(kids)) (mapping[nid] as { children: string[] }).children = ch;
    const conv = { title: `Bench ${conversations}`, create_time: t, update_time: t + 100, mapping, moderation_results: [], current_node: current, plugin_ids: null, conversation_id: id, id, default_model_slug: "gpt-4o", is_archived: false, safe_urls: [] };
    put(`${conversations ? "," : ""}\n${JSON.stringify(conv)}`);
    conversations++;
  }
  put("\n]\n");
  fs.closeSync(fd);
  return { conversations, turns, bytes };
}

/** Resident memory of a process group, in MB (VmRSS summed over its processes). */
function groupRssMb(pgid: number): number {
  let kb = 0;
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) !== pgid) continue;
      const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${d}/status`, "utf8"));
      if (m) kb += Number(m[1]);
    } catch {
      /* gone */
    }
  }
  return kb / 1024;
}

runMain("bench:import-chatgpt", async (onCleanup) => {
  const machine = printMachine();
  const loadBefore = load();
  const dir = makeTempDir("memscope-bench-chatgpt-");
  onCleanup(() => removeDir(dir));
  const file = path.join(dir, "conversations.json");
  const g0 = now();
  const gen = writeExport(file);
  console.log(`ChatGPT export: ${gen.conversations} conversations, ${gen.turns.toLocaleString("en-US")} turns, ${(gen.bytes / 1024 / 1024).toFixed(0)} MiB (written in ${((now() - g0) / 1000).toFixed(1)} s)`);
  console.log(`Database: ${DB}; load average ${loadBefore}`);

  const server = await startBuiltServer(path.join(dir, "data"), undefined, undefined, {}, [...(CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${CPU_PROF}`] : []), ...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? [])]);
  onCleanup(() => server.stop());
  const rssIdle = groupRssMb(server.pid);
  let rssPeak = rssIdle;
  let rssNow = rssIdle;
  const sampler = setInterval(() => {
    rssNow = groupRssMb(server.pid);
    rssPeak = Math.max(rssPeak, rssNow);
  }, 200);
  onCleanup(() => clearInterval(sampler));
  const cpu0 = groupCpuSeconds(server.pid);
  const t0 = now();
  const r = await fetch(`${server.base}/api/v1/imports/upload?format=chatgpt&file_name=bench-conversations.json`, {
    method: "POST",
    headers: { "content-type": "application/octet-stream" },
    body: Readable.toWeb(fs.createReadStream(file)) as unknown as BodyInit,
    duplex: "half",
  } as RequestInit);
  const uploadMs = now() - t0;
  const started = (await r.json()) as { id: string; status: string };
  if (r.status !== 202) throw new Error(`upload answered ${r.status}: ${JSON.stringify(started).slice(0, 500)}`);
  let job: { status: string; processed: number; total: number; counts: Record<string, number>; problems: unknown[]; error: string | null } = started as never;
  let last = 0;
  while (job.status === "running" || job.status === "pending") {
    await new Promise((res) => setTimeout(res, 500));
    job = await (await fetch(`${server.base}/api/v1/imports/${started.id}`)).json();
    if (now() - last > 10_000) {
      last = now();
      const cpuNow = groupCpuSeconds(server.pid);
      console.log(`    ${job.counts.turns.toLocaleString("en-US")} turns, ${((now() - t0) / 1000).toFixed(0)} s, server CPU ${cpuNow !== null && cpu0 !== null ? (cpuNow - cpu0).toFixed(0) : "-"} s, RSS ${rssNow.toFixed(0)} MB (peak ${rssPeak.toFixed(0)} MB), load ${load()}`);
    }
  }
  const totalMs = now() - t0;
  const cpu1 = groupCpuSeconds(server.pid);
  clearInterval(sampler);
  // What stays once the token workers have ended (their idle time-out is 10 s): the server's
  // own thread, the embedded database's WASM memory included (it never shrinks). Peak minus
  // this is what the workers and the batches in flight held.
  const rssDone = groupRssMb(server.pid);
  await new Promise((res) => setTimeout(res, 12_000));
  const rssRest = groupRssMb(server.pid);
  console.log(`RSS at the job's end ${rssDone.toFixed(0)} MB; 12 s later (token workers ended) ${rssRest.toFixed(0)} MB`);
  // BENCH_SERVER_LOG=<file>: the server's output (its last 20 000 characters), e.g. with BENCH_NODE_ARGS=--trace-gc for its heap sizes.
  if (process.env.BENCH_SERVER_LOG) fs.writeFileSync(process.env.BENCH_SERVER_LOG, server.log());
  await server.stop();
  if (job.status !== "done" || job.counts.turns !== gen.turns) throw new Error(`job ${job.status} ${job.error}: ${JSON.stringify(job.counts)} ${JSON.stringify(job.problems).slice(0, 300)}`);
  const turnsPerSec = Math.round(gen.turns / (totalMs / 1000));
  const cpuS = cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null;
  const loadAfter = load();
  console.log(`\n=== ChatGPT export, ${(gen.bytes / 1024 / 1024).toFixed(0)} MiB, POST /imports/upload to job done, the server as npm start runs it + ${DB}; load average before ${loadBefore}, after ${loadAfter} ===`);
  // Turns per server CPU-second: what a loaded machine changes least (wall time waits for the CPU others hold).
  const turnsPerCpuS = cpuS ? Math.round(gen.turns / cpuS) : null;
  console.log(`| turns | conversations | upload s | total s | turns/s | server CPU s | turns per CPU s | RSS idle MB | RSS peak MB |`);
  console.log(`| ${gen.turns} | ${gen.conversations} | ${(uploadMs / 1000).toFixed(1)} | ${(totalMs / 1000).toFixed(1)} | ${turnsPerSec} | ${cpuS?.toFixed(1) ?? "-"} | ${turnsPerCpuS ?? "-"} | ${rssIdle.toFixed(0)} | ${rssPeak.toFixed(0)} |`);
  console.log(`Target ${TARGET_TURNS} turns/s: ${turnsPerSec >= TARGET_TURNS ? "MET" : "MISSED"}; RSS < ${TARGET_RSS_MB} MB: ${rssPeak < TARGET_RSS_MB ? "MET" : "MISSED"}`);
  const resultsDir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(resultsDir, { recursive: true });
  const out = path.join(resultsDir, DB === "PGlite" ? "import-chatgpt.json" : "import-chatgpt-postgres.json");
  fs.writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), machine, database: DB, loadAverage: { before: loadBefore, after: loadAfter }, mib: gen.bytes / 1024 / 1024, conversations: gen.conversations, turns: gen.turns, uploadSeconds: uploadMs / 1000, seconds: totalMs / 1000, turnsPerSec, serverCpuSeconds: cpuS, turnsPerCpuSecond: turnsPerCpuS, rssIdleMb: rssIdle, rssPeakMb: rssPeak, rssAfterMb: rssRest, targets: { turnsPerSec: TARGET_TURNS, rssMb: TARGET_RSS_MB } }, null, 2)}\n`);
  console.log(`Results written to ${path.relative(ROOT, out)}`);
});
