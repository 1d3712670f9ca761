import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, expect } from "vitest";

// Setup file of bench/diag/test-run-cpu.mjs: before each test file, a Vitest worker writes which
// file it now runs to MEMSCOPE_CPU_TAGS/<its pid>, so that the sampler can charge the worker's
// CPU, and that of the servers it started, to that file (a worker runs many files, --no-isolate).
// With MEMSCOPE_CPU_BY_TEST=1, each test's name too ("file > test"; hooks and the time between
// tests are "file > (hooks)").
const dir = process.env.MEMSCOPE_CPU_TAGS;
const file = expect.getState().testPath;
const tag = (what: string) => dir && fs.writeFileSync(path.join(dir, String(process.pid)), what);
if (dir && file) {
  const rel = path.relative(process.cwd(), file);
  if (process.env.MEMSCOPE_CPU_BY_TEST === "1") {
    tag(`${rel} > (hooks)`);
    beforeEach((ctx) => tag(`${rel} > ${ctx.task.suite?.name ? `${ctx.task.suite.name} > ` : ""}${ctx.task.name}`));
    afterEach(() => tag(`${rel} > (hooks)`));
  } else tag(rel);
}
