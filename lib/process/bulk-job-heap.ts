import "server-only";
import v8 from "node:v8";
import { fullGc } from "./full-gc";

// V8 lets a heap grow to up to four times what survived the last full collection before it
// collects again. A bulk job streams hundreds of MB of short-lived text through this thread
// (the 300 MiB ChatGPT import: the heaps' committed pages swung between ~90 MB live and
// 350 MB, the largest part of its peak RSS). While one runs, the heap grows by at most a fifth
// between collections (~170 MB at the same CPU time; docs/benchmarks.md section 16). Only
// then: the same setting cost a replay of a 990-message prompt ~25 % more CPU, so the server
// otherwise keeps V8's own growth. The setting is process-wide (worker threads share it) and
// read when a full collection sets the next limit: the job starts with one, or the limit set at
// rest (up to four times the live size) would hold until the heap had grown to it.

const BULK_GROWING_PERCENT = 20;
/** 0 is V8's own choice (a factor between 1.1 and 4 from its measured speeds). */
const DEFAULT_GROWING_PERCENT = 0;

let running = 0;

/** The heap growth in force now, in percent over the live size (0: V8's own). */
export function heapGrowingPercent(): number {
  return running ? BULK_GROWING_PERCENT : DEFAULT_GROWING_PERCENT;
}

/** Runs a bulk job with the heap held close to its live size; the setting ends with the last job running. */
export async function withBulkJobHeap<T>(work: () => Promise<T>): Promise<T> {
  if (running++ === 0) {
    v8.setFlagsFromString(`--heap-growing-percent=${BULK_GROWING_PERCENT}`);
    fullGc()?.();
  }
  try {
    return await work();
  } finally {
    if (--running === 0) v8.setFlagsFromString(`--heap-growing-percent=${DEFAULT_GROWING_PERCENT}`);
  }
}
