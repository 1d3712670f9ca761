import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { ValidationError } from "../errors/domain-errors";
import { addCounts, failedRecords, problemOf, problemsOf } from "./field-readers";
import { createJob, saveProgress } from "./import-jobs";
import { ExportIds, type FileFormat } from "./parse-import";
import { chatgptConversation, chatgptOwner } from "./parse-chatgpt";
import { claudeConversation, claudeMemories, claudeMemoryEntry } from "./parse-claude";
import { zipSymlinkNames } from "./zip-symlinks";
import { parseAgentsSqlite } from "./parse-openai-agents";
import { parseUploadOffThread } from "./parse-upload-off-thread";
import type { ImportRun } from "./run-import";
import type { ImportJob } from "./schemas";
import { inBackground, zero } from "./start-import";
import { JsonArraySplitter } from "../streams/json-array-splitter";
import { JsonOffThreadError, parseJsonOffThread } from "../streams/json-off-thread";
import { zipEntryNames, fileSize, head, kindOf, pumpFile, pumpZipEntry, readWhole, readZip, removeUpload, walkZip, type FileKind } from "./upload-file";
import { ImportLimitError, LIMITS } from "./upload-limits";
import { JsonArraySyntaxError } from "../streams/json-array-splitter";
import type { ImportConversation, ImportFormat, ImportMemory, ImportProblem, ParsedImport, UploadFormat } from "./types";

// POST /api/v1/imports/upload: the file's bytes are the body (saved to a temporary file
// first). The format is named or detected from the first bytes; what cannot be read at all
// is a 422 now, and the records are read and written by the job. The large exports
// (ChatGPT's and Claude's conversations.json, bare or in the export's zip) are streamed:
// a conversation at a time through a streaming JSON parser, written a batch at a time,
// so memory stays bounded whatever the file's size.

export type UploadOptions = { format?: UploadFormat; dry_run: boolean; file_name?: string; app_id?: string; end_user_id?: string; namespace_user_index?: number };

// A batch is written in one statement per table. Its size bounds memory three ways: the
// batches held (the one written, the one being read), the statement's parameters (copied into
// the embedded database's WASM memory, which keeps its high-water mark) and the garbage each
// statement leaves on this thread's heap. The 30 MB bench's peak over the server at rest:
// 4 000 turns 380 MB (one batch at a time), 2 000 turns ~290 MB, 1 000 turns ~245 MB, at
// turns per CPU-second within the machine's noise (bench/import-chatgpt.ts).
const BATCH_TURNS = 1000;
const BATCH_CONVERSATIONS = 60;

export async function startUpload(sql: ProjectSql, actor: string | null, file: string, opts: UploadOptions): Promise<ImportJob> {
  let work: (run: ImportRun) => Promise<void>;
  let format: ImportFormat;
  let totalOf: (() => number) | undefined;
  try {
    const first = head(file);
    const kind = kindOf(first);
    const asked = opts.format ?? detectUpload(kind, first, file);
    format = asked;
    const parseOpts = { app_id: opts.app_id, end_user_id: opts.end_user_id ?? null, user_segment: opts.namespace_user_index };
    if (asked === "chatgpt" || asked === "claude") {
      // A first pass, scanning only (nothing parsed, nothing held): every bound is checked
      // before the job exists, so a file over one is a 413 and nothing is written.
      await checkStreamedExport(file, kind);
      const stream = streamedExport(file, kind, asked, parseOpts);
      work = stream.work;
      totalOf = stream.totalOf;
    } else {
      // Read whole now: a file that cannot be read is a 422 before any job exists.
      const parsed = await readWholeFormat(file, kind, asked, parseOpts, !!opts.format);
      const records = parsed.conversations.length + parsed.memories.length;
      if (records > LIMITS.records.value) throw new ImportLimitError("records", `${records} records`);
      format = parsed.format; // the older formats are told apart while parsing
      work = (run) => run.add(parsed);
      totalOf = () => parsed.conversations.length + parsed.memories.length + failedRecords(parsed.problems) + (parsed.skipped ?? 0);
    }
  } catch (e) {
    removeUpload(file);
    throw e;
  }
  const job = await createJob(sql, { format, label: opts.file_name ?? `${format} file`, dryRun: opts.dry_run, actor });
  await saveProgress(sql, job.id, { ...zero(), total: totalOf?.() ?? 0, status: "running" });
  inBackground(sql, job.id, work, opts.dry_run, totalOf, () => removeUpload(file));
  return { ...job, status: "running", total: totalOf?.() ?? 0 };
}

