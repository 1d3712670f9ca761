// npm test: builds the production app (API and browser suites run against `next start`),
// runs every Vitest suite, and ends with the line CI reads: "N passed, N failed".
//
// A full run has two Vitest phases. The unit suites need no build, and `next build` leaves
// about 40 % of a 2-core machine idle (47 CPU-seconds in 42 s, docs/benchmarks.md): so they run
// while it builds, at a lower priority (nice 10: the build is what the rest waits for), and the
// type check with them. The API and browser suites start once the build is done, beside the rest
// of the unit suites. With arguments (`npm test -- tests/api/x.test.ts`) there is one phase,
// after the build, with those.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
delete env.DATABASE_URL; // suites choose their own database
delete env.MEMSCOPE_API_KEY;

const startedAt = performance.now();

/** The machine's busy and idle CPU-seconds so far (all cores, every process: os.cpus() counts in ms). */
function machineCpu() {
  let busy = 0;
  let idle = 0;
  for (const c of os.cpus()) {
    busy += c.times.user + c.times.nice + c.times.sys + c.times.irq;
    idle += c.times.idle;
  }
  return { at: performance.now(), busy: busy / 1000, idle: idle / 1000 };
}
// Whether a phase kept the cores busy or waited (issue 41: more workers only help a phase that
// leaves CPU idle). Taken at the start, when the build ends, and at the end.
const cpuMarks = [{ name: "start", ...machineCpu() }];
const seconds = () => Math.round((performance.now() - startedAt) / 1000);
const building = process.env.MEMSCOPE_SKIP_BUILD !== "1";
const fullRun = process.argv.length <= 2;

/** Runs a command to its end; its output is kept (printed by the caller) when `quiet`. */
function run(args, { quiet = false, nice = 0, extraEnv = {} } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit", env: { ...env, ...extraEnv } });
    // A lower priority: what the next step waits for (the build, the servers and browsers under
    // test) comes first. Set before the child forks its workers, which inherit it.
    if (nice) {
      try {
        os.setPriority(child.pid, nice);
      } catch {
        /* not permitted: run at normal priority */
      }
    }
    let out = "";
    child.stdout?.on("data", (d) => (out += d));
    child.stderr?.on("data", (d) => (out += d));
    child.on("exit", (status) => resolve({ status, out }));
  });
}

const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "memscope-vitest-"));
// Test servers append each (route, status) they answer here (lib/api/status-log.ts).
const statusLog = path.join(outDir, "statuses.log");
env.MEMSCOPE_STATUS_LOG = statusLog;

/** Each phase's start and end, in seconds from the start of npm test (printed at the end). */
const phaseTimes = [];

/** One Vitest run; its JSON report and per-file timings (tests/support/timing-reporter.ts) go to `outDir`. */
function vitest(name, filters, opts = {}) {
  const report = path.join(outDir, `report-${name}.json`);
  const from = seconds();
  const done = run(
    [
      path.resolve("node_modules/vitest/vitest.mjs"),
      "run",
      "--reporter=default",
      "--reporter=json",
      "--reporter=./tests/support/timing-reporter.ts",
      `--outputFile.json=${report}`,
      ...filters,
    ],
    { ...opts, extraEnv: { MEMSCOPE_TIMINGS: path.join(outDir, `timings-${name}.json`) } },
  );
  return done.then((r) => {
    phaseTimes.push({ name, from, to: seconds() });
    return { ...r, report, timings: path.join(outDir, `timings-${name}.json`) };
  });
}

// Type-checking is half of `next build` and runs after its compile; here TypeScript 7's native
// `tsc` checks the same project alongside (a fifth of TypeScript 5's CPU time on one thread).
const typecheck = building
  ? run([path.resolve("node_modules/typescript-7/bin/tsc"), "--noEmit", "--incremental", "false", "--singleThreaded"], { quiet: true, nice: 10 })
  : null;

// The import rules (scripts/check-deps.mjs, docs/architecture.md "Layers"), alongside too: a
// violation counts as one failed test, like the status coverage check.
const depcheck = fullRun ? run(["scripts/check-deps.mjs"], { quiet: true, nice: 10 }) : null;

