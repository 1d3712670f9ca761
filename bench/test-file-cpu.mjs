// CPU-seconds of one test run, split by process kind: the Vitest worker(s), the production
// servers the suites start, Chromium (browser, renderers, GPU and network services) and the rest.
// Wall time on a 2-core machine shared with other work says little; the CPU a file costs is
// what it takes from the others (issue 41: npm test's server phase is CPU-bound).
//
//   node bench/test-file-cpu.mjs tests/browser/pages.test.ts [more files]
//
// Runs `scripts/run-tests.mjs` with those files (MEMSCOPE_SKIP_BUILD=1: build first) and samples
// /proc every 200 ms for every process descended from it, keeping each process's last utime +
// stime. A process that ends between two samples loses at most its last 200 ms; one that lives
// less than that is not seen (none of the suites' processes is that short). Prints the load
// average beside the figures: on a loaded machine CPU-seconds grow too (cache and scheduler
// contention), less than wall time does.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node bench/test-file-cpu.mjs <test files>");
  process.exit(2);
}
const TICK = 100; // USER_HZ: clock ticks per second in /proc/<pid>/stat (100 on Linux)

/** [ppid, utime + stime in ticks] of a process, or null once it is gone. */
function stat(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces: the fields after its closing parenthesis.
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return [Number(f[1]), Number(f[11]) + Number(f[12])];
  } catch {
    return null;
  }
}

function kindOf(pid) {
  let cmd = "";
  try {
    cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "other";
  }
  if (/chrom/.test(cmd)) return "chromium";
  if (/serve\.mjs|next-server|next start/.test(cmd)) return "server";
  if (/vitest/.test(cmd)) return "vitest";
  if (/pg-wire|postgres/.test(cmd)) return "database";
  return "other";
}

const seen = new Map(); // pid -> { kind, ticks }
const load0 = os.loadavg();
const t0 = performance.now();
const child = spawn(process.execPath, ["scripts/run-tests.mjs", ...files], {
  stdio: ["ignore", "inherit", "inherit"],
  env: { ...process.env, MEMSCOPE_SKIP_BUILD: "1" },
});
seen.set(child.pid, { kind: "runner", ticks: 0 });

function sample() {
  const parents = new Map();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const st = stat(Number(name));
    if (st) parents.set(Number(name), st);
  }
  // Descendants: a process whose parent is one already seen (orphans keep their entry once seen).
  let added = true;
  while (added) {
    added = false;
    for (const [pid, [ppid]] of parents) {
      if (!seen.has(pid) && seen.has(ppid)) {
        seen.set(pid, { kind: kindOf(pid), ticks: 0 });
        added = true;
      }
    }
  }
  for (const [pid, entry] of seen) {
    const st = parents.get(pid);
    if (!st) continue;
    entry.ticks = st[1];
    // Seen between fork and exec, a child still has its parent's command line: named again
    // until it is one of the kinds counted.
    if (entry.kind === "other" || entry.kind === "vitest") entry.kind = kindOf(pid);
  }
}
const timer = setInterval(sample, 200);
const status = await new Promise((r) => child.on("exit", (code) => r(code)));
clearInterval(timer);

const wall = (performance.now() - t0) / 1000;
const by = {};
for (const { kind, ticks } of seen.values()) by[kind] = (by[kind] ?? 0) + ticks / TICK;
const total = Object.values(by).reduce((a, b) => a + b, 0);
const fmt = (n) => n.toFixed(1);
console.log(
  `[cpu] ${files.join(" ")}: wall ${fmt(wall)} s, CPU ${fmt(total)} s (${Object.entries(by)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${fmt(v)}`)
    .join(", ")}); ${seen.size} processes; load average ${load0.map(fmt).join(" ")} at start, ${os.loadavg().map(fmt).join(" ")} at end; exit ${status}`,
);
process.exit(status ?? 1);
