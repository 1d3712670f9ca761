import "server-only";
import type { Worker } from "node:worker_threads";

// One answer from a worker thread that reads untrusted input (a JSON document, a protobuf body,
// a SQLite database) under a time limit and a heap cap: the promise settles once, whichever
// comes first (the worker's own answer, the time limit, an out-of-memory stop, an exit), and the
// worker is stopped then, so a worker left working past its limit costs nothing more.
//
// The workers answer in two phases: the work itself (under the time limit), then the result in
// groups, each asked for with "next" after this thread has let other requests run.

export type WorkerSettle<T> = {
  resolve(value: T): void;
  reject(error: unknown): void;
  /** The work is done (its first answer came): the time limit no longer applies, the groups come at this thread's pace. */
  stopClock(): void;
  /** Asks the worker for its next message, after a turn of the event loop. */
  next(): void;
};

export type WorkerLimits = {
  maxMs: number;
  /** The error past maxMs. */
  timedOut: () => Error;
  /** The error when the worker passed its resourceLimits heap. */
  outOfMemory: () => Error;
  /** The error when it exited without answering. */
  exited: (code: number) => Error;
};

/** `onMessage` handles each message of the worker; what it throws rejects the promise. */
export function settleWorker<T, M>(worker: Worker, limits: WorkerLimits, onMessage: (m: M, s: WorkerSettle<T>) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
      void worker.terminate();
    };
    const timer = setTimeout(() => settle(() => reject(limits.timedOut())), limits.maxMs);
    const control: WorkerSettle<T> = {
      resolve: (v) => settle(() => resolve(v)),
      reject: (e) => settle(() => reject(e)),
      stopClock: () => clearTimeout(timer),
      // Other requests run before the next group is handled.
      next: () =>
        setImmediate(() => {
          if (!settled) worker.postMessage("next");
        }),
    };
    worker.on("message", (m: M) => {
      if (settled) return;
      try {
        onMessage(m, control);
      } catch (e) {
        control.reject(e);
      }
    });
    worker.on("error", (e: Error & { code?: string }) => settle(() => reject(e.code === "ERR_WORKER_OUT_OF_MEMORY" ? limits.outOfMemory() : e)));
    worker.on("exit", (code) => settle(() => reject(limits.exited(code))));
  });
}