// The unit phase's output is held and printed whole, where it does not cut into another's:
// as soon as it ends if the build is still running, else after the last phase.
let serversStarted = false;
const held = [];
const phases = [];
if (fullRun) {
  phases.push(
    vitest("unit", ["--no-isolate", "tests/unit/"], { quiet: true, nice: building ? 10 : 0 }).then((r) => {
      if (serversStarted) held.push(r.out);
      else process.stdout.write(r.out);
      return r;
    }),
  );
}
if (building) {
  console.log("> next build (type-checked by tsc alongside; the unit suites run meanwhile)");
  const b = await run([require.resolve("next/dist/bin/next"), "build"], { quiet: true, extraEnv: { MEMSCOPE_BUILD_SKIP_TYPECHECK: "1" } });
  phaseTimes.push({ name: "build", from: 0, to: seconds() });
  cpuMarks.push({ name: "build done", ...machineCpu() });
  console.log(`> next build ${b.status === 0 ? "done" : "FAILED"} at ${seconds()} s`);
  if (b.status !== 0) {
    console.log(b.out);
    await Promise.all(phases);
    console.log("0 passed, 1 failed");
    process.exit(1);
  }
}
// The server phase starts as soon as the build is done, beside what is left of the unit phase
// and at its priority (nice 10 after a build, so no worker is starved by another). It used to
// wait for the unit phase: niced beside three server workers at nice 0 the unit suites got a
// tenth of the CPU, and those that made a PGlite database from nothing (initdb) ran past their
// 120 s time-out. But the unit phase is about 130 CPU-seconds in 112 files, and alone after the
// build it left much of the machine idle for 150 s (docs/benchmarks.md section 75).
const serversNice = fullRun && building ? 10 : 0;
if (fullRun && building) {
  phases[0].then(() => console.log(`> unit suites done at ${seconds()} s`));
}
serversStarted = true;
// Both phases run file after file in one process per worker (--no-isolate): a new process
// per file cost 25 CPU-seconds of starts and imports in the server phase, and the unit phase
// went from 49 to 35 CPU-seconds. The server-backed suites' state lives in the servers and
// browsers they start; lib/ state a unit suite depends on is keyed by what it counts (planner
// statistics per set of tables), not shared by every caller in the process.
// One retry for the suites that start real servers and browsers on a shared 2-core machine:
// a test that fails twice fails the run; one that passes on its retry is listed at the end
// ("passed on retry", with its first error), so a flaky test stays in sight, not hidden.
phases.push(
  fullRun
    ? vitest("servers", ["--no-isolate", "--retry=1", "tests/api/", "tests/client/", "tests/browser/"], { nice: serversNice })
    : vitest("selected", process.argv.slice(2)),
);
const results = await Promise.all(phases);
cpuMarks.push({ name: "suites done", ...machineCpu() });
for (const out of held) process.stdout.write(out);
const tc = await typecheck;

let passed = 0;
let failed = 0;
let skipped = 0;
// Which tests failed, repeated at the end: CI keeps only the tail of a long log.
const failures = [];
const retried = [];
const firstLines = (text, n) =>
  String(text ?? "")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && (!l.startsWith("at ") || (l.includes("/tests/") && !l.includes("node_modules"))))
    .slice(0, n)
    .map((l) => `      ${l.slice(0, 300)}`);
