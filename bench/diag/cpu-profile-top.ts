// npx tsx bench/diag/cpu-profile-top.ts <dir or .cpuprofile files> [N] [--last=S]
//
// Where a profiled server spent its CPU: reads V8 CPU profiles (node --cpu-prof, e.g. from
// BENCH_CPU_PROF=<dir> npm run bench:import-chatgpt), and prints per profile (one per thread)
// its sampled seconds, the N functions with the most self time, and self time per file, so
// the largest cost is named before anything is changed. --last=S counts only the profile's last
// S seconds (a benchmark stops its server right after the measured work: its start-up is left out);
// --window=A-B counts the seconds A to B from the profile's start (a server that idles after the work).

import fs from "node:fs";
import path from "node:path";

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

const argv = process.argv.slice(2);
const lastArg = argv.find((a) => a.startsWith("--last="));
const lastUs = lastArg ? Number(lastArg.slice(7)) * 1e6 : Infinity;
const windowArg = argv.find((a) => a.startsWith("--window="));
const [windowFrom, windowTo] = windowArg ? windowArg.slice(9).split("-").map((x) => Number(x) * 1e6) : [0, Infinity];
const args = argv.filter((a) => a !== lastArg && a !== windowArg);
const top = Number(args.find((a) => /^\d+$/.test(a)) ?? 25);
const files = args
  .filter((a) => !/^\d+$/.test(a))
  .flatMap((a) => (fs.statSync(a).isDirectory() ? fs.readdirSync(a).filter((f) => f.endsWith(".cpuprofile")).map((f) => path.join(a, f)) : [a]));
if (!files.length) {
  console.error("usage: tsx bench/diag/cpu-profile-top.ts <dir|file.cpuprofile>... [N]");
  process.exit(2);
}

const short = (url: string) => url.replace(/^file:\/\//, "").replace(/.*\/node_modules\//, "~/").replace(/.*\/\.next\//, ".next/").replace(/.*\/(lib|app)\//, "$1/");

for (const file of files) {
  const p = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  // Sample times from the deltas; keep those within the last `lastUs` before the profile's end.
  let t = p.startTime;
  const from = p.endTime - lastUs;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    if (t >= from && t - p.startTime >= windowFrom && t - p.startTime < windowTo) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  let total = 0;
  let idle = 0;
  const fn = new Map<string, number>();
  const perFile = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    total += us;
    const name = n.callFrame.functionName || "(anonymous)";
    if (name === "(idle)") idle += us;
    const key = `${name}  ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    const f = short(n.callFrame.url) || `(${name})`;
    perFile.set(f, (perFile.get(f) ?? 0) + us);
  }
  const s = (us: number) => (us / 1e6).toFixed(2).padStart(7);
  console.log(`\n== ${path.basename(file)}: ${s(total)} s sampled, ${s(total - idle)} s busy ==`);
  for (const [k, us] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${s(us)} s  ${k}`);
  console.log("-- self time per file --");
  for (const [k, us] of [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${s(us)} s  ${k}`);
}
