import "server-only";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { DomainError } from "../errors/domain-errors";
import { settleWorker } from "../process/worker-settle";
import { ImportLimitError, LIMITS } from "./upload-limits";
import type { FromParseWorker, ParseUploadData, ParseUploadJob } from "./parse-upload-worker";
import type { ImportConversation, ParsedImport } from "./types";

// An upload read whole, parsed in a worker thread (parse-upload-worker.ts: the same parsers an
// inline parse uses) under parse_heap_mb and parse_ms, so that a file that is slow or huge to
// parse costs the worker, which is stopped, and not the server's thread: its records come back in
// groups of about GROUP_BYTES, each taken with a turn of the event loop between them.

/** JSON text per group handed back: about 5-20 ms to deserialise under load. */
const GROUP_BYTES = 1024 * 1024;

/** This file's folder, unbundled (tsx, Vitest) only. */
const here = () => path.dirname(fileURLToPath(import.meta.url));

/** The buffers of `files` that can be moved to the worker (a view of its whole, unpooled buffer); the others are copied. */
function movable(files: Map<string, Uint8Array>): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const [name, b] of files) {
    if (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer && b.byteLength > 4096 && !out.includes(b.buffer)) out.push(b.buffer);
    else files.set(name, new Uint8Array(b));
  }
  return out;
}

export async function parseUploadOffThread(job: ParseUploadJob): Promise<ParsedImport> {
  const maxHeapMb = LIMITS.parseMemory.value;
  const maxMs = LIMITS.parseTime.value;
  const data: ParseUploadData = { job, groupBytes: GROUP_BYTES, maxHeapMb, maxDepth: LIMITS.depth.value };
  const transferList = "files" in job && job.files ? movable(job.files) : [];
  const options = { workerData: data, transferList, resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } };
  // In the built server (Next.js sets NEXT_RUNTIME, and inlines it): new URL(..., import.meta.url)
  // has the bundler build the worker's entry with its imports. Run unbundled (tsx, Vitest), a
  // plain .mjs entry loads the worker's TypeScript through tsx.
  const worker = process.env.NEXT_RUNTIME
    ? new Worker(new URL("./parse-upload-worker.ts", import.meta.url), options)
    : new Worker(path.join(here(), "..", "process", "tsx-worker-entry.mjs"), { ...options, workerData: { ...data, entry: pathToFileURL(path.join(here(), "parse-upload-worker.ts")).href } });
  let result: ParsedImport | null = null;
  let last: ImportConversation | null = null;
  return settleWorker<ParsedImport, FromParseWorker>(
    worker,
    {
      // The limit is on the parse (until the worker's first answer); the groups come at this thread's pace.
      maxMs,
      timedOut: () => new ImportLimitError("parseTime", `parsing the file took more than ${maxMs} ms`),
      outOfMemory: () => new ImportLimitError("parseMemory", `parsing the file needed more than ${maxHeapMb} MB`),
      exited: (code) => new Error(`the upload parser stopped (exit code ${code})`),
    },
    (m, s) => {
      if (m.type === "failed") {
        const e = m.error;
        // The worker's DomainError (a 413 naming a limit, a 422), rebuilt as thrown there.
        return s.reject("code" in e ? new (DomainError as unknown as new (...a: unknown[]) => DomainError)(e.kind, e.code, e.message, e.details) : new Error(e.message));
      }
      if (m.type === "end") return s.resolve(result!);
      if (m.type === "shell") {
        s.stopClock();
        result = { ...m.value, conversations: [], memories: [], problems: [] };
      } else if (m.type === "turns") {
        for (const t of m.items) last!.turns.push(t);
      } else {
        const into = result![m.key] as unknown[];
        for (const item of m.items) into.push(item);
        if (m.key === "conversations") last = result!.conversations.at(-1) ?? null;
      }
      s.next();
    },
  );
}
