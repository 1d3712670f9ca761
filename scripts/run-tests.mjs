// npm test: builds the production app (API and browser suites run against `next start`),
// runs every Vitest suite, and ends with the line CI reads: "N passed, N failed".
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
delete env.DATABASE_URL; // suites choose their own database
delete env.MEMSCOPE_API_KEY;

if (process.env.MEMSCOPE_SKIP_BUILD !== "1") {
  console.log("> next build");
  const b = spawnSync(process.execPath, [require.resolve("next/dist/bin/next"), "build"], { stdio: "inherit", env });
  if (b.status !== 0) {
    console.log("0 passed, 1 failed");
    process.exit(1);
  }
}

const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "memscope-vitest-"));
const report = path.join(outDir, "report.json");
// Test servers append each (route, status) they answer here (lib/api/status-log.ts).
const statusLog = path.join(outDir, "statuses.log");
env.MEMSCOPE_STATUS_LOG = statusLog;
const fullRun = process.argv.length <= 2;
const args = [path.resolve("node_modules/vitest/vitest.mjs"), "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)];
const r = spawnSync(process.execPath, args, { stdio: "inherit", env });

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
