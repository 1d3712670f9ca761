import "server-only";
import { dateTimeProblem, INT32_MAX } from "../http/scalars";
import { userIdProblem } from "../http/user-id";
import type { ProjectSql } from "../db/project-sql";
import { ConflictError, ValidationError } from "../errors/domain-errors";
import { EXPORT_FORMAT, IMPORTABLE_VERSIONS } from "./export-user";
import { IMPORT_ORDER } from "./user-tables";

// Writes an export (lib/privacy/export-user.ts) back into a project: the same rows, ids and
// times, in one transaction (all or nothing). Columns are matched by name against the
// table as it is now, so a document from an older version imports with defaults for columns
// added since; a column the table does not have is refused. Every value is checked against
// its column's type before any row is written (a date strictly as RFC 3339, an integer within
// its column's range, text as a string), and every row must belong to the document's user:
// its user columns name that user, its conversation and memory references point at the
// document's own conversations and memories. A refusal is a 422 naming the row and field.

export type ImportCounts = Record<string, number>;

type Doc = { format: string; version: number; user_id: string; tables: Record<string, Record<string, unknown>[]> };

export async function importUser(sql: ProjectSql, given: Doc): Promise<ImportCounts> {
  let doc = given;
  if (doc.format !== EXPORT_FORMAT || !(IMPORTABLE_VERSIONS as readonly number[]).includes(doc.version)) {
    const versions = IMPORTABLE_VERSIONS.join(" or ");
    throw new ValidationError(`Not a ${EXPORT_FORMAT} document of version ${versions}`, [{ field: "format", message: `expected ${EXPORT_FORMAT} v${versions}` }]);
  }
  const unknown = Object.keys(doc.tables).filter((t) => !(IMPORT_ORDER as readonly string[]).includes(t));
  if (unknown.length) throw new ValidationError("Unknown tables in the document", unknown.map((t) => ({ field: `tables.${t}`, message: "not a table of a user export" })));
  const userProblem = userIdProblem(doc.user_id);
  if (userProblem) throw new ValidationError(`user_id ${userProblem}`, [{ field: "user_id", message: userProblem }]);
  doc = spanColumnsOnTurns(doc);
  return sql.transaction(async (tx) => {
    const types = await columnTypes(tx);
    checkRows(doc, types);
    const counts: ImportCounts = {};
    for (const table of IMPORT_ORDER) {
      const rows = doc.tables[table] ?? [];
      counts[table] = rows.length;
      if (!rows.length) continue;
      const given = new Set(rows.flatMap((r) => Object.keys(r)));
      const list = [...given].map((c) => `"${c}"`).join(", ");
      try {
        // In slices: one statement's parameters stay a bounded JSON text.
        for (let i = 0; i < rows.length; i += 5000) {
          await tx.query(
            `INSERT INTO ${table} (project_id, ${list}) SELECT $1, ${list} FROM jsonb_populate_recordset(NULL::${table}, $2::jsonb)`,
            [tx.projectId, JSON.stringify(rows.slice(i, i + 5000))],
          );
        }
      } catch (e) {
        if ((e as { code?: string }).code === "23505") {
          throw new ConflictError(`A row of ${table} in the document already exists in this project`, [{ field: `tables.${table}`, message: "id already taken" }]);
        }
        // Integrity (23...) and data (22...: a value its type cannot hold) errors the checks above did not foresee.
        const code = (e as { code?: string }).code ?? "";
        if (code.startsWith("23") || code.startsWith("22")) {
          throw new ValidationError(`The rows of ${table} cannot be stored: ${(e as Error).message}`, [{ field: `tables.${table}`, message: (e as Error).message }]);
        }
        throw e;
      }
    }
    return counts;
  });
}

type ColumnTypes = Map<string, Map<string, string>>;

