import { isObj, optTime, RecordProblem, typeName } from "./field-readers";
import type { ImportMemory, ImportProblem, ParsedImport } from "./types";

// LangGraph's long-term memory store on PostgreSQL (langchain-ai/langgraph,
// libs/checkpoint-postgres/langgraph/store/postgres/base.py): table `store` (prefix text =
// the namespace tuple joined by ".", key text, value jsonb, created_at, updated_at,
// expires_at, ttl_minutes). Rows come from the database itself (read only, langgraph-db.ts)
// or from its SQL dump (pg_dump's COPY block). Each row is one memory; a row past its
// expires_at is not imported (the store's own reads omit it too).
//
// Namespaces map to users: the segment at `user_segment` (default -1: the last, as in
// LangMem's ("memories", "{user_id}")). LangMem's values: {"content": "..."} (its
// manage_memory tool) and {"kind": "<schema>", "content": {...}} (its memory manager; the
// default schema "Memory" has content.content). Other values are kept as JSON text.

export type StoreRow = { prefix: string; key: string; value: unknown; created_at?: string | null; updated_at?: string | null; expires_at?: string | null; record: string };
export type LangGraphOptions = { app_id?: string; user_segment?: number; now?: Date };

export function langgraphMemories(rows: StoreRow[], opts: LangGraphOptions = {}, problems: ImportProblem[] = []): ParsedImport {
  const out: ParsedImport = { format: "langgraph", source: "langgraph", conversations: [], memories: [], problems, skipped: 0 };
  const now = (opts.now ?? new Date()).toISOString();
  const seg = opts.user_segment ?? -1;
  for (const r of rows) {
    try {
      const expires = r.expires_at ? optTime({ t: pgTime(r.expires_at) }, "t", "expires_at") : undefined;
      if (expires && expires <= now) {
        out.skipped!++;
        continue;
      }
      const ns = r.prefix.split(".");
      const user = ns.at(seg);
      if (!user) throw new RecordProblem("prefix", `namespace ${JSON.stringify(r.prefix)} has no segment ${seg} (the user)`);
      const value = typeof r.value === "string" ? parseJson(r.value) : r.value;
      const { content, kind } = contentOf(value);
      if (!content.trim()) {
        out.skipped!++;
        continue;
      }
      out.memories.push({
        // (PostgreSQL text cannot hold NUL: the pair as JSON keeps prefix and key apart.)
        externalId: JSON.stringify([r.prefix, r.key]),
        record: r.record,
        user_id: user.slice(0, 200),
        app_id: opts.app_id ?? "langgraph",
        memory_type: "fact",
        content: content.slice(0, 10_000),
        structured_data: { source: "langgraph", kind, namespace: ns, key: r.key, ...(isObj(value) && kind !== "content" ? { value } : {}) },
        status: "active",
        created_at: r.created_at ? optTime({ t: pgTime(r.created_at) }, "t", "created_at") : undefined,
        updated_at: r.updated_at ? optTime({ t: pgTime(r.updated_at) }, "t", "updated_at") : undefined,
        history: [],
      } satisfies ImportMemory);
    } catch (e) {
      out.problems.push({ record: r.record, field: e instanceof RecordProblem ? e.field : undefined, message: (e as Error).message });
    }
  }
  return out;
}

/** PostgreSQL's timestamptz text ("2026-01-01 10:00:00.5+00") as ISO 8601. */
const pgTime = (s: string) => s.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00");

function parseJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    throw new RecordProblem("value", "not JSON");
  }
}

/** The memory's text: LangMem's content (a string, or a schema's fields), else the value as JSON. */
function contentOf(v: unknown): { content: string; kind: string } {
  if (!isObj(v)) throw new RecordProblem("value", `must be a JSON object, got ${typeName(v)}`);
  if (typeof v.content === "string") return { content: v.content, kind: "content" };
  if (typeof v.kind === "string" && (v.content === undefined || v.content === null || v.content === "")) {
    throw new RecordProblem("value.content", `a ${JSON.stringify(v.kind)} memory with no content (LangMem's memory manager writes {"kind", "content"})`);
  }
  if (typeof v.kind === "string" && isObj(v.content)) {
    const c = v.content;
    if (typeof c.content === "string") return { content: c.content, kind: v.kind };
    return { content: JSON.stringify(c), kind: v.kind };
  }
  for (const k of ["text", "memory", "value"]) if (typeof v[k] === "string") return { content: v[k] as string, kind: k };
  return { content: JSON.stringify(v), kind: "json" };
}

