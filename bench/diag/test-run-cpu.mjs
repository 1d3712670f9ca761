// Where a test run's CPU goes: CPU-seconds per test file (all its processes) and per process class.
// bench/test-file-cpu.mjs splits one file's run by kind; this charges a whole phase's run, file by
// file, across Vitest's workers (--no-isolate: one worker runs many files, and the shared servers
// it started serve them all).
//
//   bash -c 'source .ci/postgres.sh >/dev/null 2>&1; node bench/diag/test-run-cpu.mjs'
//   node bench/diag/test-run-cpu.mjs --no-isolate --retry=1 tests/api/x.test.ts   (Vitest arguments)
//   MEMSCOPE_CPU_BY_TEST=1 CPU_TOP=60 node bench/diag/test-run-cpu.mjs tests/api/x.test.ts   (per test)
//
// Runs `scripts/run-tests.mjs` (MEMSCOPE_SKIP_BUILD=1: build first) with the arguments given
// (default: the server phase's, on tests/api/) and a setup file (test-run-cpu-tag.ts) with which
// each worker says which file it runs. Every 500 ms it reads /proc: each process's utime + stime
// since the last sample is charged to a class and to a file:
// - a Vitest worker, and every process below it (servers, CLIs, stubs), to the file that worker
//   runs now: a shared server's CPU goes to the file it is serving;
// - a PostgreSQL backend of the cluster in MEMSCOPE_TEST_POSTGRES_URL to the file of the process
//   holding the other end of its connection (found once per backend from its client port);
// - the runner, Vitest's main process, the janitors and the cluster's own processes to no file.
// PGlite runs inside the embedded servers (and inside a worker for the suites that open it
// in-process): its CPU is in those classes. A process living less than 500 ms is not seen.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const TICK = 100; // USER_HZ
const INTERVAL = 500;
const args = process.argv.length > 2 ? process.argv.slice(2) : ["--no-isolate", "--retry=1", "tests/api/"];
const tags = fs.mkdtempSync(path.join(os.tmpdir(), "memscope-cpu-tags-"));
const pgPort = process.env.MEMSCOPE_TEST_POSTGRES_URL ? new URL(process.env.MEMSCOPE_TEST_POSTGRES_URL).port : null;

const read = (p) => {
  try {
    return fs.readFileSync(p, "utf8");
  } catch {
    return null;
  }
};

/** {ppid, ticks, comm} of every process now. */
function snapshot() {
  const out = new Map();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const s = read(`/proc/${name}/stat`);
    if (!s) continue;
    const comm = s.slice(s.indexOf("(") + 1, s.lastIndexOf(")"));
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    out.set(Number(name), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), comm });
  }
  return out;
}

const cmdline = (pid) => (read(`/proc/${pid}/cmdline`) ?? "").replace(/\0/g, " ");

/** A node process's class from its command line and environment. */
function classOf(pid) {
  const cmd = cmdline(pid);
  if (/scripts\/run-tests\.mjs/.test(cmd)) return "runner";
  if (/shared-app-janitor/.test(cmd)) return "janitor";
  if (/serve\.mjs|next-server|next start/.test(cmd)) {
    const env = read(`/proc/${pid}/environ`) ?? "";
    return /(^|\0)DATABASE_URL=/.test(env) ? "server on PostgreSQL" : "server on PGlite (in-process)";
  }
  if (/pg-wire|pglite-socket/.test(cmd)) return "pglite-socket";
  if (/chrom/.test(cmd)) return "chromium";
  if (/vitest\/dist\/workers|forks\.js|vitest\/dist\/chunks/.test(cmd) && !/vitest\.mjs/.test(cmd)) return "vitest worker";
  if (/vitest\.mjs/.test(cmd)) return "vitest main";
  if (/esbuild/.test(cmd)) return "esbuild";
  if (/tsx/.test(cmd)) return "CLI (tsx)";
  if (/postgres|pg_/.test(cmd)) return "PostgreSQL tools";
  return cmd ? `other (${path.basename(cmd.split(" ")[0])})` : "other";
}

