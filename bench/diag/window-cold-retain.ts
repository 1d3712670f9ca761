// Diagnostic: what keeping a cold request's texts in the project's counts costs in GC (issue 42).
// Cold llamaindex_buffer 0.75 x 128k calls in process (texts from JSON.parse, as the route gets
// them), alternating blocks: counts kept across calls (the server's case), and the same counter
// emptied after each call (nothing retained: the texts die with the call). Prints process CPU
// (all threads: GC helpers included) and the GC pauses per call, beside the load average.
//   tsx --conditions=react-server bench/diag/window-cold-retain.ts
import os from "node:os";
import { PerformanceObserver, constants } from "node:perf_hooks";
import { applyStrategy } from "../../lib/strategies/apply-strategy";
import { ZStrategy, type RoleMessage } from "../../lib/strategies/schemas";
import { forgetTextCounts, projectTextCounter } from "../../lib/strategies/text-counts";
import { ms, stats } from "../lib/common";
import { makeTurnGenerator } from "../lib/text";

const N = Number(process.env.BENCH_N || 40);
const gen = makeTurnGenerator(20240611);
const thread: RoleMessage[] = [];
for (let i = 0; i < 500; i++) {
  const t = gen();
  thread.push({ role: "user", content: t.query }, { role: "assistant", content: t.answer });
}
let mark = 0;
const fresh = (): RoleMessage[] => JSON.parse(JSON.stringify(thread.map((m) => ({ ...m, content: `[${++mark}] ${m.content as string}` }))));
const gc = { major: 0, minor: 0, other: 0 };
new PerformanceObserver((l) => {
  for (const e of l.getEntries()) {
    const k = (e as unknown as { detail: { kind: number } }).detail.kind;
    if (k === constants.NODE_PERFORMANCE_GC_MAJOR) gc.major += e.duration;
    else if (k === constants.NODE_PERFORMANCE_GC_MINOR) gc.minor += e.duration;
    else gc.other += e.duration;
  }
}).observe({ entryTypes: ["gc"] });
const strategy = ZStrategy.parse({ type: "llamaindex_buffer" });
async function block(label: string, forget: boolean) {
  const inputs = Array.from({ length: N }, fresh);
  const cpu: number[] = [];
  const g0 = { ...gc };
  for (const input of inputs) {
    const a = process.cpuUsage();
    // No pool: both encodings on this thread, so the CPU read here is the whole request's counting.
    const c = projectTextCounter("diag");
    await applyStrategy(input, strategy, { model: "gpt-4o", temporary: [{ role: "user", content: "And what next?" }], textCounts: { count: c.count, spaced: c.spaced } });
    if (forget) forgetTextCounts();
    const d = process.cpuUsage(a);
    cpu.push((d.user + d.system) / 1000);
  }
  await new Promise((r) => setTimeout(r, 50));
  const s = stats(cpu);
  console.log(
    `${label.padEnd(28)} process CPU p50 ${ms(s.p50)} p95 ${ms(s.p95)} mean ${ms(cpu.reduce((x, y) => x + y, 0) / N)} ms | GC pauses a call: minor ${ms((gc.minor - g0.minor) / N)} major ${ms((gc.major - g0.major) / N)} other ${ms((gc.other - g0.other) / N)} ms | heap ${Math.round(process.memoryUsage().heapUsed / 1e6)} MB | load ${os.loadavg()[0].toFixed(1)}`,
  );
}
// Fill the counts to their bound first, as a server that has seen many cold threads.
for (let i = 0; i < 35; i++) await applyStrategy(fresh(), strategy, { model: "gpt-4o", textCounts: projectTextCounter("diag") });
for (let r = 0; r < 3; r++) {
  await block("kept across calls", false);
  for (let i = 0; i < 35; i++) await applyStrategy(fresh(), strategy, { model: "gpt-4o", textCounts: projectTextCounter("diag") });
  await block("emptied after each call", true);
  for (let i = 0; i < 35; i++) await applyStrategy(fresh(), strategy, { model: "gpt-4o", textCounts: projectTextCounter("diag") });
}
