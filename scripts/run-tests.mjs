// npm test: builds the production app (API and browser suites run against `next start`),
// runs every Vitest suite, and ends with the line CI reads: "N passed, N failed".
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
delete env.DATABASE_URL; // suites choose their own database
delete env.MEMSCOPE_API_KEY;

const building = process.env.MEMSCOPE_SKIP_BUILD !== "1";
if (building) {
  // Type-checking is half of `next build` and runs after its compile, one step after the
  // other; here `tsc` checks the same project alongside the tests instead (below).
  console.log("> next build (type-checked by tsc alongside the tests)");
  const b = spawnSync(process.execPath, [require.resolve("next/dist/bin/next"), "build"], {
    stdio: "inherit",
    env: { ...env, MEMSCOPE_BUILD_SKIP_TYPECHECK: "1" },
  });
  if (b.status !== 0) {
    console.log("0 passed, 1 failed");
    process.exit(1);
  }
}

/** Runs a command to its end; its output is kept (printed by the caller) when `quiet`. */
function run(args, { quiet = false, nice = 0 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit", env });
    // A lower priority: on a busy machine the servers and browsers under test come first.
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
const report = path.join(outDir, "report.json");
// Test servers append each (route, status) they answer here (lib/api/status-log.ts).
const statusLog = path.join(outDir, "statuses.log");
env.MEMSCOPE_STATUS_LOG = statusLog;
const fullRun = process.argv.length <= 2;
// Per-file wall time, hooks included (tests/support/timing-reporter.ts).
env.MEMSCOPE_TIMINGS = path.join(outDir, "timings.json");
const args = [
  path.resolve("node_modules/vitest/vitest.mjs"),
  "run",
  "--reporter=default",
  "--reporter=json",
  "--reporter=./tests/support/timing-reporter.ts",
  `--outputFile.json=${report}`,
  ...process.argv.slice(2),
];
const typecheck = building
  ? run([require.resolve("typescript/bin/tsc"), "--noEmit", "--tsBuildInfoFile", path.join(outDir, "tsbuildinfo")], { quiet: true, nice: 10 })
  : null;
const [r, tc] = await Promise.all([run(args), typecheck]);

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const j = JSON.parse(fs.readFileSync(report, "utf8"));
  passed = j.numPassedTests;
  // A suite whose setup failed has no failed test of its own: count it once.
  const brokenSuites = (j.testResults ?? []).filter(
    (s) => s.status === "failed" && !(s.assertionResults ?? []).some((a) => a.status === "failed"),
  ).length;
  failed = j.numFailedTests + brokenSuites;
  skipped = (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
} catch {
  failed = Math.max(1, failed);
}
if (r.status !== 0 && failed === 0) failed = 1;
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
// After a full run: every status a contract declares was answered to some test. A failed
// check counts as one failed test; it lists the uncovered (route, status) pairs.
if (fullRun) {
  const c = spawnSync(process.execPath, [require.resolve("tsx/cli"), "--conditions=react-server", "scripts/check-status-coverage.ts", statusLog], {
    stdio: "inherit",
    env,
  });
  if (c.status === 0) passed += 1;
  else failed += 1;
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(r.status === 0 && failed === 0 ? 0 : 1);