/** Each importable table's columns (not generated, not project_id) and their types. */
async function columnTypes(tx: Pick<ProjectSql, "query">): Promise<ColumnTypes> {
  const cols = await tx.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT table_name, column_name, data_type FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ANY($1::text[]) AND is_generated = 'NEVER' AND column_name <> 'project_id'`,
    [[...IMPORT_ORDER]],
  );
  const out: ColumnTypes = new Map();
  for (const c of cols) {
    if (!out.has(c.table_name)) out.set(c.table_name, new Map());
    out.get(c.table_name)!.set(c.column_name, c.data_type);
  }
  return out;
}

const RANGES: Record<string, [number, number]> = {
  smallint: [-32_768, 32_767],
  integer: [-INT32_MAX - 1, INT32_MAX],
  bigint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/** Why a JSON value cannot be stored in a column of PostgreSQL type `type`, or null. */
function valueProblem(v: unknown, type: string): string | null {
  if (v === null) return null;
  if (RANGES[type]) {
    const [lo, hi] = RANGES[type];
    return typeof v === "number" && Number.isInteger(v) && v >= lo && v <= hi ? null : `must be an integer from ${lo} to ${hi} (${type})`;
  }
  if (type === "real" || type === "double precision" || type === "numeric") return typeof v === "number" && Number.isFinite(v) ? null : `must be a number (${type})`;
  if (type === "boolean") return typeof v === "boolean" ? null : "must be true or false";
  if (type === "timestamp with time zone") return typeof v === "string" ? dateTimeProblem(v) : "must be an RFC 3339 date-time string";
  if (type === "text" || type === "character varying" || type === "uuid" || type === "character") return typeof v === "string" ? null : `must be a string (${type})`;
  return null;
}

/** Columns captured_spans had until migration 20261129210000_captured_span_compact, now its turn's metadata.otlp. */
const SPAN_COLUMNS_ON_TURN = ["trace_id", "span_id", "operation", "provider", "request_model", "response_model"];

/**
 * A document exported before that migration: each captured span's trace and span ids,
 * operation, provider and models go onto its turn's metadata.otlp (where the migration put
 * them; the span's values win), and off the span. A span whose turn is not in the document
 * keeps them (and is refused by the turn reference). The document itself is not changed.
 */
function spanColumnsOnTurns(doc: Doc): Doc {
  const spans = doc.tables.captured_spans;
  if (!Array.isArray(spans) || !spans.some((r) => r && SPAN_COLUMNS_ON_TURN.some((c) => c in r))) return doc;
  const turns = new Map((doc.tables.messages ?? []).map((m, i) => [m?.id, i]));
  const messages = [...(doc.tables.messages ?? [])];
  const moved = spans.map((r) => {
    const i = r && typeof r === "object" ? turns.get(r.message_id) : undefined;
    if (i === undefined) return r;
    const rest: Record<string, unknown> = {};
    const otlp: Record<string, unknown> = {};
    for (const [c, v] of Object.entries(r)) {
      if (SPAN_COLUMNS_ON_TURN.includes(c)) {
        if (v !== null && v !== undefined) otlp[c] = v;
      } else rest[c] = v;
    }
    const m = messages[i];
    const meta = m.metadata && typeof m.metadata === "object" && !Array.isArray(m.metadata) ? (m.metadata as Record<string, unknown>) : {};
    const had = meta.otlp && typeof meta.otlp === "object" && !Array.isArray(meta.otlp) ? (meta.otlp as Record<string, unknown>) : {};
    messages[i] = { ...m, metadata: { ...meta, otlp: { ...had, ...otlp } } };
    return rest;
  });
  return { ...doc, tables: { ...doc.tables, messages, captured_spans: moved } };
}

/** The user columns, and the references that must stay within the document's own rows. */
const USER_COLUMNS = new Set(["user_id", "end_user_id"]);
/** Per table, a column that points at the document's own rows: the export selects these rows through it (lib/privacy/user-tables.ts). */
const OWN_REFS: Record<string, [column: string, table: "conversations" | "messages" | "memories"]> = {
  messages: ["conversation_id", "conversations"],
  message_files: ["message_id", "messages"],
  captured_spans: ["conversation_id", "conversations"],
  captured_messages: ["conversation_id", "conversations"],
  node_memories: ["conversation_id", "conversations"],
  memory_embeddings: ["memory_id", "memories"],
  incidents: ["message_id", "messages"],
};

function checkRows(doc: Doc, types: ColumnTypes) {
  const own: Record<string, Set<unknown>> = Object.fromEntries(["conversations", "messages", "memories"].map((t) => [t, new Set((doc.tables[t] ?? []).map((r) => r.id))]));
  for (const table of IMPORT_ORDER) {
    const cols = types.get(table) ?? new Map<string, string>();
    (doc.tables[table] ?? []).forEach((row, i) => {
      const at = (c: string) => `tables.${table}[${i}].${c}`;
      for (const [c, v] of Object.entries(row)) {
        const type = cols.get(c);
        if (type === undefined) throw new ValidationError(`Column ${c} is not one of ${table}`, [{ field: `tables.${table}.${c}`, message: "unknown column" }]);
        const why = valueProblem(v, type);
        if (why) throw new ValidationError(`${at(c)} ${why}`, [{ field: at(c), message: why }]);
        if (USER_COLUMNS.has(c) && v !== null && v !== doc.user_id) {
          throw new ValidationError(`${at(c)} names another user than the document's user_id`, [{ field: at(c), message: `must be ${JSON.stringify(doc.user_id)} (the document's user_id)` }]);
        }
        const ref = OWN_REFS[table]?.[0] === c ? OWN_REFS[table][1] : null;
        if (ref && v !== null && !own[ref].has(v)) {
          throw new ValidationError(`${at(c)} points at a row that is not in the document`, [{ field: at(c), message: `not one of the document's ${ref}` }]);
        }
      }
      // The user's own rows name the user: a conversation without it, or a memory, would be someone else's.
      if ((table === "conversations" && row.end_user_id !== doc.user_id) || (table === "memories" && row.user_id !== doc.user_id)) {
        const c = table === "conversations" ? "end_user_id" : "user_id";
        throw new ValidationError(`${at(c)} is not the document's user_id`, [{ field: at(c), message: `must be ${JSON.stringify(doc.user_id)} (the document's user_id)` }]);
      }
    });
  }
}
