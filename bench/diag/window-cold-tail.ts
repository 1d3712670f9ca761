// Diagnostic: where the cold `llamaindex_buffer` 0.75 x 128k requests' tail goes (issue 42). The
// built server runs with bench/diag/window-request-trace.cjs preloaded, which logs per request
// its wall time, the main thread's CPU and its wait for a core, the other threads' CPU, and the GC
// pauses inside it; this sends bench:window's cold requests (the 500-turn thread, every text new,
// bodies made before the clock) and prints the slowest tenth beside the rest.
// BENCH_N (default 200), BENCH_WARMUP (cold requests before the measured ones, default 25: the counts at their bound), BENCH_STRATEGY (JSON, default llamaindex_buffer), BENCH_NODE_ARGS (extra
// node flags for the server, space-separated), BENCH_WARM=1 (the same thread each time instead).
//   tsx --conditions=react-server bench/diag/window-cold-tail.ts
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { makeTempDir, ms, removeDir, ROOT, stats } from "../lib/common";
import { groupCpuSeconds } from "../lib/proc-cpu";
import { startBuiltServer } from "../lib/start-server-dist";
import { makeTurnGenerator } from "../lib/text";

const N = Number(process.env.BENCH_N || 200);
const strategy = JSON.parse(process.env.BENCH_STRATEGY || '{"type":"llamaindex_buffer"}');
const gen = makeTurnGenerator(20240611);
const thread: { role: string; content: string }[] = [];
for (let i = 0; i < 500; i++) {
  const t = gen();
  thread.push({ role: "user", content: t.query }, { role: "assistant", content: t.answer });
}
const dir = makeTempDir("memscope-diag-window-tail-");
const trace = path.join(dir, "trace.jsonl");
const extra = (process.env.BENCH_NODE_ARGS || "").split(" ").filter(Boolean);
const server = await startBuiltServer(dir, 90_000, "/api/v1/ready", { WINDOW_TRACE_OUT: trace }, [
  "--require",
  path.join(ROOT, "bench", "diag", "window-request-trace.cjs"),
  ...extra,
]);
const load = () => os.loadavg().map((x) => x.toFixed(1)).join(" / ");
const body = (messages: unknown[]) => JSON.stringify({ messages, model: "gpt-4o", strategy, temporary_messages: [{ role: "user", content: "And what next?" }] });
let mark = 0;
const make = process.env.BENCH_WARM === "1" ? () => body(thread) : () => body(thread.map((m) => ({ ...m, content: `[${++mark}] ${m.content}` })));
async function send(b: string): Promise<number> {
  const t0 = performance.now();
  const r = await fetch(`${server.base}/api/v1/window`, { method: "POST", headers: { "content-type": "application/json" }, body: b });
  await r.text();
  if (r.status !== 200) throw new Error(`window answered ${r.status}`);
  return performance.now() - t0;
}
type Row = { wall: number; mainCpu: number; mainWait: number; others: number; othersWait: number; invol: number; gc: Record<string, number>; heapUsed: number; client: number };
try {
  for (let i = 0; i < Number(process.env.BENCH_WARMUP ?? 25); i++) await send(make());
  await new Promise((r) => setTimeout(r, 1500));
  fs.writeFileSync(trace, "");
  const bodies = Array.from({ length: N }, make);
  const c0 = groupCpuSeconds(server.pid)!;
  const client: number[] = [];
  const cpuClient0 = process.cpuUsage();
  for (const b of bodies) client.push(await send(b));
  const cpuClient = process.cpuUsage(cpuClient0);
  const serverCpu = ((groupCpuSeconds(server.pid)! - c0) * 1000) / N;
  await new Promise((r) => setTimeout(r, 300));
  const rows: Row[] = fs
    .readFileSync(trace, "utf8")
    .trim()
    .split("\n")
    .map((l, i) => ({ ...(JSON.parse(l) as Omit<Row, "client">), client: client[i] }));
  const c = stats(client);
  console.log(`${N} requests ${JSON.stringify(strategy)}${process.env.BENCH_WARM === "1" ? " warm" : " cold"}; node args ${extra.join(" ") || "-"}; load average ${load()}`);
  console.log(`client wall p50 ${ms(c.p50)} p95 ${ms(c.p95)} max ${ms(c.max)} ms; server CPU ${ms(serverCpu)} ms a request (/proc group); client CPU ${ms((cpuClient.user + cpuClient.system) / 1000 / N)} ms a request`);
  const sorted = [...rows].sort((a, b) => b.client - a.client);
  const tenth = Math.max(1, Math.round(N / 10));
  const mean = (xs: Row[], f: (r: Row) => number) => xs.reduce((s, r) => s + f(r), 0) / xs.length;
  const gcOf = (r: Row, k: string) => r.gc[k] ?? 0;
  const line = (label: string, xs: Row[]) =>
    console.log(
      `${label.padEnd(16)} client ${ms(mean(xs, (r) => r.client)).padStart(6)} | server wall ${ms(mean(xs, (r) => r.wall)).padStart(6)} | main CPU ${ms(mean(xs, (r) => r.mainCpu)).padStart(6)} waiting ${ms(mean(xs, (r) => r.mainWait)).padStart(6)} | others CPU ${ms(mean(xs, (r) => r.others)).padStart(6)} waiting ${ms(mean(xs, (r) => r.othersWait)).padStart(6)} | invol ${mean(xs, (r) => r.invol).toFixed(1)} | GC major ${ms(mean(xs, (r) => gcOf(r, "major")))} (${xs.filter((r) => gcOf(r, "major") > 0).length}/${xs.length}) minor ${ms(mean(xs, (r) => gcOf(r, "minor")))} incr ${ms(mean(xs, (r) => gcOf(r, "incremental")))} | heap ${Math.round(mean(xs, (r) => r.heapUsed) / 1e6)} MB`,
    );
  line("slowest tenth", sorted.slice(0, tenth));
  line("the rest", sorted.slice(tenth));
  line("all", rows);
  console.log("slowest 8:");
  for (const r of sorted.slice(0, 8)) console.log(`  ${JSON.stringify({ ...r, heapUsed: Math.round(r.heapUsed / 1e6) }, (_, v) => (typeof v === "number" ? Math.round(v * 10) / 10 : v))}`);
  // --trace-gc in BENCH_NODE_ARGS: the server's major GCs (and why V8 started them) from its last output.
  if (extra.includes("--trace-gc")) for (const l of server.log().split("\n")) if (/Mark-Compact|Mark-sweep/i.test(l)) console.log(`  ${l.trim()}`);
} finally {
  await server.stop();
  removeDir(dir);
}
process.exit(0);