/** The format of an upload, from its kind and first bytes. */
export function detectUpload(kind: FileKind, first: Buffer, file: string): UploadFormat {
  if (kind === "sqlite") return "openai-agents";
  if (kind === "zip") {
    const names = zipNames(file);
    if (names.some((n) => /(^|\/)conversations\.json$/.test(n))) {
      // Both exports have conversations.json; ChatGPT's has chat.html / message_feedback.json, Claude's users.json.
      return names.some((n) => /(^|\/)(chat\.html|message_feedback\.json|model_comparisons\.json|shared_conversations\.json)$/.test(n)) ? "chatgpt" : "claude";
    }
    // AgentScope: the harness's agents/<agent>/sessions/<id>.jsonl, the Python workspace's sessions/<id>/context.jsonl
    // (or <id>.log.jsonl), daily notes memory/YYYY-MM-DD.md; only then a folder of memory files.
    if (names.some((n) => /(^|\/)sessions\/[^/]+\.(log\.)?jsonl$/.test(n) || /(^|\/)sessions\/[^/]+\/context\.jsonl$/.test(n) || /(^|\/)memory\/\d{4}-\d{2}-\d{2}\.md$/.test(n))) return "agentscope";
    if (names.some((n) => /\.af$/.test(n))) return "letta";
    return "memory-dir";
  }
  const text = first.toString("utf8");
  // SQL (pg_dump's header, or a statement first): LangGraph's store dump is the one SQL format, never a memory file.
  if (looksLikeSql(text)) return "langgraph";
  if (/^\s*\[\s*\{/.test(text) || /^\s*\{/.test(text)) {
    if (/"mapping"\s*:/.test(text) && /"current_node"|"create_time"/.test(text)) return "chatgpt";
    if (/"chat_messages"\s*:/.test(text)) return "claude";
    if (/"agents"\s*:/.test(text) && (/"blocks"\s*:/.test(text) || /"core_memory"\s*:/.test(text) || /"in_context_message_ids"\s*:/.test(text))) return "letta";
    if (/"memory_blocks"|"core_memory"|"in_context_message_indices"/.test(text)) return "letta";
  }
  if (/^\s*(#|-|\*)/.test(text) && !/^\s*[[{]/.test(text)) return "memory-dir";
  // The older formats (Dify API, Mem0, OpenAI chat) by their own detection.
  return "dify-api";
}

/** pg_dump's "-- PostgreSQL database dump" header, or a first statement that is SQL (after comments and blank lines). */
export function looksLikeSql(text: string): boolean {
  if (/^--\s*PostgreSQL database dump/m.test(text)) return true;
  if (/^(COPY|INSERT\s+INTO)\s+\S*store\b/im.test(text)) return true;
  const first = text.replace(/^\uFEFF/, "").split("\n").find((l) => l.trim() && !l.trim().startsWith("--"));
  return !!first && /^\s*(SET|SELECT|CREATE|ALTER|INSERT|COPY|BEGIN|DROP)\s/i.test(first);
}

function zipNames(file: string): string[] {
  try {
    return zipEntryNames(file);
  } catch {
    return []; // not a readable zip: reading it will say so
  }
}

type ParseOpts = { app_id?: string; end_user_id?: string | null; user_segment?: number };

async function readWholeFormat(file: string, kind: FileKind, format: UploadFormat, opts: ParseOpts, named: boolean): Promise<ParsedImport> {
  switch (format) {
    case "openai-agents":
      if (kind !== "sqlite") throw notKind(format, "a SQLite database file (SQLiteSession's)");
      wholeSize(file);
      return parseAgentsSqlite(file, opts); // read in a worker thread, from the file
    case "letta": {
      // Parsed in a worker (parse-upload-off-thread.ts), each file under the parse limits: its value is never rebuilt here.
      if (kind === "zip") return parseUploadOffThread({ format: "letta", files: await readZip(file, (n) => n.endsWith(".af") || n.endsWith(".json")), opts });
      wholeSize(file);
      return parseUploadOffThread({ format: "letta", file, opts });
    }
    case "memory-dir": {
      const files = kind === "zip" ? await readZip(file) : new Map([["MEMORY.md", new Uint8Array(readWhole(file))]]);
      // A link's data is its target: read through it (or name it), never as the file's text.
      const links = kind === "zip" ? zipSymlinkNames(file) : new Set<string>();
      const symlinks = new Map([...links].filter((n) => files.has(n)).map((n) => [n, Buffer.from(files.get(n)!).toString("utf8")]));
      // Unpacked here (a turn of the event loop every 2 MiB), parsed in a worker: the files are moved to it, not copied.
      return parseUploadOffThread({ format: "memory-dir", files, symlinks, opts });
    }
    case "agentscope":
      if (kind !== "zip") throw notKind(format, "a zip of the workspace folder");
      return parseUploadOffThread({ format: "agentscope", files: await readZip(file), opts });
    case "langgraph": {
      if (kind !== "text") throw notKind(format, "the store table's SQL dump (pg_dump), or no file: POST /imports with format langgraph reads MEMSCOPE_LANGGRAPH_DATABASE_URL");
      wholeSize(file);
      // Read and parsed in a worker: a 60 MB dump held this thread 13.6 s (docs/benchmarks.md section 45).
      return parseUploadOffThread({ format: "langgraph", file, opts });
    }
    case "dify-api":
    case "mem0":
    case "openai":
      if (kind !== "text") throw notKind(format, "a JSON or JSONL file");
      wholeSize(file);
      // Detected as "dify-api" only by default: the older formats tell themselves apart (parse-import.ts).
      // Read and parsed in a worker, records handed back in groups: the document's value is never held here.
      return parseUploadOffThread({ format: "json", file, named: named ? (format as FileFormat) : undefined, opts });
    default:
      throw new Error(`unreachable: ${format}`);
  }
}

/** A file read whole (in a worker or here) is bounded like a zip's unpacked bytes. */
function wholeSize(file: string) {
  const size = fileSize(file);
  if (size > LIMITS.wholeUnpacked.value) throw new ImportLimitError("wholeUnpacked", `the file is ${size} bytes; this format is read whole`);
}

const notKind = (format: string, want: string) => new ValidationError(`A ${format} import takes ${want}`, [{ field: "format", message: `${format} takes ${want}` }], "invalid_import_file");

const parseLimits = () => ({ maxHeapMb: LIMITS.parseMemory.value, maxMs: LIMITS.parseTime.value, maxDepth: LIMITS.depth.value });

/** A parse failure of the worker as the upload's answer: 413 naming the limit it passed, 422 for what is not JSON. */
function parseFailure(e: unknown, record: string, empty: string): unknown {
  if (!(e instanceof JsonOffThreadError)) return e;
  const where = record === "file" ? "the file" : record;
  if (e.kind === "memory") return new ImportLimitError("parseMemory", `${where}: ${e.message}`);
  if (e.kind === "time") return new ImportLimitError("parseTime", `${where}: ${e.message}`);
  if (e.kind === "depth") return new ImportLimitError("depth", `${where} is ${e.message}`);
  if (e.kind === "empty") return new ValidationError("The file is empty", [{ field: "content", message: "empty" }], "invalid_import_file");
  return new ValidationError(empty, [{ field: record === "file" ? "body" : record, message: e.message }], "invalid_import_file");
}

/** One JSON document (a Letta .af, a zip's JSON entry) parsed in a worker, off this thread and under the parse limits. */
async function jsonOf(source: { file: string } | { bytes: Uint8Array }, record: string): Promise<unknown> {
  try {
    const r = await parseJsonOffThread(source, parseLimits());
    return r.kind === "json" ? r.value : null;
  } catch (e) {
    throw parseFailure(e, record, "The file is not JSON");
  }
}

const CONVERSATIONS = /(^|\/)conversations\.json$/;
const MEMORIES = /(^|\/)memories\.json$/;
const USER_JSON = /(^|\/)user\.json$/;

/**
 * A record whose parse is estimated past this (bytes, plus CONTAINER_COST per object or array)
 * is parsed in the JSON worker, not on this thread: JSON.parse of one 60 MB conversation blocked
 * the server ~2 s under load, 1 MB 58 ms (docs/benchmarks.md sections 35 and 39). Real
 * conversations are far under it and stay inline (a worker costs a thread's start).
 */
export const RECORD_OFF_THREAD_FROM = 8 * 1024 * 1024;

/** One record of a streamed export parsed in the JSON worker; its failures worded as an inline parse's (syntax) or as the limit it passed. */
async function recordOffThread(bytes: Uint8Array, index: number, name: string): Promise<unknown> {
  try {
    const r = await parseJsonOffThread({ bytes }, parseLimits());
    return r.kind === "json" ? r.value : null;
  } catch (e) {
    if (e instanceof JsonOffThreadError && (e.kind === "syntax" || e.kind === "empty")) throw new JsonArraySyntaxError("element", `element ${index}: ${e.message}`, index, "", e.message);
    throw parseFailure(e, `${name}[${index}]`, "The record is not JSON");
  }
}

/** A splitter that holds one record (a conversation) at most `record_bytes` long, `nesting_depth` deep and of `values_per_record` objects and arrays; a costly one is parsed off-thread. */
const boundedSplitter = (scanOnly: boolean, name = "conversations") =>
  new JsonArraySplitter({
    maxElementBytes: LIMITS.record.value,
    maxDepth: LIMITS.depth.value,
    maxContainers: LIMITS.values.value,
    scanOnly,
    offThread: scanOnly ? undefined : { fromCost: RECORD_OFF_THREAD_FROM, parse: (bytes, index) => recordOffThread(bytes, index, name) },
  });

/** The splitter's bound errors as the 413 naming the limit; other errors as they are. */
function boundError(e: unknown): unknown {
  if (e instanceof JsonArraySyntaxError && e.kind === "too_large") return new ImportLimitError("record", `conversations[${e.index}] is longer than ${LIMITS.record.value} bytes`);
  if (e instanceof JsonArraySyntaxError && e.kind === "too_many_values") return new ImportLimitError("values", `conversations[${e.index}] holds more than ${LIMITS.values.value} objects and arrays`);
  if (e instanceof JsonArraySyntaxError && e.kind === "too_deep") return new ImportLimitError("depth", `conversations[${e.index}] is nested deeper than ${LIMITS.depth.value}`);
  return e;
}

/**
 * The streamed export's bounds, checked by scanning it once before the job starts: unpacked
 * bytes and the zip's entries (walkZip), one conversation's bytes and nesting, memories.json's
 * size. JSON syntax is left to the job (the conversations before an error are imported, as
 * before); only the bounds are refused here.
 */
async function checkStreamedExport(file: string, kind: FileKind): Promise<void> {
  if (kind === "sqlite") return; // refused by streamedExport
  const splitter = boundedSplitter(true);
  let failure: unknown = null;
  let stopped = false; // a syntax error: the job reports it
  let memories = 0;
  const write = (name: string, chunk: Uint8Array) => {
    if (failure) return;
    if (MEMORIES.test(name)) {
      memories += chunk.length;
      if (memories > LIMITS.record.value) failure = new ImportLimitError("record", `${name} is longer than ${LIMITS.record.value} bytes`);
      return;
    }
    if (stopped || splitter.ended) return;
    try {
      splitter.write(chunk);
    } catch (e) {
      const bound = boundError(e);
      if (bound instanceof ImportLimitError) failure = bound;
      else stopped = true;
    }
  };
  const drain = async () => {
    if (failure) throw failure;
  };
  if (kind === "zip") {
    let conversations = false;
    await walkZip(file, {
      pick: (n) => {
        if (MEMORIES.test(n)) return true;
        if (conversations || !CONVERSATIONS.test(n)) return false;
        conversations = true;
        return true;
      },
      write,
      drain,
      total: "unpacked",
      entry: null,
    });
  } else {
    await pumpFile(file, (chunk) => write("conversations.json", chunk), drain);
  }
  if (failure) throw failure;
}

/**
 * ChatGPT's or Claude's conversations.json (bare, or inside the export's zip), one array
 * element at a time. Memories repeat across conversations (ChatGPT's custom instructions
 * sit in each): the first of each is kept. Claude's memories.json (zip only) follows.
 */
function streamedExport(file: string, kind: FileKind, format: "chatgpt" | "claude", given: ParseOpts) {
  let opts = given;
  if (kind === "sqlite") throw notKind(format, "conversations.json or the export's zip");
  const size = fileSize(file);
  let read = 0;
  let records = 0;
  const totalOf = () => (read > 0 && read < size ? Math.max(records, Math.round((records * size) / read)) : records);
  const work = async (run: ImportRun) => {
    const seenMemories = new Set<string>();
    let batch: ParsedImport = fresh(format);
    let turns = 0;
    const ids = new ExportIds(format);
    // ChatGPT's user.json names the account: the owner of the conversations and memories (read before them).
    if (format === "chatgpt" && kind === "zip") {
      const user = await zipEntryBytes(file, USER_JSON);
      if (user) {
        let read: Awaited<ReturnType<typeof parseJsonOffThread>>;
        try {
          read = await parseJsonOffThread({ bytes: user.bytes }, parseLimits());
        } catch (e) {
          throw parseFailure(e, user.name, "The export's user.json is not JSON");
        }
        const owner = chatgptOwner(read.kind === "json" ? read.value : null);
        if (owner) opts = { ...opts, end_user_id: owner };
      }
    }
    // One array element (a conversation) at a time: lib/streams/json-array-splitter.ts.
    const parser = boundedSplitter(false);
    let syntax: Error | null = null;
    parser.onValue = (value, key) => {
      records++;
      const record = `conversations[${key}]`;
      try {
        if (format === "chatgpt") {
          const r = chatgptConversation(value, record, opts);
          const first = !r.conversation || ids.claim(r.conversation);
          addMemories(batch, r.memories, seenMemories);
          if (r.conversation && first) {
            addCounts(batch.unrepresented!, r.unrepresented);
            add(r.conversation);
          } else batch.skipped = (batch.skipped ?? 0) + 1;
        } else {
          const c = claudeConversation(value, record, opts);
          if (c && ids.claim(c)) add(c);
          else batch.skipped = (batch.skipped ?? 0) + 1;
        }
      } catch (e) {
        batch.problems.push(...problemsOf(record, e));
      }
    };
    const add = (c: ImportConversation) => {
      batch.conversations.push(c);
      turns += c.turns.length;
    };
    // One batch is written while the next is read and its tokens counted (in the worker
    // pool): at most two batches held, the one written and the one being filled, however
    // large the file, so memory stays bounded (backpressure: reading waits for the write).
    let writing: Promise<void> = Promise.resolve();
    const settle = () => writing;
    const flush = async (force: boolean) => {
      if (!force && turns < BATCH_TURNS && batch.conversations.length < BATCH_CONVERSATIONS && batch.problems.length < 100) return;
      const b = batch;
      batch = fresh(format);
      turns = 0;
      run.countAhead(b);
      await writing;
      writing = run.add(b);
      writing.catch(() => {}); // met by the next settle(): a failed write ends the job there
      if (force) await writing;
    };
    const write = (chunk: Uint8Array) => {
      if (syntax || parser.ended) return;
      read += chunk.length;
      try {
        parser.write(chunk);
      } catch (e) {
        syntax = boundError(e) as Error;
      }
    };
    const drain = async () => {
      if (!syntax) {
        try {
          await parser.settled(); // a record parsed in the worker: reading waits for it
        } catch (e) {
          syntax = boundError(e) as Error;
        }
      }
      if (syntax) {
        await settle(); // the batches before the error are written, as before
        throw syntax instanceof ImportLimitError ? syntax : syntaxError(syntax, records);
      }
      run.checkCancelled(); // between batches too: reading a large file stops at once
      await flush(false);
    };
    try {
      if (kind === "zip") {
        read = 0;
        const found = await pumpZipEntry(file, (n) => CONVERSATIONS.test(n), write, drain);
        if (!found) throw new ValidationError("The zip has no conversations.json", [{ field: "body", message: "no conversations.json in the archive" }], "invalid_import_file");
      } else {
        await pumpFile(file, (chunk) => write(chunk), drain);
      }
    } catch (e) {
      await writing.catch(() => {}); // no write left running behind a job that failed
      throw e;
    }
    if (!syntax) {
      try {
        await parser.settled();
        parser.end();
      } catch (e) {
        syntax = e as Error;
      }
    }
    if (syntax) {
      await settle();
      throw syntaxError(syntax, records);
    }
    if (parser.topLevelObject) batch.problems.push({ record: "file", message: "conversations.json must be an array of conversations" });
    read = size;
    if (format === "claude" && kind === "zip") await claudeMemoriesStreamed(file, (ms) => addMemories(batch, ms, seenMemories), batch.problems, opts);
    await flush(true);
  };
  return { work, totalOf };
}

/**
 * Claude's memories.json, streamed like conversations.json: one element (an account's memory and
 * its projects') at a time, a costly one parsed in the worker, so the file is never held whole
 * here. Its bounds were checked by the first pass. An element that is not a memory, or JSON that
 * breaks off, is a problem of the job; the memories before it are kept. A bare object (not an
 * array) is read whole, in the worker.
 */
async function claudeMemoriesStreamed(file: string, add: (ms: ImportMemory[]) => void, problems: ImportProblem[], opts: ParseOpts): Promise<void> {
  const splitter = boundedSplitter(false, "memories.json");
  let name = "memories.json";
  splitter.onValue = (value, index) => {
    try {
      add(claudeMemoryEntry(value, index, name, opts));
    } catch (e) {
      problems.push(problemOf(name, e));
    }
  };
  let failure: unknown = null;
  const found = await pumpZipEntry(
    file,
    (n) => {
      if (!MEMORIES.test(n)) return false;
      name = n;
      return true;
    },
    (chunk) => {
      if (failure || splitter.ended) return;
      try {
        splitter.write(chunk);
      } catch (e) {
        failure = e;
      }
    },
    async () => {
      if (failure) return;
      await splitter.settled().catch((e: unknown) => {
        failure = e;
      });
    },
    "record",
  );
  if (!found) return;
  if (!failure) {
    try {
      await splitter.settled();
      splitter.end();
    } catch (e) {
      failure = e;
    }
  }
  if (failure) {
    problems.push(failure instanceof ImportLimitError ? problemOf(name, failure) : { record: name, message: `not valid JSON: ${(failure as Error).message}` });
    return;
  }
  if (splitter.topLevelObject) {
    const mem = await zipEntryBytes(file, MEMORIES);
    if (!mem) return;
    try {
      add(claudeMemories(await jsonOf({ bytes: mem.bytes }, mem.name), mem.name, opts));
    } catch (e) {
      problems.push(problemOf(mem.name, e));
    }
  }
}

/** A small entry of a zip (Claude's memories.json as a bare object, ChatGPT's user.json), streamed out like conversations.json, at most record_bytes long. */
async function zipEntryBytes(file: string, pick: RegExp): Promise<{ name: string; bytes: Uint8Array } | null> {
  const parts: Uint8Array[] = [];
  const name = await pumpZipEntry(file, (n) => pick.test(n), (c) => parts.push(c), async () => {}, "record");
  return name ? { name, bytes: new Uint8Array(Buffer.concat(parts)) } : null;
}

function fresh(format: "chatgpt" | "claude"): ParsedImport {
  return { format, source: format, conversations: [], memories: [], problems: [], skipped: 0, unrepresented: {} };
}

function addMemories(batch: ParsedImport, memories: ImportMemory[], seen: Set<string>) {
  for (const m of memories) {
    if (seen.has(m.externalId)) continue;
    seen.add(m.externalId);
    batch.memories.push(m);
  }
}

function syntaxError(e: Error, records: number): Error {
  return new Error(`The file is not valid JSON after ${records} conversations: ${e.message}`);
}

export type { ImportProblem };
