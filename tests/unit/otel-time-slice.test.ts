import { describe, expect, it } from "vitest";
import { timeSlicer } from "@/lib/capture/time-slice";

// The OTLP ingest's synchronous steps (reading spans, continuation digests, prompt chains)
// call a slicer between items: past its budget it gives the event loop a turn, so a request
// queued meanwhile (GET /ready) runs between two slices of a 512-span batch, not after it.

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

describe("timeSlicer", () => {
  it("lets a waiting callback run once the budget is spent, not before", async () => {
    // Budgets far above what a loaded machine can take between two lines (CI: load 3-8 on 2 cores).
    const slice = timeSlicer(200);
    let ran = 0;
    setImmediate(() => ran++);
    // Within the budget: no turn, the callback waits.
    await slice();
    expect(ran).toBe(0);
    busy(250);
    await slice();
    expect(ran).toBe(1);
    // The budget starts again after the turn.
    setImmediate(() => ran++);
    await slice();
    expect(ran).toBe(1);
  });

  it("a loop of items that each take a few ms lets other work in about every budget", async () => {
    const slice = timeSlicer(10);
    let turns = 0;
    let watching = true;
    const watch = () => {
      turns++;
      if (watching) setImmediate(watch);
    };
    setImmediate(watch);
    for (let i = 0; i < 20; i++) {
      await slice();
      busy(3);
    }
    watching = false;
    // 60 ms of work in 10 ms budgets: a turn at least every 4 items (none at all without the slicer).
    expect(turns).toBeGreaterThanOrEqual(3);
  });
});
