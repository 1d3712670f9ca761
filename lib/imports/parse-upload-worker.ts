// Worker thread: parses one upload read whole (a LangGraph SQL dump; the files of a memory-folder,
// AgentScope or Letta zip; a Letta, Dify API, Mem0 or OpenAI JSON file) for
// parse-upload-off-thread.ts, with the same parsers an inline parse uses, under the heap cap and
// time limit its parent sets (it is terminated past either). Before, these ran on the request
// thread: a 60 MB LangGraph dump held it 13.6 s at load 14 (docs/benchmarks.md section 45), and a
// JSON file's value was rebuilt whole there before its records were read. No "server-only" here:
// this module is the entry of a worker, not of a request.
//
// The result is not posted back whole (deserialising one cloned value is one uninterrupted task
// of the receiving thread): its shell, then its records in groups of about `groupBytes` of JSON
// text, one group each time the parent asks for the next. A conversation larger than a group comes
// as the conversation without its turns, then its turns in groups.
import fs from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { DomainError, ValidationError, type ErrorDetail } from "../errors/domain-errors";
import { addCounts } from "./field-readers";
import { estimate } from "../streams/json-estimate.mjs";
import { langgraphMemories, storeRowsFromDump } from "./parse-langgraph";
import { parseAgentScope } from "./parse-agentscope";
import { parseImportRead, type FileFormat, type Read } from "./parse-import";
import { parseLetta } from "./parse-letta";
import { parseMemoryFiles } from "./parse-memory-dir";
import { ImportLimitError, LIMITS } from "./upload-limits";
import type { ImportConversation, ImportTurn, ParsedImport } from "./types";

type Opts = { app_id?: string; end_user_id?: string | null; user_segment?: number };

export type ParseUploadJob =
  | { format: "langgraph"; file: string; opts: Opts }
  | { format: "memory-dir"; files: Map<string, Uint8Array>; symlinks: Map<string, string>; opts: Opts }
  | { format: "agentscope"; files: Map<string, Uint8Array>; opts: Opts }
  /** A Letta .af or JSON file, or the .af / .json entries of a zip (each parsed on its own, named by its entry). */
  | { format: "letta"; file?: string; files?: Map<string, Uint8Array>; opts: Opts }
  /** A Dify API, Mem0 or OpenAI file; `named`: the format the upload gave (else detected from the document). */
  | { format: "json"; file: string; named?: FileFormat; opts: Opts };

export type ParseUploadData = { job: ParseUploadJob; groupBytes: number; maxHeapMb: number; maxDepth: number };

type Shell = Omit<ParsedImport, "conversations" | "memories" | "problems">;
export type FromParseWorker =
  | { type: "shell"; value: Shell }
  | { type: "items"; key: "conversations" | "memories" | "problems"; items: unknown[] }
  /** Turns of the conversation sent last. */
  | { type: "turns"; items: ImportTurn[] }
  | { type: "end" }
  | { type: "failed"; error: { kind: DomainError["kind"]; code: DomainError["code"]; message: string; details: ErrorDetail[] } | { message: string } };

/** One JSON document (or JSON lines when `jsonl`), refused unparsed when its parse would pass half the heap or the nesting limit; failures worded as start-upload.ts words the JSON worker's. */
function readJson(bytes: Uint8Array, record: string, jsonl: boolean, d: ParseUploadData): Read {
  const where = record === "file" ? "the file" : record;
  const cost = estimate(bytes);
  if (cost.deepest > d.maxDepth) throw new ImportLimitError("depth", `${where} is nested ${cost.deepest} deep (at most ${d.maxDepth})`);
  if (cost.bytes > (d.maxHeapMb * 1024 * 1024) / 2) {
    const mb = Math.ceil(cost.bytes / (1024 * 1024));
    throw new ImportLimitError("parseMemory", `${where}: parsing would need about ${mb} MB (${cost.containers} objects and arrays, ${cost.values} values); the parser has ${d.maxHeapMb} MB`);
  }
  let text = new TextDecoder("utf-8").decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const trimmed = text.trim();
  if (!trimmed) throw new ValidationError("The file is empty", [{ field: "content", message: "empty" }], "invalid_import_file");
  let syntax: string;
  try {
    return { kind: "json", value: JSON.parse(trimmed) };
  } catch (e) {
    syntax = (e as Error).message;
  }
  const field = record === "file" ? "body" : record;
  if (!jsonl) throw new ValidationError("The file is not JSON", [{ field, message: syntax }], "invalid_import_file");
  const lines: Extract<Read, { kind: "jsonl" }>["lines"] = [];
  const bad: { record: string; message: string }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (!raw.trim()) return;
    const line = `line ${i + 1}`;
    try {
      lines.push({ value: JSON.parse(raw), record: line, raw });
    } catch (e) {
      bad.push({ record: line, message: `not JSON: ${(e as Error).message}` });
    }
  });
  if (!lines.length) throw new ValidationError("The file is neither JSON nor JSON lines", [{ field, message: bad[0] ? `${bad[0].record}: ${bad[0].message}` : "no JSON" }], "invalid_import_file");
  return { kind: "jsonl", lines, bad };
}

