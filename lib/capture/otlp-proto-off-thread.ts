import "server-only";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { settleWorker } from "../process/worker-settle";
import type { FromProtoWorker, ProtoKind, ProtoWorkerData } from "./otlp-proto-worker";

// An OTLP protobuf body decoded in a worker thread (otlp-proto-worker.ts, the request thread's own
// decoders), with a heap cap, a time limit and a budget of messages, so that a body that is slow
// or huge once decoded (millions of tiny values within the size limit) costs the worker, which is
// stopped, and never the server's thread or heap. The value comes back as its shell and then its
// spans (or log records) in groups, each deserialised here with a turn of the event loop between.
// read-otlp-body.ts decides which bodies come here (docs/benchmarks.md section 35).

export type ProtoOffThreadLimits = {
  /** The worker's heap (resourceLimits.maxOldGenerationSizeMb). */
  maxHeapMb: number;
  /** Time the worker may take to decode; it is stopped past it. */
  maxMs: number;
  /** Sub-messages one request may open (otlp-proto.ts withMessageBudget). */
  maxMessages: number;
  /** Values one span or log record may hold. */
  maxItemWeight: number;
};

/** A body over a limit: `limit` names it (heap_mb, decode_ms, messages, item_weight), `field` where (body, or a span's path). */
export class ProtoOffThreadError extends Error {
  constructor(
    readonly limit: "heap_mb" | "decode_ms" | "messages" | "item_weight",
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** A structural defect found by the decoder: read-otlp-body.ts answers it as it answers an inline OtlpProblem. */
export class ProtoOffThreadProblem extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`);
  }
}

/** This file's folder, unbundled (tsx, Vitest) only. */
const here = () => path.dirname(fileURLToPath(import.meta.url));

/** Values (and strings at 256 characters a value) per group handed back: about 5-20 ms to deserialise under load. */
const GROUP_WEIGHT = 20_000;

export async function decodeProtoOffThread<T>(bytes: Uint8Array, kind: ProtoKind, limits: ProtoOffThreadLimits): Promise<T> {
  // Moved, not copied, when the view is its whole buffer (Buffer's small pool is shared: copied).
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer && bytes.byteLength > 4096;
  const data: ProtoWorkerData = { bytes: own ? bytes : new Uint8Array(bytes), kind, maxMessages: limits.maxMessages, maxItemWeight: limits.maxItemWeight, groupWeight: GROUP_WEIGHT };
  const options = { workerData: data, transferList: own ? [bytes.buffer as ArrayBuffer] : [], resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb } };
  // In the built server (Next.js sets NEXT_RUNTIME, and inlines it): new URL(..., import.meta.url)
  // has the bundler build the worker's entry with its imports. Run unbundled (tsx, Vitest), a
  // plain .mjs entry beside this file loads the worker's TypeScript through tsx.
  const worker = process.env.NEXT_RUNTIME
    ? new Worker(new URL("./otlp-proto-worker.ts", import.meta.url), options)
    : new Worker(path.join(here(), "otlp-proto-worker-tsx.mjs"), { ...options, workerData: { ...data, entry: pathToFileURL(path.join(here(), "otlp-proto-worker.ts")).href } });
  let value: Record<string, unknown> | null = null;
  return settleWorker<T, FromProtoWorker>(
    worker,
    {
      // The limit is on the decode (until the worker's first answer); the groups come at this thread's pace.
      maxMs: limits.maxMs,
      timedOut: () => new ProtoOffThreadError("decode_ms", "body", `decoding took more than ${limits.maxMs} ms`),
      outOfMemory: () => new ProtoOffThreadError("heap_mb", "body", `decoding needed more than ${limits.maxHeapMb} MB`),
      exited: (code) => new Error(`the protobuf decoder stopped (exit code ${code})`),
    },
    (m, s) => {
      if (m.type === "problem") return s.reject(new ProtoOffThreadProblem(m.field, m.problem));
      if (m.type === "over") return s.reject(new ProtoOffThreadError(m.limit, m.field, m.message));
      if (m.type === "end") return s.resolve(value as T);
      if (m.type === "shell") {
        s.stopClock();
        value = m.value;
      } else {
        const resources = (value!.resourceSpans ?? value!.resourceLogs) as Record<string, unknown[]>[];
        const items = resources[m.resource][kind === "traces" ? "spans" : "records"];
        for (const item of m.items) items.push(item);
      }
      s.next();
    },
  );
}
