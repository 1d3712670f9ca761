import { ValidationError } from "../errors/domain-errors";
import { isObj } from "./field-readers";
import { parseDifyApi } from "./parse-dify-api";
import { parseMem0 } from "./parse-mem0";
import { parseOpenAi } from "./parse-openai";
import { chatgptConversation } from "./parse-chatgpt";
import { claudeConversation } from "./parse-claude";
import { parseLetta } from "./parse-letta";
import { parseMemoryFiles } from "./parse-memory-dir";
import { addCounts, problemsOf, RecordProblem } from "./field-readers";
import { sha256Hex } from "./stable-id";
import type { ImportConversation, ImportFormat, ImportMemory, ParsedImport } from "./types";

// A file's text to normalized records: the format is detected when not given. JSON is
// read whole; when it is not one JSON value it is read as JSONL, one record a line, and a
// line that is not JSON is a problem naming that line (the other lines still import).

/** Formats a JSON body's `content` can carry (the others need POST /imports/upload: a database file or a folder). */
export type FileFormat = "dify-api" | "mem0" | "openai" | "chatgpt" | "claude" | "letta" | "memory-dir";
export const TEXT_FORMATS: readonly ImportFormat[] = ["dify-api", "mem0", "openai", "chatgpt", "claude", "letta", "memory-dir"];
export type ParseOptions = { app_id?: string; end_user_id?: string | null };

type Line = { value: unknown; record: string; raw: string };
export type Read = { kind: "json"; value: unknown } | { kind: "jsonl"; lines: Line[]; bad: { record: string; message: string }[] };

export function parseImportText(text: string, format: FileFormat | undefined, opts: ParseOptions = {}): ParsedImport {
  if (format === "memory-dir") return parseMemoryFiles(new Map([["MEMORY.md", new TextEncoder().encode(text)]]), opts);
  const read = readJson(text);
  return parseImportRead(read, format, opts);
}

/** A document already read as JSON or JSON lines (an upload is parsed in a worker: lib/streams/json-off-thread.ts). */
export function parseImportRead(read: Read, format: FileFormat | undefined, opts: ParseOptions = {}): ParsedImport {
  const detected = format ?? detectFormat(read);
  if (read.kind === "jsonl") {
    if (detected !== "openai") {
      throw new ValidationError(`${detected} files are one JSON document, not JSON lines`, [
        { field: "content", message: read.bad[0] ? `${read.bad[0].record}: ${read.bad[0].message}` : "several JSON values" },
      ], "invalid_import_file");
    }
    const parsed = parseOpenAi(read.lines, opts);
    parsed.problems.unshift(...read.bad.map((b) => ({ ...b, field: undefined })));
    return parsed;
  }
  const doc = read.value;
  switch (detected) {
    case "dify-api":
      return parseDifyApi(doc, opts);
    case "mem0":
      return parseMem0(doc, { app_id: opts.app_id ?? null });
    case "chatgpt":
    case "claude":
      return wholeExport(detected, doc, opts);
    case "letta":
      return parseLetta(doc, "file", opts);
    case "memory-dir":
      throw new ValidationError("A memory folder is Markdown, not JSON", [{ field: "format", message: "memory-dir takes Markdown" }], "invalid_import_file");
    case "openai": {
      const items = Array.isArray(doc) ? doc : [doc];
      return parseOpenAi(
        items.map((value, i) => ({ value, record: Array.isArray(doc) ? `[${i}]` : "file", raw: JSON.stringify(value) })),
        opts,
      );
    }
  }
}

/** A ChatGPT or Claude conversations.json sent as text (small ones; large ones stream through POST /imports/upload). */
function wholeExport(format: "chatgpt" | "claude", doc: unknown, opts: ParseOptions): ParsedImport {
  const out: ParsedImport = { format, source: format, conversations: [], memories: [], problems: [], skipped: 0, unrepresented: {} };
  if (!Array.isArray(doc)) {
    out.problems.push({ record: "file", message: "conversations.json must be an array of conversations" });
    return out;
  }
  const seen = new Set<string>();
  const keep = (ms: ImportMemory[]) => ms.filter((m) => !seen.has(m.externalId) && seen.add(m.externalId));
  const ids = new ExportIds(format);
  doc.forEach((v, i) => {
    const record = `conversations[${i}]`;
    try {
      if (format === "chatgpt") {
        const r = chatgptConversation(v, record, opts);
        const first = !r.conversation || ids.claim(r.conversation);
        out.memories.push(...keep(r.memories));
        if (r.conversation && first) {
          addCounts(out.unrepresented!, r.unrepresented);
          out.conversations.push(r.conversation);
        } else out.skipped!++;
      } else {
        const c = claudeConversation(v, record, opts);
        if (c && ids.claim(c)) out.conversations.push(c);
        else out.skipped!++;
      }
    } catch (e) {
      out.problems.push(...problemsOf(record, e));
    }
  });
  return out;
}

