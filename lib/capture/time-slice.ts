import "server-only";
import { performance } from "node:perf_hooks";
import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * A check to call between items of synchronous work: once `budgetMs` has run since the last
 * turn of the event loop, it gives one (setImmediate). A 512-span OTLP batch is hundreds of
 * milliseconds of JavaScript (reading spans, continuation digests, prompt chains); in slices
 * the server answers other requests (GET /ready) between them (docs/benchmarks.md section 52).
 */
export function timeSlicer(budgetMs = 15): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < budgetMs) return undefined;
    return nextTurn().then(() => {
      since = performance.now();
    });
  };
}
