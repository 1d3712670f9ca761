import "server-only";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { settleWorker } from "../process/worker-settle";
import { ValidationError } from "../errors/domain-errors";
import { ImportLimitError, LIMITS, type LimitKey } from "./upload-limits";
import { addCounts, isObj, optTime, type Obj } from "./field-readers";
import { sha256Hex } from "./stable-id";
import type { MessageFileInput } from "../messages/schemas";
import { stableUuid } from "./stable-id";
import type { ImportConversation, ImportTurn, ParsedImport } from "./types";

// The OpenAI Agents SDK's SQLiteSession file (src/agents/memory/sqlite_session.py): a
// sessions table (session_id, created_at, updated_at; "agent_sessions" by default) and a
// messages table (id, session_id, message_data = one Responses-API input item as JSON,
// created_at; "agent_messages" by default; both names can be changed, so the tables are
// found by their columns). Each session becomes a conversation: a user message opens a
// turn, assistant output messages answer it, function_call / function_call_output pairs are
// its tool calls, reasoning summaries go to its metadata. A row whose message_data does not
// decode (not JSON, not an item) is skipped and counted, as the SDK's own reader skips it.
// Images and files a user message carries (input_image: image_url or file_id; input_file)
// become the turn's files; inline bytes (a data: URL, file_data) have no place in Memscope:
// their digest and size stay in metadata, counted as unrepresented. Items whose session_id
// names no row of the sessions table (the table's foreign key, which SQLite enforces only
// when asked) are a defect of that session: named, and the session left out.
//
// SQLite is read with sql.js (SQLite compiled to WebAssembly): no native build, so it
// installs offline and runs the same on Node 20, 22 and 24 (node:sqlite is not in Node 20).
// It runs in a worker thread (sqlite-worker.mjs), which checks the columns and bounds each value.

export type AgentsOptions = { app_id?: string; end_user_id?: string | null };

type SqlValue = string | number | null | Uint8Array;
type MessageRow = { id: number; session_id: string; message_data: string | null; created_at: SqlValue };
type SessionRow = { session_id: string; created_at: SqlValue; updated_at: SqlValue };
type WorkerResult = { messages: MessageRow[]; sessions: SessionRow[]; sessionsTable: string | null };
/** The worker's answers: the result without its rows ("shell"), then the rows a group at a time as asked for, then "end"; or a refusal. */
type WorkerAnswer =
  | { ok: true; type: "shell"; result: WorkerResult }
  | { type: "rows"; rows: MessageRow[] }
  | { type: "end" }
  | { ok: false; kind: "invalid" | "limit"; message: string; detail: { field: string; message: string }; limit: LimitKey | null };

// The worker is a plain .mjs file read at run time from the app folder (as token-worker.mjs).
const workerFile = () => path.join(process.cwd(), "lib", "imports", "sqlite-worker.mjs");

/**
 * The database read in a worker thread (sqlite-worker.mjs), with a heap cap and a time limit:
 * past either it is stopped and the upload is a 413 naming the limit. `source`: the file's path
 * (an upload: never read on this thread) or its bytes.
 */
export async function parseAgentsSqlite(source: string | Uint8Array, opts: AgentsOptions = {}): Promise<ParsedImport> {
  const data = await readInWorker(source);
  return readSessions(data.messages, data.sessions, data.sessionsTable, opts);
}