/**
 * Conversation ids of one export: a second conversation with an id already met is a defect
 * when it differs from the first (the source's id is the conversation's identity: two cannot
 * both be it; the first stays), and a copy when it is the same conversation again (skipped).
 */
export class ExportIds {
  private readonly first = new Map<string, { record: string; digest: string }>();
  constructor(private readonly format: "chatgpt" | "claude") {}
  /** true: the first with this id; false: an identical copy of it. Throws for a different one. */
  claim(c: ImportConversation): boolean {
    const digest = sha256Hex(JSON.stringify([c.name, c.end_user_id, c.model_config, c.turns.map((t) => [t.id, t.parent_message_id, t.query, t.answer, t.created_at, t.files, t.metadata])]));
    const before = this.first.get(c.externalId);
    if (before === undefined) {
      this.first.set(c.externalId, { record: c.record, digest });
      return true;
    }
    if (before.digest === digest) return false;
    throw new RecordProblem(this.format === "claude" ? "uuid" : "id", `repeats the id of ${before.record} (${c.externalId}) with other content`);
  }
}

function readJson(text: string): Read {
  const trimmed = text.trim();
  if (!trimmed) throw new ValidationError("The file is empty", [{ field: "content", message: "empty" }], "invalid_import_file");
  try {
    return { kind: "json", value: JSON.parse(trimmed) };
  } catch {
    // Not one JSON value: JSON lines.
  }
  const lines: Line[] = [];
  const bad: { record: string; message: string }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (!raw.trim()) return;
    const record = `line ${i + 1}`;
    try {
      lines.push({ value: JSON.parse(raw), record, raw });
    } catch (e) {
      bad.push({ record, message: `not JSON: ${(e as Error).message}` });
    }
  });
  if (!lines.length) {
    throw new ValidationError("The file is neither JSON nor JSON lines", [{ field: "content", message: bad[0] ? `${bad[0].record}: ${bad[0].message}` : "no JSON" }], "invalid_import_file");
  }
  return { kind: "jsonl", lines, bad };
}

/** Which source a document comes from, by its shape. */
export function detectFormat(read: Read): FileFormat {
  if (read.kind === "jsonl") return "openai";
  const v = read.value;
  const first = (a: unknown) => (Array.isArray(a) ? a.find(isObj) : undefined);
  if (isObj(v)) {
    if (Array.isArray(v.agents) || Array.isArray(v.core_memory)) return "letta";
    if (Array.isArray(v.conversations)) return "dify-api";
    const d = first(v.data);
    if (d && ("query" in d || "answer" in d || "conversation_id" in d)) return "dify-api";
    if (Array.isArray(v.messages)) return "openai";
    const r = first(v.results) ?? first(v.memories);
    if (r && "memory" in r) return "mem0";
    if (Array.isArray(v.results) || Array.isArray(v.memories)) return "mem0";
  }
  if (Array.isArray(v)) {
    const f = first(v);
    // Exports: any conversation with the format's tree says which (a bad first record still imports the others).
    if (v.some((x) => isObj(x) && isObj(x.mapping))) return "chatgpt";
    if (v.some((x) => isObj(x) && Array.isArray(x.chat_messages))) return "claude";
    if (f && Array.isArray(f.messages)) return "openai";
    if (f && "memory" in f) return "mem0";
  }
  throw new ValidationError(
    "The file's format was not recognized: give format (dify-api, mem0, openai, chatgpt, claude, letta)",
    [{ field: "format", message: "not detected: expected conversations / data (Dify), results or an array with memory (Mem0), messages (OpenAI), mapping (ChatGPT), chat_messages (Claude), agents or core_memory (Letta)" }],
    "unknown_import_format",
  );
}
