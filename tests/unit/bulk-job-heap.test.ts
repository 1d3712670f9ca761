import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { heapGrowingPercent, withBulkJobHeap } from "@/lib/process/bulk-job-heap";
import { LOADED_MACHINE_TIMEOUT_MS } from "../helpers/loaded-machine";

// lib/process/bulk-job-heap.ts: while a bulk job runs, V8's heap grows by at most a fifth over
// what is live.

/** The probe in a process of its own, so the heap measured is the probe's alone. */
function probe(mode: "inside" | "outside"): { peakMb: number; during: number; afterwards: number } {
  const out = execFileSync(process.execPath, ["--import", "tsx", "--conditions=react-server", "tests/fixtures/heap/bulk-job-heap-probe.ts", mode], {
    encoding: "utf8",
    // A hang guard, not a speed check (a loaded machine's time, as the test's own).
    timeout: LOADED_MACHINE_TIMEOUT_MS,
  });
  return JSON.parse(out.trim().split("\n").pop()!);
}

describe("withBulkJobHeap", () => {
  it("holds the heap near its live size while a job streams garbage that lives long enough to be promoted", { timeout: LOADED_MACHINE_TIMEOUT_MS }, () => {
    const outside = probe("outside");
    const inside = probe("inside");
    expect(inside.during).toBe(20);
    expect(inside.afterwards).toBe(0);
    // V8's own growth let this heap reach ~210 MB; held, ~100 MB (2026-11-26, Node 20).
    expect(inside.peakMb).toBeLessThan(outside.peakMb * 0.8);
  });

  it("keeps the setting while any job runs and gives it back when the last one ends, failed or not", async () => {
    let endA!: () => void;
    const a = withBulkJobHeap(() => new Promise<void>((r) => (endA = r)));
    const b = withBulkJobHeap(async () => {
      await new Promise((r) => setTimeout(r, 20));
      throw new Error("job b failed");
    });
    expect(heapGrowingPercent()).toBe(20);
    await expect(b).rejects.toThrow("job b failed");
    expect(heapGrowingPercent()).toBe(20); // a still runs
    endA();
    await a;
    expect(heapGrowingPercent()).toBe(0);
  });
});
