import { defineConfig } from "vitest/config";
import base from "./vitest.config";

// Stryker runs the unit suites only: API and browser suites start a built server, which
// runs code from .next, not the mutated sources. Suites about the API surface, the data
// folder lock and the worker pool touch none of the mutated folders and are left out.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["tests/unit/**/*.test.ts"],
    exclude: ["tests/unit/typed-client.test.ts", "tests/unit/route-contracts.test.ts", "tests/unit/db-open.test.ts", "node_modules/**"],
    // Stryker's Vitest runner forces pool "threads", and a worker thread refuses V8 flags in its
    // execArgv (ERR_WORKER_INVALID_EXEC_ARGV): the base config's --liftoff-only would stop the
    // run before its first mutant. V8 flags are per process, so stryker.config.json passes
    // --liftoff-only to the test runner process instead (testRunnerNodeArgs), whose threads share it.
    execArgv: [],
  },
});