async function readInWorker(source: string | Uint8Array): Promise<WorkerResult> {
  const worker = new Worker(workerFile(), {
    workerData: { ...(typeof source === "string" ? { file: source } : { bytes: source }), maxValueBytes: LIMITS.sqliteValue.value, maxRows: LIMITS.sqliteRows.value },
    resourceLimits: { maxOldGenerationSizeMb: LIMITS.parseMemory.value },
  });
  let result: WorkerResult | null = null;
  return settleWorker<WorkerResult, WorkerAnswer>(
    worker,
    {
      maxMs: LIMITS.parseTime.value,
      timedOut: () => new ImportLimitError("parseTime", `reading the SQLite database took more than ${LIMITS.parseTime.value} ms`),
      outOfMemory: () => new ImportLimitError("parseMemory", `reading the SQLite database needed more than ${LIMITS.parseMemory.value} MB`),
      exited: (code) => new Error(`the SQLite reader stopped (exit code ${code})`),
    },
    (m, s) => {
      if ("ok" in m && m.ok === false) return s.reject(m.kind === "limit" && m.limit ? new ImportLimitError(m.limit, m.message) : new ValidationError(m.message, [m.detail], "invalid_import_file"));
      if (m.type === "end") return s.resolve(result!);
      if (m.type === "shell") {
        // The database is read: the time limit was on that; the rows come at this thread's pace.
        s.stopClock();
        result = m.result;
      } else for (const r of m.rows) result!.messages.push(r);
      s.next();
    },
  );
}

/** Rows between two turns of the event loop while the conversations are built. */
const ROWS_PER_TURN = 2000;

async function readSessions(all: MessageRow[], sessionRows: SessionRow[], sessionsTable: string | null, opts: AgentsOptions): Promise<ParsedImport> {
  const out: ParsedImport = { format: "openai-agents", source: "openai-agents", conversations: [], memories: [], problems: [], skipped: 0, unrepresented: {} };
  const meta = new Map<string, { created?: string; updated?: string }>();
  for (const r of sessionRows) meta.set(String(r.session_id), { created: time(r.created_at), updated: time(r.updated_at) });
  const bySession = new Map<string, MessageRow[]>();
  for (const r of all) {
    const k = String(r.session_id);
    if (!bySession.has(k)) bySession.set(k, []);
    bySession.get(k)!.push(r);
  }
  for (const id of meta.keys()) if (!bySession.has(id)) bySession.set(id, []);
  let sinceTurn = 0;
  for (const [sessionId, items] of bySession) {
    const record = `session ${sessionId}`;
    if (sessionsTable && !meta.has(sessionId)) {
      // Rows of a session the sessions table does not hold (its foreign key broken): a defect, not a session.
      out.problems.push({ record, field: "session_id", message: `names no row of ${sessionsTable}: ${items.length} item${items.length === 1 ? "" : "s"} (rows ${items.map((r) => r.id).join(", ")}) reference a missing session` });
      continue;
    }
    const { conv, undecodable, unrepresented } = sessionConversation(sessionId, items, meta.get(sessionId) ?? {}, record, opts);
    out.skipped! += undecodable;
    addCounts(out.unrepresented!, unrepresented);
    if (conv) out.conversations.push(conv);
    else out.skipped!++;
    sinceTurn += items.length + 1;
    if (sinceTurn >= ROWS_PER_TURN) {
      sinceTurn = 0;
      await new Promise((r) => setImmediate(r)); // other requests go on between sessions
    }
  }
  return out;
}

function time(v: SqlValue | undefined): string | undefined {
  if (v === null || v === undefined || v === "") return undefined;
  // SQLite's CURRENT_TIMESTAMP: "YYYY-MM-DD HH:MM:SS", UTC.
  const s = typeof v === "string" ? v.replace(" ", "T") : v;
  try {
    return optTime({ t: s }, "t");
  } catch {
    return undefined;
  }
}

type Call = { id: string; name: string; arguments: string; result: string | null };

