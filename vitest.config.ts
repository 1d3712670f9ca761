import { execFileSync } from "node:child_process";
import path from "node:path";
import { defineConfig } from "vitest/config";
import { LOADED_MACHINE_TIMEOUT_MS } from "./tests/helpers/loaded-machine.ts";
import LongestFirstSequencer from "./tests/support/sequencer.ts";
import { useTestTmpdir } from "./tests/support/test-tmpdir.ts";

// Before any worker starts: they, and the servers and browsers they start, inherit TMPDIR.
// Said once per run, so that a CI log shows which folder the run had.
console.log(`[tests] temporary files in ${useTestTmpdir()}`);
// Which Node runs the servers on a data folder (tests/helpers/app-server.ts), when not this one:
// a binary that does not start fails the run here.
if (process.env.MEMSCOPE_TEST_EMBEDDED_SERVER_NODE) {
  const v = execFileSync(process.env.MEMSCOPE_TEST_EMBEDDED_SERVER_NODE, ["--version"], { encoding: "utf8" }).trim();
  console.log(`[tests] servers on the embedded database run on Node ${v}, the rest on ${process.version}`);
}

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      "server-only": path.resolve(import.meta.dirname, "tests/support/server-only-stub.ts"),
    },
  },
  test: {
    include: ["tests/**/*.test.ts"],
    environment: "node",
    pool: "forks",
    // Three on a 2-core machine: a third of a file's time is waiting (leases, restarts, a stub
    // that holds its answer), and the third worker fills it. With two, 10 % of the CPU stayed
    // idle (run of 2026-11-23: Vitest 465 s with 2 workers, 413 s with 3; docs/benchmarks.md).
    // MEMSCOPE_TEST_WORKERS overrides it (npm test prints the machine's busy share of each phase).
    maxWorkers: Number(process.env.MEMSCOPE_TEST_WORKERS) || 3,
    // Baseline WebAssembly compiler only (as for test servers, tests/helpers/app-server.ts): the
    // suites that open PGlite in-process compile its module anew in every worker.
    execArgv: ["--liftoff-only"],
    // Each file's CPU-seconds, for npm test's list of its costliest files (tests/support/timing-reporter.ts).
    setupFiles: ["./tests/support/file-cpu.ts"],
    // A hang guard, not a speed check: suites start real servers on a shared 2-core machine.
    testTimeout: 120_000,
    // expect.poll waits for a page or a server to catch up (a click's fetch and render, a job's
    // next page). Vitest's default of 1 s is tight on a loaded 2-core runner; a poll that passes
    // returns as soon as it does, so only a failure waits the whole 20 s (as pages' own waits do,
    // tests/helpers/browser.ts).
    expect: { poll: { timeout: 20_000 } },
    // Hooks start servers, browsers and databases, sometimes two starts in one (the run's seeded
    // template, then a copy of it): a loaded machine's time (tests/helpers/loaded-machine.ts).
    hookTimeout: LOADED_MACHINE_TIMEOUT_MS,
    // Server-backed suites start their own Next.js process; keep files apart.
    fileParallelism: true,
    // The longest files start first (tests/support/sequencer.ts), so both workers end together.
    sequence: { sequencer: LongestFirstSequencer },
  },
});
