import fs from "node:fs";

/**
 * CPU seconds used so far by the server's processes (its process group, worker threads
 * included), from /proc: on a shared machine, turns per CPU-second says what the code costs
 * whatever else runs; null where /proc is not there.
 */
export function groupCpuSeconds(pgid: number): number | null {
  try {
    let ticks = 0;
    for (const d of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(d)) continue;
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      } catch {
        continue;
      }
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // fields from the 3rd (state) on
      if (Number(f[2]) !== pgid) continue; // pgrp
      ticks += Number(f[11]) + Number(f[12]); // utime + stime
    }
    return ticks / 100; // USER_HZ
  } catch {
    return null;
  }
}

/**
 * CPU seconds used so far by the server's processes' main threads ("main: <name>") and by all
 * their other threads ("other threads": V8's GC and compiler helpers, worker_threads such as the
 * token pool, libuv's pool; Node 20 names them all "node", so they are not told apart here):
 * which part of a request's CPU the request thread paid.
 */
export function threadCpuSecondsByName(pgid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    let tasks: string[];
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) !== pgid) continue;
      tasks = fs.readdirSync(`/proc/${d}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      try {
        const stat = fs.readFileSync(`/proc/${d}/task/${t}/stat`, "utf8");
        const name = t === d ? `main: ${stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"))}` : "other threads";
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        out.set(name, (out.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) / 100);
      } catch {
        // the thread ended meanwhile
      }
    }
  }
  return out;
}

/**
 * Waits until a process's CPU seconds (as `read` gives them) grow by under 0.03 s in half a
 * second (at most 120 s), and returns the figure then: the cost of a run including the
 * background work it left behind (detection on ingest). /proc's ticks are 10 ms.
 */
export async function cpuUntilQuiet(read: () => number | null): Promise<number | null> {
  let last = read();
  for (let i = 0; i < 240 && last !== null; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const next = read();
    if (next === null) return null;
    if (next - last < 0.03) return next;
    last = next;
  }
  return last;
}