function sessionConversation(sessionId: string, items: MessageRow[], meta: { created?: string; updated?: string }, record: string, opts: AgentsOptions) {
  let undecodable = 0;
  const unrepresented: Record<string, number> = {};
  const turns: ImportTurn[] = [];
  const system: string[] = [];
  type Open = { query: string[]; answer: string[]; calls: Call[]; reasoning: string[]; other: string[]; files: MessageFileInput[]; inline: Obj[]; first: number; created?: string; rows: number[] };
  let open: Open | null = null;
  const close = () => {
    if (!open) return;
    const metadata: Record<string, unknown> = { source: "openai-agents", row_ids: open.rows };
    if (open.calls.length) metadata.tool_calls = open.calls;
    if (open.reasoning.length) metadata.reasoning = open.reasoning.join("\n\n");
    if (open.other.length) metadata.other_items = open.other;
    if (open.inline.length) metadata.inline_files = open.inline;
    turns.push({
      id: stableUuid(`openai-agents-turn:${sessionId}:${open.first}`),
      path: `row ${open.first}`,
      parent_message_id: turns.at(-1)?.id ?? null,
      query: open.query.join("\n\n"),
      answer: open.answer.join("\n\n"),
      created_at: open.created,
      files: open.files.slice(0, 20),
      metadata,
    });
    open = null;
  };
  for (const r of items) {
    const rowId = Number(r.id);
    let item: unknown;
    try {
      item = JSON.parse(String(r.message_data));
    } catch {
      undecodable++;
      continue;
    }
    if (!isObj(item)) {
      undecodable++;
      continue;
    }
    const created = time(r.created_at);
    const start = (): Open => (open ??= { query: [], answer: [], calls: [], reasoning: [], other: [], files: [], inline: [], first: rowId, created, rows: [] });
    const type = typeof item.type === "string" ? item.type : item.role !== undefined ? "message" : undefined;
    if (type === "message") {
      const role = item.role;
      const text = textOf(item.content);
      if (text === null) {
        undecodable++;
        continue;
      }
      if (role === "system" || role === "developer") {
        system.push(text);
        continue;
      }
      if (role === "user") {
        if (open && ((open as Open).answer.length || (open as Open).calls.length)) close();
        const o = start();
        o.rows.push(rowId);
        if (text) o.query.push(text);
        for (const f of inputFiles(item.content, rowId)) {
          if (f.file) o.files.push(f.file);
          if (f.inline) {
            o.inline.push(f.inline);
            unrepresented[f.reason!] = (unrepresented[f.reason!] ?? 0) + 1;
          }
        }
        continue;
      }
      if (role === "assistant") {
        const o = start();
        o.rows.push(rowId);
        if (text) o.answer.push(text);
        continue;
      }
      undecodable++;
      continue;
    }
    const o = start();
    o.rows.push(rowId);
    if (type === "function_call") {
      o.calls.push({ id: String(item.call_id ?? item.id ?? rowId), name: String(item.name ?? "function"), arguments: typeof item.arguments === "string" ? item.arguments : JSON.stringify(item.arguments ?? {}), result: null });
    } else if (type === "function_call_output") {
      const callId = String(item.call_id ?? "");
      const output = typeof item.output === "string" ? item.output : (textOf(item.output) ?? JSON.stringify(item.output ?? null));
      // A tool's output may hold images and files too (ToolOutputImage, ToolOutputFileContent): kept in metadata, counted.
      if (Array.isArray(item.output)) {
        for (const part of item.output) {
          if (!isObj(part) || (part.type !== "input_image" && part.type !== "input_file")) continue;
          const ref = typeof part.image_url === "string" ? part.image_url : typeof part.file_url === "string" ? part.file_url : typeof part.file_data === "string" ? part.file_data : null;
          const inline = !!ref && (ref.startsWith("data:") || part.file_data === ref);
          o.inline.push({ row_id: rowId, type: `function_call_output ${part.type}`, call_id: callId, ...(typeof part.file_id === "string" ? { file_id: part.file_id } : {}), ...(ref && !inline ? { url: ref } : {}), ...(ref && inline ? { sha256: sha256Hex(ref), chars: ref.length } : {}) });
          unrepresented.openai_agents_tool_output_file = (unrepresented.openai_agents_tool_output_file ?? 0) + 1;
        }
      }
      const call = o.calls.find((c) => c.id === callId);
      if (call) call.result = output;
      else o.calls.push({ id: callId, name: "function", arguments: "", result: output });
    } else if (type === "reasoning") {
      const summary = Array.isArray(item.summary) ? item.summary.map((s) => (isObj(s) && typeof s.text === "string" ? s.text : "")).filter(Boolean) : [];
      if (summary.length) o.reasoning.push(summary.join("\n"));
    } else if (type) {
      // web_search_call, file_search_call, computer_call, mcp_call, ...: named, not expanded.
      o.other.push(type);
    } else {
      undecodable++;
    }
  }
  close();
  if (!turns.length) return { conv: null, undecodable, unrepresented };
  const config: Record<string, unknown> = { source: "openai-agents", session_id: sessionId };
  if (system.length) config.system_messages = system;
  const conv: ImportConversation = {
    externalId: sessionId,
    record,
    id: stableUuid(`openai-agents-conversation:${sessionId}`),
    app_id: opts.app_id ?? "openai-agents",
    end_user_id: opts.end_user_id ?? null,
    name: `Session ${sessionId}`.slice(0, 255),
    mode: "agent-chat",
    model_config: config,
    created_at: meta.created ?? turns[0].created_at,
    updated_at: meta.updated,
    turns,
    allowMissingParents: false,
  };
  return { conv, undecodable, unrepresented };
}

