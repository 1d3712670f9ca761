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
  if (typeof v.kind === "string" && isObj(v.content)) {
    const c = v.content;
    if (typeof c.content === "string") return { content: c.content, kind: v.kind };
    return { content: JSON.stringify(c), kind: v.kind };
  }
  for (const k of ["text", "memory", "value"]) if (typeof v[k] === "string") return { content: v[k] as string, kind: k };
  return { content: JSON.stringify(v), kind: "json" };
}

/**
 * The store table's rows from a pg_dump SQL file: the `COPY <schema>.store (...) FROM stdin;`
 * block (tab-separated, \N for null, backslash escapes, ended by "\."). `table` names the
 * store table when it is not `store`.
 */
export function storeRowsFromDump(text: string, table = "store"): { rows: StoreRow[]; problems: ImportProblem[] } {
  const lines = text.split("\n");
  const rows: StoreRow[] = [];
  const problems: ImportProblem[] = [];
  const head = new RegExp(`^COPY\\s+(?:"?[\\w]+"?\\.)?"?${table}"?\\s*\\(([^)]*)\\)\\s+FROM\\s+stdin;`, "i");
  let found = false;
  for (let i = 0; i < lines.length; i++) {
    const m = head.exec(lines[i]);
    if (!m) continue;
    found = true;
    const cols = m[1].split(",").map((c) => c.trim().replace(/^"|"$/g, ""));
    for (const need of ["prefix", "key", "value"]) if (!cols.includes(need)) problems.push({ record: `line ${i + 1}`, field: need, message: `the COPY block has no ${need} column` });
    for (let j = i + 1; j < lines.length && lines[j] !== "\\."; j++) {
      if (!lines[j]) continue;
      const cells = lines[j].split("\t").map(unescapeCopy);
      if (cells.length !== cols.length) {
        problems.push({ record: `line ${j + 1}`, message: `${cells.length} values for ${cols.length} columns` });
        continue;
      }
      const o = Object.fromEntries(cols.map((c, k) => [c, cells[k]]));
      rows.push({ prefix: o.prefix ?? "", key: o.key ?? "", value: o.value, created_at: o.created_at, updated_at: o.updated_at, expires_at: o.expires_at, record: `line ${j + 1} (${o.prefix}/${o.key})` });
    }
  }
  if (!found) problems.push({ record: "file", message: `no COPY block of the ${table} table (pg_dump's default format)` });
  return { rows, problems };
}

function unescapeCopy(cell: string): string | null {
  if (cell === "\\N") return null;
  return cell.replace(/\\(.)/g, (_, c: string) => ({ n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", "\\": "\\" })[c] ?? c);
}