/**
 * The store table's rows from a pg_dump SQL file, in each of its data forms: the default
 * `COPY <schema>.store (...) FROM stdin;` block (tab-separated, \N for null, backslash
 * escapes, ended by "\."), and `--inserts` / `--column-inserts` / `--rows-per-insert`
 * statements (`INSERT INTO <schema>.store [(columns)] VALUES (...)[, (...)];`, standard
 * strings with '' for a quote; without a column list the columns are the dump's CREATE TABLE
 * order). `table` names the store table when it is not `store`.
 */
export function storeRowsFromDump(text: string, table = "store"): { rows: StoreRow[]; problems: ImportProblem[] } {
  const rows: StoreRow[] = [];
  const problems: ImportProblem[] = [];
  const name = `(?:"?[\\w]+"?\\.)?"?${table}"?`;
  const lineAt = lineIndex(text);
  const row = (o: Record<string, string | null>, line: number) => {
    for (const need of ["prefix", "key", "value"]) {
      if (o[need] === undefined || o[need] === null) {
        problems.push({ record: `line ${line}`, field: need, message: `no ${need} (the store table's columns are prefix, key, value, ...)` });
        return;
      }
    }
    rows.push({ prefix: o.prefix!, key: o.key!, value: o.value, created_at: o.created_at, updated_at: o.updated_at, expires_at: o.expires_at, record: `line ${line} (${o.prefix}/${o.key})` });
  };
  let found = false;
  // COPY blocks
  const lines = text.split("\n");
  const head = new RegExp(`^COPY\\s+${name}\\s*\\(([^)]*)\\)\\s+FROM\\s+stdin;`, "i");
  for (let i = 0; i < lines.length; i++) {
    const m = head.exec(lines[i]);
    if (!m) continue;
    found = true;
    const cols = columnsOf(m[1]);
    for (let j = i + 1; j < lines.length && lines[j] !== "\\."; j++) {
      if (!lines[j]) continue;
      const cells = lines[j].split("\t").map(unescapeCopy);
      if (cells.length !== cols.length) {
        problems.push({ record: `line ${j + 1}`, message: `${cells.length} values for ${cols.length} columns` });
        continue;
      }
      row(Object.fromEntries(cols.map((c, k) => [c, cells[k]])), j + 1);
    }
  }
  // INSERT statements (pg_dump --inserts, --column-inserts)
  const insert = new RegExp(`^INSERT\\s+INTO\\s+${name}\\s*(?:\\(([^)]*)\\)\\s*)?VALUES\\s*`, "gim");
  let tableCols: string[] | null | undefined;
  for (let m = insert.exec(text); m; m = insert.exec(text)) {
    found = true;
    let cols = m[1] ? columnsOf(m[1]) : null;
    if (!cols) {
      tableCols ??= createTableColumns(text, name);
      cols = tableCols;
    }
    const at = lineAt(m.index);
    if (!cols) {
      problems.push({ record: `line ${at}`, message: `an INSERT without a column list and no CREATE TABLE of ${table} in the file: dump with --column-inserts` });
      continue;
    }
    const parsed = insertTuples(text, insert.lastIndex);
    insert.lastIndex = parsed.end;
    if (parsed.error) {
      problems.push({ record: `line ${lineAt(parsed.errorAt ?? m.index)}`, message: parsed.error });
      continue;
    }
    for (const t of parsed.tuples) {
      if (t.values.length !== cols.length) {
        problems.push({ record: `line ${lineAt(t.at)}`, message: `${t.values.length} values for ${cols.length} columns` });
        continue;
      }
      row(Object.fromEntries(cols.map((c, k) => [c, t.values[k]])), lineAt(t.at));
    }
  }
  if (!found) problems.push({ record: "file", message: `no COPY block and no INSERT INTO of the ${table} table (pg_dump's default, --inserts or --column-inserts)` });
  return { rows, problems };
}

