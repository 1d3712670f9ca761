import { ValidationError } from "../errors/domain-errors";
import { isObj } from "./field-readers";
import { parseDifyApi } from "./parse-dify-api";
import { parseMem0 } from "./parse-mem0";
import { parseOpenAi } from "./parse-openai";
import type { ImportFormat, ParsedImport } from "./types";

// A file's text to normalized records: the format is detected when not given. JSON is
// read whole; when it is not one JSON value it is read as JSONL, one record a line, and a
// line that is not JSON is a problem naming that line (the other lines still import).

export type FileFormat = Exclude<ImportFormat, "dify-db">;
export type ParseOptions = { app_id?: string; end_user_id?: string | null };

type Line = { value: unknown; record: string; raw: string };
type Read = { kind: "json"; value: unknown } | { kind: "jsonl"; lines: Line[]; bad: { record: string; message: string }[] };

export function parseImportText(text: string, format: FileFormat | undefined, opts: ParseOptions = {}): ParsedImport {
  const read = readJson(text);
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
    case "openai": {
      const items = Array.isArray(doc) ? doc : [doc];
      return parseOpenAi(
        items.map((value, i) => ({ value, record: Array.isArray(doc) ? `[${i}]` : "file", raw: JSON.stringify(value) })),
        opts,
      );
    }
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
    if (f && Array.isArray(f.messages)) return "openai";
    if (f && "memory" in f) return "mem0";
  }
  throw new ValidationError(
    "The file's format was not recognized: give format (dify-api, mem0 or openai)",
    [{ field: "format", message: "not detected: expected conversations / data (Dify), results or an array with memory (Mem0), messages (OpenAI)" }],
    "unknown_import_format",
  );
}
