import os from "node:os";
import type { Page } from "playwright-core";
import { expect } from "vitest";

// Where a browser file's time goes, per test: MEMSCOPE_BROWSER_TIMING=1 adds up the wall time
// of page loads, waits, screenshots, axe runs and the suite's start (server and browser) by the
// test that spent it, and prints the split after the file's last test with the load average
// beside it. Off (the default), nothing is patched and `timed` only runs its function.
// A diagnostic for issue 41's browser phase (docs/benchmarks.md section 62), not a check.

const ON = process.env.MEMSCOPE_BROWSER_TIMING === "1";
/** Whether MEMSCOPE_BROWSER_TIMING=1 is set. */
export function timingOn(): boolean {
  return ON;
}
const totals = new Map<string, Map<string, number>>();
let depth = 0;

function currentTest(): string {
  try {
    return expect.getState().currentTestName ?? "(hooks)";
  } catch {
    return "(hooks)";
  }
}

function add(kind: string, ms: number) {
  const test = currentTest();
  let m = totals.get(test);
  if (!m) totals.set(test, (m = new Map()));
  m.set(kind, (m.get(kind) ?? 0) + ms);
}

/** Runs `fn`, its wall time counted under `kind` for the current test (outermost timing only). */
export async function timed<T>(kind: string, fn: () => Promise<T>): Promise<T> {
  if (!ON || depth > 0) return fn();
  const t0 = performance.now();
  depth++;
  try {
    return await fn();
  } finally {
    depth--;
    add(kind, performance.now() - t0);
  }
}

let patched = false;
/** Wraps the Page and Locator methods that wait (once per process; every page shares them). */
export function timePage(page: Page): void {
  if (!ON || patched) return;
  patched = true;
  const wrap = (proto: Record<string, unknown>, names: string[], kind: (n: string) => string) => {
    for (const n of names) {
      const orig = proto[n] as (...a: unknown[]) => Promise<unknown>;
      if (typeof orig !== "function") continue;
      proto[n] = function (this: unknown, ...a: unknown[]) {
        return timed(kind(n), () => orig.apply(this, a));
      };
    }
  };
  const pageProto = Object.getPrototypeOf(page) as Record<string, unknown>;
  wrap(pageProto, ["goto", "reload", "waitForURL"], () => "load");
  wrap(pageProto, ["screenshot"], () => "screenshot");
  wrap(pageProto, ["waitForFunction", "waitForLoadState", "waitForResponse", "waitForTimeout"], (n) => (n === "waitForLoadState" ? "networkidle/load state" : "wait"));
  wrap(pageProto, ["setViewportSize"], () => "resize");
  const locProto = Object.getPrototypeOf(page.locator("body")) as Record<string, unknown>;
  wrap(locProto, ["waitFor"], () => "wait");
  wrap(locProto, ["click", "fill", "selectOption", "press", "check", "uncheck"], () => "input");
}

/** Prints and forgets the split so far (browserSuite's afterAll calls it). */
export function reportTimings(): void {
  if (!ON) return;
  {
    const lines: string[] = [];
    for (const [test, m] of totals) {
      const parts = [...m].sort((a, b) => b[1] - a[1]).map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)}`);
      lines.push(`  ${test.slice(0, 90)}: ${parts.join(", ")}`);
    }
    process.stderr.write(`[browser timing, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}] seconds\n${lines.join("\n")}\n`);
    totals.clear();
  }
}
