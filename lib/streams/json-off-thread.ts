import "server-only";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { settleWorker } from "../process/worker-settle";

// JSON of untrusted size parsed in a worker thread (json-worker.mjs) with a heap cap and a time
// limit, so that a document that is slow or huge once parsed (a 60 MB file of empty arrays is
// ~800 MB of objects) costs the worker, which is stopped, and never the server's own thread or
// heap. The value comes back as slices of JSON text, each parsed here with a turn of the event
// loop between them: the document's text is never held on this thread, and no task of this
// thread parses more than about SLICE_BYTES.
//
// Callers word the failures their own way (an import: 413 naming parse_heap_mb or parse_ms, 422
// for a file that is not JSON; OTLP: 413 or 400).

/** About this much JSON text is parsed on the server's thread per turn of its event loop (~5-10 ms of JSON.parse). */
export const SLICE_BYTES = 1024 * 1024;

export type JsonLine = { value: unknown; record: string; raw: string };
/** A JSON document, or (when `jsonl` is allowed and the text is not one JSON value) its lines. */
export type ParsedJson = { kind: "json"; value: unknown } | { kind: "jsonl"; lines: JsonLine[]; bad: { record: string; message: string }[] };

/** memory: over the heap cap, estimated before parsing (json-worker.mjs) or met while parsing; depth: nested past maxDepth. */
export type JsonFailureKind = "syntax" | "empty" | "memory" | "time" | "depth";

export class JsonOffThreadError extends Error {
  constructor(
    readonly kind: JsonFailureKind,
    message: string,
  ) {
    super(message);
  }
}

export type OffThreadOptions = {
  /** When the text is not one JSON value, read it as JSON lines (a bad line is reported, not fatal). */
  jsonl?: boolean;
  /** Invalid UTF-8 is a syntax failure (OTLP/JSON); otherwise replaced by U+FFFD as Buffer#toString does. */
  fatalUtf8?: boolean;
  /** The worker's heap (resourceLimits.maxOldGenerationSizeMb). */
  maxHeapMb: number;
  /** Time the worker may take to parse the document; it is stopped past it. */
  maxMs: number;
  /** Nesting of arrays and objects allowed. */
  maxDepth: number;
};

type FromWorker =
  | { type: "shape"; kind: "json"; skeleton: string }
  | { type: "shape"; kind: "jsonl"; bad: { record: string; message: string }[] }
  /** `text`: the next elements (an array at `path`) or keys (an object at `path`) of the value being rebuilt. */
  | { type: "slice"; path: (string | number)[]; text: string }
  | { type: "end" }
  | { type: "failed"; message: string; empty?: boolean; over?: "memory" | "depth" };

/** The container at `path` of the value being rebuilt. */
function at(root: unknown, path: (string | number)[]): unknown {
  let t = root as Record<string | number, unknown>;
  for (const k of path) t = t[k] as Record<string | number, unknown>;
  return t;
}

function fill(target: unknown, parsed: unknown) {
  if (Array.isArray(target)) {
    for (const v of parsed as unknown[]) target.push(v);
    return;
  }
  const into = target as Record<string, unknown>;
  for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
    // A "__proto__" key of the document is an own key, as JSON.parse makes it.
    if (k === "__proto__") Object.defineProperty(into, k, { value: v, writable: true, enumerable: true, configurable: true });
    else into[k] = v;
  }
}

// The worker is a plain .mjs file read at run time from the app folder (as sqlite-worker.mjs).
const workerFile = () => path.join(process.cwd(), "lib", "streams", "json-worker.mjs");

/** `source`: a file's path (read in the worker: never on this thread) or bytes (moved to the worker when they own their buffer). */
export async function parseJsonOffThread(source: { file: string } | { bytes: Uint8Array }, opts: OffThreadOptions): Promise<ParsedJson> {
  let bytes: Uint8Array | undefined;
  const transfer: ArrayBuffer[] = [];
  if ("bytes" in source) {
    const b = source.bytes;
    // Moved, not copied, when the view is its whole buffer (and the buffer not pooled: Buffer's pool is shared).
    if (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer && b.byteLength > 4096) {
      bytes = b;
      transfer.push(b.buffer);
    } else bytes = new Uint8Array(b);
  }
  const worker = new Worker(workerFile(), {
    workerData: { file: "file" in source ? source.file : undefined, bytes, jsonl: !!opts.jsonl, fatalUtf8: !!opts.fatalUtf8, sliceBytes: SLICE_BYTES, maxHeapMb: opts.maxHeapMb, maxDepth: opts.maxDepth },
    transferList: transfer,
    resourceLimits: { maxOldGenerationSizeMb: opts.maxHeapMb },
  });
  let result: ParsedJson | null = null;
  return settleWorker<ParsedJson, FromWorker>(
    worker,
    {
      // The limit is on the parse (until the worker's first answer); the slices come at this thread's pace.
      maxMs: opts.maxMs,
      timedOut: () => new JsonOffThreadError("time", `parsing took more than ${opts.maxMs} ms`),
      outOfMemory: () => new JsonOffThreadError("memory", `parsing needed more than ${opts.maxHeapMb} MB`),
      exited: (code) => new Error(`the JSON reader stopped (exit code ${code})`),
    },
    (m, s) => {
      if (m.type === "failed") return s.reject(new JsonOffThreadError(m.over ?? (m.empty ? "empty" : "syntax"), m.message));
      if (m.type === "end") return s.resolve(result!);
      if (m.type === "shape") {
        s.stopClock();
        result = m.kind === "json" ? { kind: "json", value: JSON.parse(m.skeleton) } : { kind: "jsonl", lines: [], bad: m.bad };
      } else {
        const parsed: unknown = JSON.parse(m.text);
        if (result!.kind === "jsonl") {
          for (const l of parsed as { record: string; raw: string }[]) result!.lines.push({ value: JSON.parse(l.raw), record: l.record, raw: l.raw });
        } else fill(at(result!.value, m.path), parsed);
      }
      s.next();
    },
  );
}
