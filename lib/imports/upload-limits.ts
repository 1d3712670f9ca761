import { DomainError } from "../errors/domain-errors";

// Every bound an uploaded import file is held to, in one table (README "Import limits" lists
// it). Each is checked while the file is streamed or read, before the bytes it bounds are held;
// over one, the upload answers 413 naming it (`import_limit_exceeded`, details[0].field is the
// limit's name) and nothing is written. A hostile file is small on disk and huge once unpacked
// or read, so the compressed size alone (MAX_UPLOAD_BYTES) bounds nothing.

export type UploadLimit = {
  /** Its name in the 413's details and in the README. */
  name: string;
  value: number;
  /** Its value without an override. */
  fallback: number;
  /** The environment variable that overrides it, if any. */
  env?: string;
  unit: "bytes" | "count" | "ms" | "MB";
  meaning: string;
};

function fromEnv(env: string, fallback: number): number {
  const raw = process.env[env];
  if (raw === undefined || raw.trim() === "") return fallback;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

const MB = 1024 * 1024;

function limit(name: string, fallback: number, unit: UploadLimit["unit"], meaning: string, env?: string): UploadLimit {
  return { name, value: env ? fromEnv(env, fallback) : fallback, fallback, env, unit, meaning };
}

/** Read once at start: an override takes effect on the next start. */
export const LIMITS = {
  compressed: limit("compressed_bytes", 2048 * MB, "bytes", "The uploaded file as sent (a zip: its compressed size).", "MEMSCOPE_IMPORT_MAX_UPLOAD_BYTES"),
  unpacked: limit("unpacked_bytes", 4096 * MB, "bytes", "All bytes read out of a streamed export (ChatGPT's or Claude's conversations.json, bare or unzipped).", "MEMSCOPE_IMPORT_MAX_UNPACKED_BYTES"),
  wholeUnpacked: limit("whole_unpacked_bytes", 128 * MB, "bytes", "All bytes of a file read whole: a zip's entries together (memory folder, AgentScope, Letta), a SQLite database, a JSON or Markdown file.", "MEMSCOPE_IMPORT_MAX_WHOLE_BYTES"),
  entries: limit("entries", 10_000, "count", "Entries of one zip (files and folders).", "MEMSCOPE_IMPORT_MAX_ENTRIES"),
  entry: limit("entry_bytes", 64 * MB, "bytes", "One zip entry, unpacked (a memory file, a session, an .af agent file).", "MEMSCOPE_IMPORT_MAX_ENTRY_BYTES"),
  record: limit("record_bytes", 64 * MB, "bytes", "One record of a streamed export: one conversation of conversations.json, Claude's memories.json.", "MEMSCOPE_IMPORT_MAX_RECORD_BYTES"),
  values: limit("values_per_record", 200_000, "count", "Objects and arrays in one record of a streamed export (what parsing it costs): a ChatGPT conversation of 10 000 nodes holds about 80 000.", "MEMSCOPE_IMPORT_MAX_VALUES"),
  depth: limit("nesting_depth", 256, "count", "Nesting of one JSON record (arrays and objects).", "MEMSCOPE_IMPORT_MAX_DEPTH"),
  records: limit("records", 100_000, "count", "Records of one file read whole (memories, conversations, sessions); a streamed export has no such bound.", "MEMSCOPE_IMPORT_MAX_RECORDS"),
  nodes: limit("nodes_per_conversation", 10_000, "count", "Message nodes of one ChatGPT conversation (its mapping); over it, that conversation is a problem of the job, not imported.", "MEMSCOPE_IMPORT_MAX_NODES"),
  sqliteValue: limit("sqlite_value_bytes", 16 * MB, "bytes", "One value of a SQLite row (message_data), measured with length() before it is read.", "MEMSCOPE_IMPORT_MAX_SQLITE_VALUE_BYTES"),
  sqliteRows: limit("sqlite_rows", 1_000_000, "count", "Rows read from a SQLite database.", "MEMSCOPE_IMPORT_MAX_SQLITE_ROWS"),
  parseTime: limit("parse_ms", 60_000, "ms", "Time the worker that reads a SQLite database, or parses a file read whole (a LangGraph dump; a memory folder, AgentScope or Letta zip; a Letta, Dify API, Mem0 or OpenAI JSON file) or one record of a streamed export whose parse is estimated past 8 MiB (its bytes plus 64 per object or array), may take; it is stopped past it.", "MEMSCOPE_IMPORT_MAX_PARSE_MS"),
  parseMemory: limit("parse_heap_mb", 512, "MB", "Heap of that worker (resourceLimits); it is stopped past it, and a JSON file whose parse is estimated (from its bytes, objects, arrays and values) at more than half of it is refused unparsed.", "MEMSCOPE_IMPORT_MAX_PARSE_HEAP_MB"),
} as const satisfies Record<string, UploadLimit>;

export type LimitKey = keyof typeof LIMITS;

/** The 413 for a file over `key`: the limit's name is the detail's field, its value in the message. */
export class ImportLimitError extends DomainError {
  constructor(key: LimitKey, what: string) {
    const l = LIMITS[key];
    const env = l.env ? ` (${l.env})` : "";
    super("too_large", "import_limit_exceeded", `The import file is over the ${l.name} limit: ${what}`, [
      { field: l.name, message: `limit ${l.value}${l.unit === "count" ? "" : ` ${l.unit}`}${env}: ${what}` },
    ]);
  }
}

/** The table as Markdown rows (the README's table is this, checked by tests/unit/upload-limits.test.ts). */
export function limitsTable(): string {
  const rows = Object.values(LIMITS).map((l) => `| \`${l.name}\` | ${defaultOf(l)} | ${l.env ? `\`${l.env}\`` : "—"} | ${l.meaning} |`);
  return ["| Limit | Default | Override | What it bounds |", "| --- | --- | --- | --- |", ...rows].join("\n");
}

function defaultOf(l: UploadLimit): string {
  const v = l.fallback;
  if (l.unit === "bytes") return v >= MB ? `${v / MB} MiB` : `${v} bytes`;
  if (l.unit === "ms") return `${v / 1000} s`;
  if (l.unit === "MB") return `${v} MB`;
  return v.toLocaleString("en-US");
}
