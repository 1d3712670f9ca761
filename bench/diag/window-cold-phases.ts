// Diagnostic: where a cold llamaindex_buffer 0.75 x 128k call spends its CPU (issue 42). Every text
// new to the project's counter, as POST /window's first request of a thread: the texts come from
// JSON.parse (flat strings, as the route's body gives them; a template string would be a cons string
// whose first hash flattens it, a cost the server never pays). Prints the median CPU of the whole
// call and of its parts, each part on fresh texts, beside the load average.
// BENCH_N (default 40). Run: npx tsx --conditions=react-server bench/diag/window-cold-phases.ts
import os from "node:os";
import { applyStrategy } from "../../lib/strategies/apply-strategy";
import { ZStrategy, type RoleMessage } from "../../lib/strategies/schemas";
import { projectTextCounter } from "../../lib/strategies/text-counts";
import { countSpaced, countText } from "../../lib/tokens/count-tokens";
import { makeTurnGenerator } from "../lib/text";
import { ms, stats } from "../lib/common";

const N = Number(process.env.BENCH_N || 40);
const gen = makeTurnGenerator(20240611);
const thread: RoleMessage[] = [];
for (let i = 0; i < 500; i++) {
  const t = gen();
  thread.push({ role: "user", content: t.query }, { role: "assistant", content: t.answer });
}
let mark = 0;
/** The thread with a new mark in front of every text, parsed from JSON (flat strings). */
const fresh = (): RoleMessage[] => JSON.parse(JSON.stringify(thread.map((m) => ({ ...m, content: `[${++mark}] ${m.content as string}` }))));
const counter = projectTextCounter("diag-phases");
const strategy = ZStrategy.parse({ type: "llamaindex_buffer" });
const temporary: RoleMessage[] = [{ role: "user", content: "And what next?" }];

async function cpuOf(prepare: () => RoleMessage[], fn: (m: RoleMessage[]) => unknown): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < N + 5; i++) {
    const input = prepare();
    const a = process.cpuUsage();
    await fn(input);
    const d = process.cpuUsage(a);
    if (i >= 5) xs.push((d.user + d.system) / 1000);
  }
  return stats(xs).p50;
}
const texts = (ms_: RoleMessage[]) => ms_.map((m) => m.content as string);
const rows: [string, number][] = [];
rows.push(["whole cold applyStrategy (project counter)", await cpuOf(fresh, (m) => applyStrategy(m, strategy, { model: "gpt-4o", temporary, textCounts: counter }))]);
rows.push(["whole warm applyStrategy (same texts again)", await cpuOf(() => JSON.parse(JSON.stringify(thread)), (m) => applyStrategy(m, strategy, { model: "gpt-4o", temporary, textCounts: counter }))]);
rows.push(["cl100k countSpaced of each text (no cache)", await cpuOf(fresh, (m) => texts(m).forEach((t) => countSpaced(t, "cl100k_base")))]);
rows.push(["o200k countText of each text (no cache)", await cpuOf(fresh, (m) => texts(m).forEach((t) => countText(t, "o200k_base")))]);
rows.push(["Map.set of each text (a new Map)", await cpuOf(fresh, (m) => { const map = new Map<string, object>(); for (const t of texts(m)) map.set(t, {}); })]);
rows.push(["whole cold, uncached counter", await cpuOf(fresh, (m) => applyStrategy(m, strategy, { model: "gpt-4o", temporary }))]);
const load = os.loadavg()[0].toFixed(1);
for (const [name, v] of rows) console.log(`${name.padEnd(46)} cpu p50 ${ms(v)} ms`);
console.log(`N=${N}, load average ${load}`);