for (const r of results) {
  try {
    const j = JSON.parse(fs.readFileSync(r.report, "utf8"));
    for (const s of j.testResults ?? []) {
      const file = path.relative(process.cwd(), s.name);
      const failedTests = (s.assertionResults ?? []).filter((a) => a.status === "failed");
      for (const a of failedTests) failures.push([`  ${file} > ${a.fullName}`, ...firstLines((a.failureMessages ?? []).join("\n"), 6)]);
      // A passed test with failure messages failed an attempt first (Vitest keeps its errors).
      for (const a of s.assertionResults ?? []) {
        if (a.status === "passed" && a.failureMessages?.length) retried.push([`  ${file} > ${a.fullName}`, ...firstLines(a.failureMessages.join("\n"), 4)]);
      }
      if (s.status === "failed" && failedTests.length === 0) failures.push([`  ${file} (the suite itself)`, ...firstLines(s.message, 6)]);
    }
    passed += j.numPassedTests;
    // A suite whose setup failed has no failed test of its own: count it once.
    const brokenSuites = (j.testResults ?? []).filter(
      (s) => s.status === "failed" && !(s.assertionResults ?? []).some((a) => a.status === "failed"),
    ).length;
    failed += j.numFailedTests + brokenSuites;
    skipped += (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
    if (r.status !== 0 && j.numFailedTests + brokenSuites === 0) failed += 1;
  } catch {
    failed += 1; // no report: Vitest itself failed
  }
}
if (tc) {
  // The type check counts as one test, as the build's own check failed the whole run before.
  if (tc.status === 0) {
    console.log("> tsc --noEmit: no type errors");
    passed += 1;
  } else {
    console.log(`> tsc --noEmit failed:\n${tc.out}`);
    failed += 1;
  }
}
if (depcheck) {
  const d = await depcheck;
  if (d.status === 0) {
    console.log("> check:deps: no import rule broken");
    passed += 1;
  } else {
    console.log(`> check:deps failed (npm run check:deps):\n${d.out}`);
    failed += 1;
  }
}
// After a full run: every status a contract declares was answered to some test. A failed
// check counts as one failed test; it lists the uncovered (route, status) pairs.
if (fullRun) {
  const c = await run([require.resolve("tsx/cli"), "--conditions=react-server", "scripts/check-status-coverage.ts", statusLog]);
  if (c.status === 0) passed += 1;
  else failed += 1;
}
printTimes();
if (retried.length) console.log(`> passed on retry (flaky; failed once first):\n${retried.map((f) => f.join("\n")).join("\n")}`);
if (failures.length) console.log(`> failed:\n${failures.map((f) => f.join("\n")).join("\n")}`);
// Issue 14 bounds this whole command's time on CI: say it, just before the last line.
console.log(`> npm test took ${seconds()} s`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed === 0 ? 0 : 1);

/**
 * Where the time went (issue 41): each phase's wall time, the server phase's worker time by kind
 * (API tests on PGlite and on PostgreSQL, their servers' starts and other hooks, browser), and
 * the 20 slowest files of the run (tests/support/timing-reporter.ts measures them).
 */
function printTimes() {
  const files = [];
  for (const r of results) {
    try {
      const t = JSON.parse(fs.readFileSync(r.timings, "utf8"));
      files.push(...t.files);
    } catch {
      /* no timings: Vitest itself failed (counted above) */
    }
  }
  const sum = (rows, f) => Math.round(rows.reduce((s, r) => s + f(r), 0));
  const lines = [`> time per phase (wall seconds from the start of npm test; worker time is the sum over ${Number(process.env.MEMSCOPE_TEST_WORKERS) || 3} workers):`];
  for (const p of phaseTimes.sort((a, b) => a.from - b.from)) {
    let detail = "";
    if (p.name === "unit") {
      const unit = files.filter((f) => f.file.startsWith("tests/unit/"));
      detail = `; ${sum(unit, (f) => f.wall_s)} s of worker time, ${sum(unit, (f) => f.cpu_s ?? 0)} CPU-s`;
    }
    if (p.name === "servers" || p.name === "selected") {
      const api = files.filter((f) => f.file.startsWith("tests/api/"));
      const ui = files.filter((f) => /^tests\/(browser|client)\//.test(f.file));
      const pgTests = sum(api, (f) => f.postgres_tests_s ?? 0);
      const allTests = sum(api, (f) => f.tests_s);
      detail =
        `; worker time: API ${sum(api, (f) => f.wall_s)} s (tests on PGlite ${allTests - pgTests} s, on PostgreSQL ${pgTests} s, ` +
        `server starts and other hooks ${sum(api, (f) => f.hooks_s)} s, imports ${sum(api, (f) => f.collect_s)} s), browser and client ${sum(ui, (f) => f.wall_s)} s`;
    }
    lines.push(`    ${p.name.padEnd(8)} ${String(p.from).padStart(5)} - ${String(p.to).padStart(5)} s (${p.to - p.from} s${detail})`);
  }
  // The machine's CPU between marks (every process, not only the tests'): busy share of the cores.
  for (let i = 1; i < cpuMarks.length; i++) {
    const [a, b] = [cpuMarks[i - 1], cpuMarks[i]];
    const busy = b.busy - a.busy;
    const idle = b.idle - a.idle;
    const pct = busy + idle > 0 ? Math.round((100 * busy) / (busy + idle)) : 0;
    lines.push(`    machine CPU ${a.name} -> ${b.name}: ${Math.round(busy)} CPU-s busy, ${Math.round(idle)} idle (${pct} % busy, ${os.cpus().length} cores)`);
  }
  files.sort((a, b) => b.wall_s - a.wall_s);
  // CPU: the worker's and the children it waited for (tests/support/file-cpu.ts), not the servers' or browsers'.
  lines.push("> 20 slowest files (a worker's wall time from taking the file up to its end, hooks included; the worker's CPU-seconds):");
  for (const f of files.slice(0, 20)) {
    lines.push(`  ${f.wall_s.toFixed(1).padStart(6)} s  ${f.file} (CPU ${f.cpu_s ?? "?"} s, hooks ${f.hooks_s} s, import ${f.collect_s} s)`);
  }
  console.log(lines.join("\n"));
}
