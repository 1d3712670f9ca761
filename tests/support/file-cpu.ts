import fs from "node:fs";
import { afterAll } from "vitest";

// CPU-seconds a test file costs its worker (issue 41: on a 2-core machine a file's wall time
// says more about the load beside it than about the file). Evaluated before each file, in a
// worker that runs many files one after another (--no-isolate), so the figure is this file's:
// its imports, hooks and tests, the worker threads it runs (the token pool), and the child
// processes it waited for (initdb, a probe script). Read by tests/support/timing-reporter.ts.

declare module "vitest" {
  interface TaskMeta {
    cpu_s?: number;
  }
}

/** This process's CPU (all its threads) plus its waited-for children's, in seconds. */
function cpuSeconds(): number {
  const own = process.cpuUsage();
  let children = 0;
  try {
    // /proc/<pid>/stat fields 16 and 17 (cutime, cstime), in clock ticks of 1/100 s; the
    // command name (field 2) may hold spaces, so count from its closing parenthesis.
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    children = (Number(f[13]) + Number(f[14])) / 100;
  } catch {
    /* not Linux: own CPU only */
  }
  return (own.user + own.system) / 1e6 + children;
}

const start = cpuSeconds();
// The suite is the second argument (Vitest parses the first as the fixtures it asks for).
afterAll(({}, file) => {
  file.meta.cpu_s = Math.round((cpuSeconds() - start) * 10) / 10;
});
