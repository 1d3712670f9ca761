// Diagnostic: the framework strategies of issue 42 in process over a 500-turn thread
// (1 000 messages), the same text generator as bench:window. Prints p50/p95 per strategy.
// BENCH_N (default 60). Run: npx tsx --conditions=react-server bench/diag/window-frameworks-profile.ts
import fs from "node:fs";
import os from "node:os";
import { applyStrategy } from "../../lib/strategies/apply-strategy";
import { countsAheadTally } from "../../lib/strategies/counts-ahead";
import { ZStrategy, type RoleMessage } from "../../lib/strategies/schemas";
import { projectTextCounter, type TextCounter } from "../../lib/strategies/text-counts";
import { countInWarmPool } from "../../lib/tokens/count-tokens-parallel";
import { makeTurnGenerator } from "../lib/text";
import { measure, ms, stats } from "../lib/common";

const N = Number(process.env.BENCH_N || 60);
const gen = makeTurnGenerator(20240611);
const thread: RoleMessage[] = [];
for (let i = 0; i < 500; i++) {
  const t = gen();
  thread.push({ role: "user", content: t.query }, { role: "assistant", content: t.answer });
}
const STRATEGIES: { name: string; strategy: Record<string, unknown> }[] = [
  { name: "langchain_trim last 2000 (model)", strategy: { type: "langchain_trim", max_tokens: 2000, strategy: "last", token_counter: "model", start_on: "human" } },
  { name: "llamaindex_buffer 0.75 x 128k", strategy: { type: "llamaindex_buffer" } },
  { name: "llamaindex_buffer 2000", strategy: { type: "llamaindex_buffer", token_limit: 2000 } },
  { name: "llamaindex_memory 30000 (default)", strategy: { type: "llamaindex_memory" } },
  { name: "mastra_last_messages 10", strategy: { type: "mastra_last_messages", last_messages: 10 } },
];
const only = process.env.ONLY;
// Cold: a project's text counter, every text new to it (a mark in front of each, as bench:window's
// cold requests); warm: the same counter, which the texts of the warm-up calls filled (POST /window's
// case for an agent that sends its history every turn).
// The marked texts come from JSON.parse, as the route's body gives them: a template string is a
// rope whose first hash flattens it, a cost the server never pays. Inputs are made before the clock.
let mark = 0;
const fresh = (): RoleMessage[] => JSON.parse(JSON.stringify(thread.map((m) => ({ ...m, content: `[${++mark}] ${m.content as string}` }))));
// The pool's o200k worker running, as in a server that counted a large cold batch in the last 10 s.
for (;;) {
  const p = countInWarmPool(["warm"], "o200k_base");
  if (p && (await p)) break;
  await new Promise((r) => setTimeout(r, 200));
}
const counter: TextCounter = projectTextCounter("diag");
// "cold, no pool": the same counter without known/record, so applyStrategy counts the model's
// encoding on this thread as before the pool took it (section 57): an A/B in one process.
const inThread: TextCounter = { count: counter.count, spaced: counter.spaced };
const modes: { label: string; messages: () => RoleMessage[]; counter: TextCounter }[] = [
  { label: "cold", messages: fresh, counter },
  { label: "cold, no pool", messages: fresh, counter: inThread },
  { label: "warm", messages: () => structuredClone(thread), counter },
];
/** This thread's CPU seconds alone (/proc: 10 ms ticks, so read over many calls); the process's includes the pool's workers. */
const mainThreadCpu = () => {
  const f = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
};
for (const f of STRATEGIES) {
  if (only && !f.name.includes(only)) continue;
  const strategy = ZStrategy.parse(f.strategy);
  for (const mode of modes) {
    const apply = (messages: RoleMessage[]) => applyStrategy(messages, strategy, { model: "gpt-4o", temporary: [{ role: "user", content: "And what next?" }], textCounts: mode.counter });
    const inputs = Array.from({ length: N + 5 }, mode.messages);
    const { samples } = await measure(() => apply(inputs.shift()!), { warmup: 5, n: N });
    const s = stats(samples);
    // CPU time per call too: wall times mean little while other work shares the cores.
    const cpu: number[] = [];
    let mainCpu = 0;
    for (let i = 0; i < N; i++) {
      const input = mode.messages();
      const a = process.cpuUsage();
      const m0 = mainThreadCpu();
      await apply(input);
      mainCpu += mainThreadCpu() - m0;
      const d = process.cpuUsage(a);
      cpu.push((d.user + d.system) / 1000);
    }
    const c = stats(cpu);
    console.log(
      `${`${f.name} ${mode.label}`.padEnd(48)} wall p50 ${ms(s.p50)} ms  p95 ${ms(s.p95)} ms | cpu p50 ${ms(c.p50)} ms  p95 ${ms(c.p95)} ms, this thread ${ms((mainCpu * 1000) / N)} ms a call | pool batches in time ${countsAheadTally.inTime}/${countsAheadTally.sent} | load average ${os.loadavg()[0].toFixed(1)}`,
    );
    countsAheadTally.sent = countsAheadTally.inTime = 0;
  }
}

// The request's other in-process costs: the body's JSON and zod parse, the answer's JSON.
{
  const { ZWindowInput } = await import("../../lib/strategies/schemas");
  const body = JSON.stringify({ messages: thread, model: "gpt-4o", strategy: { type: "llamaindex_buffer" }, temporary_messages: [{ role: "user", content: "And what next?" }] });
  const cpuOf = (fn: () => unknown) => {
    const xs: number[] = [];
    for (let i = 0; i < N; i++) {
      const a = process.cpuUsage();
      fn();
      const d = process.cpuUsage(a);
      xs.push((d.user + d.system) / 1000);
    }
    return stats(xs);
  };
  const parsed = cpuOf(() => ZWindowInput.parse(JSON.parse(body)));
  const input = ZWindowInput.parse(JSON.parse(body));
  const result = await applyStrategy(input.messages, input.strategy, { model: input.model, temporary: input.temporary_messages });
  const answer = cpuOf(() => JSON.stringify(result));
  console.log(`body ${Math.round(body.length / 1024)} KB: JSON + zod parse cpu p50 ${ms(parsed.p50)} ms; answer ${Math.round(JSON.stringify(result).length / 1024)} KB JSON cpu p50 ${ms(answer.p50)} ms`);
}