function merge(into: ParsedImport, from: ParsedImport) {
  into.conversations.push(...from.conversations);
  into.memories.push(...from.memories);
  into.problems.push(...from.problems);
  into.skipped = (into.skipped ?? 0) + (from.skipped ?? 0);
  if (from.unrepresented) addCounts((into.unrepresented ??= {}), from.unrepresented);
}

function parse(d: ParseUploadData): ParsedImport {
  const job = d.job;
  switch (job.format) {
    case "langgraph": {
      const dump = storeRowsFromDump(fs.readFileSync(job.file).toString("utf8"));
      return langgraphMemories(dump.rows, { app_id: job.opts.app_id, user_segment: job.opts.user_segment }, dump.problems);
    }
    case "memory-dir":
      return parseMemoryFiles(job.files, { ...job.opts, maxRecords: LIMITS.records.value, symlinks: job.symlinks });
    case "agentscope":
      return parseAgentScope(job.files, { ...job.opts, maxRecords: LIMITS.records.value });
    case "letta": {
      if (job.file) {
        const read = readJson(fs.readFileSync(job.file), "file", false, d);
        return parseLetta(read.kind === "json" ? read.value : null, "file", job.opts);
      }
      const all: ParsedImport = { format: "letta", source: "letta", conversations: [], memories: [], problems: [] };
      for (const [name, bytes] of job.files!) {
        job.files!.delete(name); // parsed: not held meanwhile
        const read = readJson(bytes, name, false, d);
        merge(all, parseLetta(read.kind === "json" ? read.value : null, name, job.opts));
      }
      return all;
    }
    case "json":
      return parseImportRead(readJson(fs.readFileSync(job.file), "file", true, d), job.named, job.opts);
  }
}

/** About how long `v` is as JSON text, walking at most about `limit` of it. */
function size(v: unknown, limit: number): number {
  let n = 0;
  const stack = [v];
  while (stack.length && n <= limit) {
    const x = stack.pop();
    if (typeof x === "string") n += x.length + 2;
    else if (x === null || typeof x !== "object") n += 8;
    else if (Array.isArray(x)) {
      n += 2 + x.length;
      for (const e of x) stack.push(e);
    } else {
      for (const k in x) {
        n += k.length + 4;
        stack.push((x as Record<string, unknown>)[k]);
      }
    }
  }
  return n;
}

/** `items` in groups of about groupBytes; `big` handles an item larger than a group (else it is a group of its own). */
function* groups<T>(items: T[], groupBytes: number, send: (items: T[]) => FromParseWorker, big?: (item: T) => Generator<FromParseWorker>): Generator<FromParseWorker> {
  let group: T[] = [];
  let bytes = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const n = size(item, groupBytes);
    if (n > groupBytes && big) {
      if (group.length) yield send(group);
      group = [];
      bytes = 0;
      yield* big(item);
    } else {
      group.push(item);
      bytes += n;
      if (bytes >= groupBytes) {
        yield send(group);
        group = [];
        bytes = 0;
      }
    }
    (items as unknown[])[i] = null; // sent: its memory can go
  }
  if (group.length) yield send(group);
}

function* run(d: ParseUploadData): Generator<FromParseWorker> {
  let parsed: ParsedImport;
  try {
    parsed = parse(d);
    const records = parsed.conversations.length + parsed.memories.length;
    if (records > LIMITS.records.value) throw new ImportLimitError("records", `${records} records`);
  } catch (e) {
    yield { type: "failed", error: e instanceof DomainError ? { kind: e.kind, code: e.code, message: e.message, details: e.details } : { message: (e as Error).message } };
    return;
  }
  const { conversations, memories, problems, ...shell } = parsed;
  yield { type: "shell", value: shell };
  yield* groups(problems, d.groupBytes, (items) => ({ type: "items", key: "problems", items }));
  yield* groups(memories, d.groupBytes, (items) => ({ type: "items", key: "memories", items }));
  yield* groups(conversations, d.groupBytes, (items) => ({ type: "items", key: "conversations", items }), function* (c: ImportConversation) {
    yield { type: "items", key: "conversations", items: [{ ...c, turns: [] }] };
    yield* groups(c.turns, d.groupBytes, (items) => ({ type: "turns", items }));
  });
  yield { type: "end" };
}

if (parentPort) {
  const steps = run(workerData as ParseUploadData);
  const next = () => {
    let step: IteratorResult<FromParseWorker>;
    try {
      step = steps.next();
    } catch (e) {
      step = { value: { type: "failed", error: { message: (e as Error).message } }, done: false };
    }
    if (!step.done) parentPort!.postMessage(step.value);
  };
  // The parent asks for each message after the first: it takes one group at a time.
  parentPort.on("message", next);
  next();
}
