// Server CPU per POST /api/v1/window (production server, open mode, PGlite), to split a framework
// strategy's HTTP time into what every request costs and what the strategy adds: a one-turn
// body, then the 500-turn thread of bench:window under mastra_last_messages (counts 11
// messages) and llamaindex_buffer (everything kept). BENCH_CPU_PROF=<dir>: the server runs with
// node --cpu-prof into that folder (read it with bench/diag/cpu-profile-top.ts --last=S).
// BENCH_ONLY=cold: only the llamaindex_buffer 0.75 x 128k thread with every text new to the server
// (a per-request mark in front of each, as bench:window's cold requests), N requests.
//   tsx --conditions=react-server bench/diag/window-fixed-cost.ts
import os from "node:os";
import { makeTempDir, removeDir } from "../lib/common";
import { groupCpuSeconds } from "../lib/proc-cpu";
import { startBuiltServer } from "../lib/start-server-dist";
import { makeTurnGenerator } from "../lib/text";

const N = Number(process.env.BENCH_N || 200);
const prof = process.env.BENCH_CPU_PROF;
const gen = makeTurnGenerator(20240611);
const thread: { role: string; content: string }[] = [];
for (let i = 0; i < 500; i++) {
  const t = gen();
  thread.push({ role: "user", content: t.query }, { role: "assistant", content: t.answer });
}
const dir = makeTempDir("memscope-diag-window-fixed-");
const server = await startBuiltServer(dir, 90_000, "/api/v1/ready", {}, prof ? ["--cpu-prof", `--cpu-prof-dir=${prof}`] : []);
const body = (messages: unknown[], strategy: unknown) =>
  JSON.stringify({ messages, model: "gpt-4o", strategy, temporary_messages: [{ role: "user", content: "And what next?" }] });
async function perRequest(label: string, b: string, n: number) {
  const c0 = groupCpuSeconds(server.pid)!;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await fetch(`${server.base}/api/v1/window`, { method: "POST", headers: { "content-type": "application/json" }, body: b });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${label}: ${r.status}`);
  }
  const cpu = ((groupCpuSeconds(server.pid)! - c0) / n) * 1000;
  console.log(`  ${label}: ${cpu.toFixed(1)} ms server CPU, ${((performance.now() - t0) / n).toFixed(1)} ms wall per request`);
}
/** perRequest with a new body for each request, made before its clock starts. */
async function perRequestEach(label: string, make: () => string, n: number) {
  const bodies = Array.from({ length: n }, make);
  const c0 = groupCpuSeconds(server.pid)!;
  const t0 = performance.now();
  for (const b of bodies) {
    const r = await fetch(`${server.base}/api/v1/window`, { method: "POST", headers: { "content-type": "application/json" }, body: b });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${label}: ${r.status}`);
  }
  const cpu = ((groupCpuSeconds(server.pid)! - c0) / n) * 1000;
  console.log(`  ${label}: ${cpu.toFixed(1)} ms server CPU, ${((performance.now() - t0) / n).toFixed(1)} ms wall per request; load average ${os.loadavg()[0].toFixed(1)}`);
}
try {
  const one = body(thread.slice(0, 2), { type: "mastra_last_messages", last_messages: 10 });
  const mastra = body(thread, { type: "mastra_last_messages", last_messages: 10 });
  const llama = body(thread, { type: "llamaindex_buffer" });
  await perRequest("warm-up", one, 50);
  await perRequest("warm-up", llama, 20);
  if (process.env.BENCH_ONLY === "cold") {
    let mark = 0;
    const cold = () => body(thread.map((m) => ({ ...m, content: `[${++mark}] ${m.content}` })), { type: "llamaindex_buffer" });
    await perRequestEach("cold warm-up", cold, 20);
    await perRequestEach("500 turns, llamaindex_buffer 0.75 x 128k, every text new", cold, N);
    await perRequest("500 turns, llamaindex_buffer 0.75 x 128k (warm)", llama, N);
  } else {
    await perRequest("one turn, mastra_last_messages", one, N);
    // BENCH_ONLY=one: the fixed cost alone (a profile of it).
    if (process.env.BENCH_ONLY !== "one") {
      await perRequest("500 turns, mastra_last_messages 10", mastra, N);
      await perRequest("500 turns, llamaindex_buffer 0.75 x 128k", llama, N);
    }
  }
} finally {
  await server.stop();
  removeDir(dir);
}
process.exit(0);
