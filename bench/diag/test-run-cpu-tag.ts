import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";

// Setup file of bench/diag/test-run-cpu.mjs: before each test file, a Vitest worker writes which
// file it now runs to MEMSCOPE_CPU_TAGS/<its pid>, so that the sampler can charge the worker's
// CPU, and that of the servers it started, to that file (a worker runs many files, --no-isolate).
const dir = process.env.MEMSCOPE_CPU_TAGS;
const file = expect.getState().testPath;
if (dir && file) fs.writeFileSync(path.join(dir, String(process.pid)), path.relative(process.cwd(), file));