/** The node owning the client end of a 127.0.0.1 TCP connection from `port`: its inode, then whose fd. */
function clientOf(port, candidates) {
  const hex = `:${Number(port).toString(16).toUpperCase().padStart(4, "0")}`;
  let inode = null;
  for (const line of (read("/proc/net/tcp") ?? "").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[1]?.endsWith(hex) && f[2]?.endsWith(`:${Number(pgPort).toString(16).toUpperCase().padStart(4, "0")}`)) inode = f[9];
  }
  if (!inode) return null;
  for (const pid of candidates) {
    let fds = [];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`) return pid;
      } catch {
        /* closed meanwhile */
      }
    }
  }
  return null;
}

const procs = new Map(); // pid -> { cls, ticks, file (last charged), worker, owner }
const byClass = new Map();
const byFile = new Map(); // file -> { total, classes: Map, servers: Set, first, last }
const workerFile = new Map();
let postmaster = null;
const t0 = performance.now();

function charge(file, cls, dt, pid) {
  byClass.set(cls, (byClass.get(cls) ?? 0) + dt);
  if (!file) return;
  let e = byFile.get(file);
  if (!e) byFile.set(file, (e = { total: 0, classes: new Map(), servers: new Set(), first: performance.now(), last: 0 }));
  e.total += dt;
  e.classes.set(cls, (e.classes.get(cls) ?? 0) + dt);
  if (cls.startsWith("server")) e.servers.add(pid);
  e.last = performance.now();
}

const child = spawn(process.execPath, ["scripts/run-tests.mjs", `--config=${path.resolve("bench/diag/test-run-cpu.config.ts")}`, ...args], {
  stdio: ["ignore", "inherit", "inherit"],
  env: { ...process.env, MEMSCOPE_SKIP_BUILD: "1", MEMSCOPE_CPU_TAGS: tags },
});
procs.set(child.pid, { cls: "runner", ticks: 0 });
const load = [os.loadavg()[0]];

function sample() {
  const now = snapshot();
  for (const name of fs.readdirSync(tags)) workerFile.set(Number(name), read(path.join(tags, name))?.trim());
  if (pgPort && !postmaster) {
    for (const [pid, p] of now) if (p.comm === "postgres" && new RegExp(`-p ${pgPort}( |$)`).test(cmdline(pid))) postmaster = pid;
    // The cluster's processes before the run are its own; only what they do from now on counts.
    if (postmaster) for (const [pid, p] of now) if (pid === postmaster || p.ppid === postmaster) procs.set(pid, { cls: "PostgreSQL (cluster)", ticks: p.ticks });
  }
  // New descendants of the runner, and new backends of the cluster.
  let added = true;
  while (added) {
    added = false;
    for (const [pid, p] of now) {
      if (procs.has(pid)) continue;
      if (procs.has(p.ppid) && p.ppid !== postmaster) {
        procs.set(pid, { cls: null, ticks: 0, parent: p.ppid });
        added = true;
      } else if (postmaster && p.ppid === postmaster) {
        procs.set(pid, { cls: "PostgreSQL backend", ticks: 0, port: /\(\d+\)/.exec(cmdline(pid))?.[0].slice(1, -1) });
      }
    }
  }
  const fileOf = (pid, depth = 0) => {
    const e = procs.get(pid);
    if (!e || depth > 20) return null;
    if (e.cls === "vitest worker") return workerFile.get(pid) ?? null;
    if (e.owner) return fileOf(e.owner, depth + 1);
    if (e.parent) {
      const f = fileOf(e.parent, depth + 1);
      if (f) e.lastFile = f;
      return f ?? e.lastFile ?? null; // an orphan keeps the file it last ran for
    }
    return null;
  };
  for (const [pid, e] of procs) {
    const p = now.get(pid);
    if (!p) continue;
    // Seen between fork and exec a child still has its parent's command line: classed again.
    if (!e.cls || e.cls === "vitest main" || e.cls.startsWith("other")) e.cls = classOf(pid);
    if (e.cls === "PostgreSQL backend" && !e.owner && e.port && !e.tried) {
      e.tried = true;
      e.owner = clientOf(e.port, [...procs.keys()].filter((q) => procs.get(q).cls !== "PostgreSQL backend" && procs.get(q).cls !== "PostgreSQL (cluster)"));
    }
    const dt = (p.ticks - e.ticks) / TICK;
    e.ticks = p.ticks;
    if (dt > 0) charge(e.cls === "janitor" ? null : fileOf(pid), e.cls, dt, pid);
  }
  load.push(os.loadavg()[0]);
}
const timer = setInterval(sample, INTERVAL);
const status = await new Promise((r) => child.on("exit", (code) => r(code)));
clearInterval(timer);
sample();
fs.rmSync(tags, { recursive: true, force: true });

const f1 = (n) => n.toFixed(1);
const total = [...byClass.values()].reduce((a, b) => a + b, 0);
const wall = (performance.now() - t0) / 1000;
console.log(`\n[run-cpu] ${args.join(" ")}: wall ${f1(wall)} s, CPU ${f1(total)} s, load average ${f1(Math.min(...load))}-${f1(Math.max(...load))}, exit ${status}`);
console.log("\nby class            CPU-s     share");
for (const [cls, s] of [...byClass].sort((a, b) => b[1] - a[1])) console.log(`${cls.padEnd(32)} ${f1(s).padStart(8)} ${f1((100 * s) / total).padStart(6)} %`);
const files = [...byFile].sort((a, b) => b[1].total - a[1].total);
const shortClass = (c) => c.replace("server on PGlite (in-process)", "srv-pglite").replace("server on PostgreSQL", "srv-pg").replace("PostgreSQL backend", "pg").replace("vitest worker", "worker");
const top = Number(process.env.CPU_TOP ?? 20);
console.log(`\ntop ${top} files of ${files.length} (CPU-s: all its processes; servers: how many it ran on, own or shared)`);
for (const [file, e] of files.slice(0, top)) {
  const parts = [...e.classes].sort((a, b) => b[1] - a[1]).map(([c, s]) => `${shortClass(c)} ${f1(s)}`);
  console.log(`${f1(e.total).padStart(7)}  ${file}  (${parts.join(", ")}; ${e.servers.size} servers)`);
}
const attributed = files.reduce((a, [, e]) => a + e.total, 0);
console.log(`\ncharged to files ${f1(attributed)} s of ${f1(total)} s; ${procs.size} processes seen`);
process.exit(status ?? 1);