/**
 * A user message's input_image and input_file parts (the Responses API's input content): a URL
 * or a file id is a file of the turn; inline bytes (a data: URL, file_data) are kept as their
 * digest and size in metadata (inline), under a reason counted as unrepresented.
 */
function inputFiles(c: unknown, rowId: number): { file?: MessageFileInput; inline?: Obj; reason?: string }[] {
  if (!Array.isArray(c)) return [];
  const out: { file?: MessageFileInput; inline?: Obj; reason?: string }[] = [];
  for (const p of c) {
    if (!isObj(p)) continue;
    if (p.type === "input_image") {
      const url = typeof p.image_url === "string" ? p.image_url : null;
      if (url && url.startsWith("data:")) {
        const media = /^data:([^;,]+)/.exec(url)?.[1] ?? null;
        out.push({ file: { type: "image", transfer_method: "local_file", upload_file_id: `sha256:${sha256Hex(url)}`, url: null, belongs_to: "user" }, inline: { row_id: rowId, type: "input_image", media_type: media, sha256: sha256Hex(url), data_url_chars: url.length, detail: p.detail ?? null }, reason: "openai_agents_image_data" });
      } else if (url && url.length <= 4000) out.push({ file: { type: "image", transfer_method: "remote_url", url, upload_file_id: null, belongs_to: "user" } });
      else if (typeof p.file_id === "string" && p.file_id.length <= 200) out.push({ file: { type: "image", transfer_method: "local_file", upload_file_id: p.file_id, url: null, belongs_to: "user" } });
    } else if (p.type === "input_file") {
      if (typeof p.file_id === "string" && p.file_id.length <= 200) out.push({ file: { type: "document", transfer_method: "local_file", upload_file_id: p.file_id, url: null, belongs_to: "user" } });
      else if (typeof p.file_url === "string" && p.file_url.length <= 4000) out.push({ file: { type: "document", transfer_method: "remote_url", url: p.file_url, upload_file_id: null, belongs_to: "user" } });
      else if (typeof p.file_data === "string") {
        out.push({ inline: { row_id: rowId, type: "input_file", filename: typeof p.filename === "string" ? p.filename : null, sha256: sha256Hex(p.file_data), file_data_chars: p.file_data.length }, reason: "openai_agents_file_data" });
      }
    }
  }
  return out;
}

/** A message's text: a string, or its text parts (input_text, output_text, text); null when the content is not one of those. */
function textOf(c: unknown): string | null {
  if (c === undefined || c === null) return "";
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return null;
  const parts: string[] = [];
  for (const p of c) {
    if (!isObj(p)) return null;
    if (typeof (p as Obj).text === "string") parts.push((p as Obj).text as string);
    else if (p.type === "refusal" && typeof p.refusal === "string") parts.push(p.refusal);
  }
  return parts.join("\n");
}