const columnsOf = (list: string) => list.split(",").map((c) => c.trim().replace(/^"|"$/g, ""));

/** The columns of `CREATE TABLE <name> (...)` in the dump, in order (constraints left out). */
function createTableColumns(text: string, name: string): string[] | null {
  const m = new RegExp(`^CREATE\\s+(?:UNLOGGED\\s+)?TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?${name}\\s*\\(([\\s\\S]*?)\\n\\);`, "im").exec(text);
  if (!m) return null;
  return m[1]
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("--") && !/^(CONSTRAINT|PRIMARY|UNIQUE|CHECK|FOREIGN|EXCLUDE)\b/i.test(l))
    .map((l) => /^("(?:[^"]|"")+"|[^\s]+)/.exec(l)![1].replace(/^"|"$/g, ""));
}

type Tuple = { values: (string | null)[]; at: number };

/** The `(...), (...);` after VALUES: SQL literals as text (NULL as null), strings with '' and E'' escapes. */
function insertTuples(text: string, from: number): { tuples: Tuple[]; end: number; error?: string; errorAt?: number } {
  const tuples: Tuple[] = [];
  let i = from;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  for (;;) {
    ws();
    if (text[i] !== "(") return { tuples, end: i, error: "an INSERT's VALUES is not a list of rows in parentheses", errorAt: i };
    const at = i;
    i++;
    const values: (string | null)[] = [];
    for (;;) {
      ws();
      const c = text[i];
      if (c === "'" || ((c === "E" || c === "e") && text[i + 1] === "'")) {
        const escapes = c !== "'";
        i += escapes ? 2 : 1;
        let v = "";
        for (;;) {
          if (i >= text.length) return { tuples, end: i, error: "a string literal that does not end", errorAt: at };
          const ch = text[i];
          if (ch === "'" && text[i + 1] === "'") {
            v += "'";
            i += 2;
          } else if (ch === "'") {
            i++;
            break;
          } else if (escapes && ch === "\\") {
            const n = text[i + 1];
            v += ({ n: "\n", t: "\t", r: "\r", b: "\b", f: "\f" } as Record<string, string>)[n] ?? n;
            i += 2;
          } else {
            v += ch;
            i++;
          }
        }
        // A cast pg_dump may add ('...'::jsonb)
        const cast = /^::[\w ]+/.exec(text.slice(i, i + 64));
        if (cast) i += cast[0].length;
        values.push(v);
      } else {
        const m = /^(NULL|true|false|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)/i.exec(text.slice(i, i + 64));
        if (!m) return { tuples, end: i, error: `an INSERT value that is not a literal: ${JSON.stringify(text.slice(i, i + 20))}`, errorAt: i };
        values.push(m[1].toUpperCase() === "NULL" ? null : m[1]);
        i += m[1].length;
      }
      ws();
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === ")") {
        i++;
        break;
      }
      return { tuples, end: i, error: "an INSERT row that does not close", errorAt: at };
    }
    tuples.push({ values, at });
    ws();
    if (text[i] === ",") {
      i++;
      continue;
    }
    if (text[i] === ";") return { tuples, end: i + 1 };
    return { tuples, end: i, error: "an INSERT that does not end with ;", errorAt: at };
  }
}

/** Offset to 1-based line number, by binary search over the newline offsets. */
function lineIndex(text: string): (offset: number) => number {
  const nl: number[] = [];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) nl.push(i);
  return (offset) => {
    let lo = 0;
    let hi = nl.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (nl[mid] < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
}

function unescapeCopy(cell: string): string | null {
  if (cell === "\\N") return null;
  return cell.replace(/\\(.)/g, (_, c: string) => ({ n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", "\\": "\\" })[c] ?? c);
}
