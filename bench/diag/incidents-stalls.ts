// node --liftoff-only --conditions=react-server --import tsx bench/diag/incidents-stalls.ts
//
// What holds the server's thread while a backfill scan runs (issue 38's /ready p99): the scan
// job in process, as the server runs it (startScan), on PGlite (DATA: a data folder loaded once
// with COPIES labelled-set copies and N filler conversations, copied per run) or PostgreSQL
// (PG_URL, loaded when empty), with V8's sampling profiler on and a 10 ms timer. Every stall of
// the event loop over STALL_MS (default 50) is printed with the statements in flight during it
// and the functions that took its samples (self time), so the cause is named, not guessed.
// Then the scan's rate, the process's and main thread's CPU, and the load average.
import fs from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import { getScan, startScan } from "../../lib/incidents/scan-job";
import { removeDir } from "../lib/common";
import { mainThreadCpu, openScanDataSet } from "../lib/incident-scan-data";

const url = process.env.PG_URL;
const STALL_MS = Number(process.env.STALL_MS || 50);
const us = () => Number(process.hrtime.bigint() / 1000n); // CLOCK_MONOTONIC, as V8's profile timestamps
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
// The main thread's on-CPU time in ns (schedstat: not in clock ticks): a stall's CPU is what
// it would last on an idle machine, whatever the load stretched its wall time to.
const mainNs = () => Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]);
const mainCpu = mainThreadCpu;
type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number };
const short = (u: string) => u.replace(/^file:\/\//, "").replace(/.*\/node_modules\//, "~/").replace(/.*\/(lib|bench)\//, "$1/");

(async () => {
  const { db, base, dir } = await openScanDataSet(url, "inc-stalls-");
  // Statements with their start and end (for "what was in flight during a stall").
  const stmts: { from: number; to: number; text: string }[] = [];
  const sql = {
    ...base,
    query: async (text: string, params?: unknown[]) => {
      const from = us();
      try {
        return await base.query(text, params as never);
      } finally {
        stmts.push({ from, to: us(), text: text.replace(/\s+/g, " ").trim().slice(0, 70) });
      }
    },
  } as typeof base;

  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 500 });
  await session.post("Profiler.start");
  const stalls: { from: number; to: number; cpuMs: number }[] = [];
  let last = us();
  let lastNs = mainNs();
  const cpuGaps: number[] = [];
  const timer = setInterval(() => {
    const t = us();
    const ns = mainNs();
    const cpuMs = (ns - lastNs) / 1e6;
    cpuGaps.push(cpuMs);
    if (t - last - 10_000 > STALL_MS * 1000 || cpuMs > STALL_MS) stalls.push({ from: last + 10_000, to: t, cpuMs });
    last = t;
    lastNs = ns;
  }, 10);
  const c0 = cpu();
  const m0 = mainCpu();
  const w0 = performance.now();
  const job = await startScan(sql, {}, { embedded: !url });
  let st = await getScan(base, job.id);
  while (st.status === "running") {
    await new Promise((r) => setTimeout(r, 50));
    st = await getScan(base, job.id);
  }
  const wall = (performance.now() - w0) / 1000;
  const c = cpu() - c0;
  const m = mainCpu() - m0;
  clearInterval(timer);
  const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: Profile };
  session.disconnect();

  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const ch of n.children ?? []) parent.set(ch, n.id);
  const frame = (id: number) => {
    const f = byId.get(id)!.callFrame;
    return `${f.functionName || "(anon)"} ${short(f.url)}:${f.lineNumber + 1}`;
  };
  // The nearest caller from our own code (lib/ or bench/), to say which step a library frame served.
  const ours = (id: number) => {
    for (let p: number | undefined = id; p !== undefined; p = parent.get(p)) {
      const u = byId.get(p)!.callFrame.url;
      if (/\/(lib|bench)\//.test(u) && !u.includes("node_modules")) return frame(p);
    }
    return "-";
  };
  // The chain of our own frames (lib/, bench/) above a sample: which step a library frame served.
  const chain = (id: number) => {
    const out: string[] = [];
    for (let p: number | undefined = id; p !== undefined && out.length < 8; p = parent.get(p)) {
      const f = byId.get(p)!.callFrame;
      if (/\/(lib|bench)\//.test(f.url) && !f.url.includes("node_modules")) out.push(`${f.functionName || "(anon)"}:${f.lineNumber + 1}`);
    }
    return out.join(" < ");
  };
  const times: number[] = [];
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) times.push((t += profile.timeDeltas[i] ?? 0));
  const t0 = times[0] ?? 0;
  console.log(`stalls over ${STALL_MS} ms: ${stalls.length}: ${stalls.map((s) => `${((s.to - s.from) / 1000).toFixed(0)} ms (CPU ${s.cpuMs.toFixed(0)}) at ${((s.from - t0) / 1e6).toFixed(2)} s`).join(", ")}`);
  // The main thread's CPU between two ticks of the 10 ms timer: a quiet machine's stall.
  cpuGaps.sort((a, b) => a - b);
  const q = (p: number) => cpuGaps[Math.min(cpuGaps.length - 1, Math.floor((cpuGaps.length * p) / 100))] ?? 0;
  console.log(`main-thread CPU between timer ticks (what a stall would be on an idle machine): p50 ${q(50).toFixed(1)} p99 ${q(99).toFixed(1)} max ${q(100).toFixed(1)} ms over ${cpuGaps.length} ticks`);
  // The TOP longest, in detail.
  for (const s of [...stalls].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, Number(process.env.TOP || 6))) {
    const self = new Map<string, number>();
    const via = new Map<string, number>();
    for (let i = 0; i < times.length; i++) {
      if (times[i] < s.from || times[i] > s.to) continue;
      const d = (profile.timeDeltas[i] ?? 0) / 1000;
      const k = frame(profile.samples[i]);
      self.set(k, (self.get(k) ?? 0) + d);
      const o = ours(profile.samples[i]);
      via.set(o, (via.get(o) ?? 0) + d);
    }
    const paths = new Map<string, number>();
    for (let i = 0; i < times.length; i++) {
      if (times[i] < s.from || times[i] > s.to) continue;
      const k = chain(profile.samples[i]);
      paths.set(k, (paths.get(k) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    }
    const inFlight = stmts.filter((q) => q.from < s.to && q.to > s.from);
    console.log(`\n- stall ${((s.to - s.from) / 1000).toFixed(0)} ms (main-thread CPU ${s.cpuMs.toFixed(0)} ms) at ${((s.from - t0) / 1e6).toFixed(2)} s`);
    for (const q of inFlight) console.log(`    statement ${((q.to - q.from) / 1000).toFixed(0)} ms: ${q.text}`);
    for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 6)) console.log(`    self ${v.toFixed(0).padStart(4)} ms  ${k}`);
    for (const [k, v] of [...paths].sort((a, b) => b[1] - a[1]).slice(0, 2)) console.log(`    path ${v.toFixed(0).padStart(4)} ms  ${k || "-"}`);
    for (const [k, v] of [...via].sort((a, b) => b[1] - a[1]).slice(0, 4)) console.log(`    via  ${v.toFixed(0).padStart(4)} ms  ${k}`);
  }
  console.log(
    `\nscan (${url ? "PostgreSQL" : "PGlite"}): ${st.status} ${st.turns_scanned} turns, ${st.incidents_found} found, wall ${wall.toFixed(2)} s = ${(st.turns_scanned / wall).toFixed(0)} turns/s; ` +
      `CPU ${c.toFixed(2)} s, main thread ${m.toFixed(2)} s; worst stall ${Math.max(0, ...stalls.map((s) => (s.to - s.from) / 1000)).toFixed(0)} ms; load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`,
  );
  await db.close();
  if (dir) removeDir(dir);
})();
