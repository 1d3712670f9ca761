// Worker thread: reads an OpenAI Agents SQLiteSession database for parse-openai-agents.ts, off
// the request thread, under the memory cap and time limit its parent sets (it is terminated past
// them). A plain .mjs read at run time, as token-worker.mjs is: the bundler leaves it alone and it
// resolves sql.js from node_modules.
//
// A SQLite file is a program as much as data: a generated column (hidden from PRAGMA table_info)
// or a column default is evaluated when read, so an 8 KB file can produce 100 MB a row. So the
// columns read are checked first with PRAGMA table_xinfo (no hidden, generated or virtual column,
// no default but a short literal, no virtual table), then each value's length is measured in SQL
// before the value itself is fetched.
import fs from "node:fs";
import { createRequire } from "node:module";
import { parentPort, workerData } from "node:worker_threads";

const initSqlJs = createRequire(import.meta.url)("sql.js");

/** A failure the parent reports as a 422 (`invalid`) or a 413 naming a limit (`limit`). */
class Refusal extends Error {
  constructor(kind, message, detail, limit) {
    super(message);
    this.kind = kind;
    this.detail = detail;
    this.limit = limit;
  }
}

const invalid = (message, detail) => new Refusal("invalid", message, detail);
const q = (t) => `"${String(t).replace(/"/g, '""')}"`;

/** Short identifiers and timestamps: session ids and created_at values are a few dozen bytes. */
const KEY_BYTES = 1024;

function rows(db, sql, params = []) {
  const [r] = db.exec(sql, params);
  if (!r) return [];
  return r.values.map((v) => Object.fromEntries(r.columns.map((c, i) => [c, v[i]])));
}

function columnsOf(db, table) {
  // hidden: 0 a plain column, 1 hidden (a virtual table's), 2 generated virtual, 3 generated stored.
  return rows(db, `PRAGMA table_xinfo(${q(table)})`).map((r) => ({ name: String(r.name), hidden: Number(r.hidden), dflt: r.dflt_value }));
}

/** The columns to be read must be stored as written: not generated, not hidden, no computed default. */
function trusted(table, cols, wanted) {
  for (const name of wanted) {
    const c = cols.find((x) => x.name === name);
    if (!c) continue;
    if (c.hidden !== 0) {
      throw invalid(`Column ${name} of table ${table} is generated or hidden; only stored columns are read`, { field: `${table}.${name}`, message: `a generated or hidden column (table_xinfo hidden=${c.hidden})` });
    }
    const d = c.dflt === null || c.dflt === undefined ? "" : String(c.dflt);
    if (d.length > 64 || /[(]/.test(d)) {
      throw invalid(`Column ${name} of table ${table} has a computed default; only stored values are read`, { field: `${table}.${name}`, message: "a default that is an expression" });
    }
  }
}

function read({ bytes, file, maxValueBytes, maxRows }) {
  const data = bytes ?? new Uint8Array(fs.readFileSync(file));
  return initSqlJs().then((SQL) => {
    let db;
    try {
      db = new SQL.Database(data);
      db.exec("SELECT count(*) FROM sqlite_master");
    } catch (e) {
      throw invalid("The file is not a SQLite database", { field: "body", message: e.message });
    }
    try {
      return readTables(db, maxValueBytes, maxRows);
    } catch (e) {
      if (e instanceof Refusal) throw e;
      // A malformed page, an unknown collation, a schema SQLite refuses: the file, not the server.
      throw invalid("The SQLite database could not be read", { field: "body", message: e.message });
    } finally {
      db.close();
    }
  });
}

function readTables(db, maxValueBytes, maxRows) {
  const tables = rows(db, "SELECT name, sql FROM sqlite_master WHERE type = 'table'").filter((t) => !/^\s*CREATE\s+VIRTUAL\b/i.test(String(t.sql ?? "")));
  const cols = new Map(tables.map((t) => [String(t.name), columnsOf(db, String(t.name))]));
  // Every column, hidden or not: a generated column is found here and refused by trusted(), not skipped.
  const plain = (t) => cols.get(t).map((c) => c.name);
  const names = [...cols.keys()];
  const messages = names.find((t) => ["session_id", "message_data"].every((c) => plain(t).includes(c)));
  if (!messages) {
    throw invalid("No SQLiteSession messages table in this database", { field: "body", message: `a table with session_id and message_data columns (tables: ${names.join(", ") || "none"})` });
  }
  const mcols = plain(messages);
  const hasCreated = mcols.includes("created_at");
  trusted(messages, cols.get(messages), ["id", "session_id", "message_data", ...(hasCreated ? ["created_at"] : [])]);
  if (!mcols.includes("id")) {
    throw invalid(`Table ${messages} has no id column`, { field: `${messages}.id`, message: "missing: SQLiteSession's messages table orders a session's items by its integer id" });
  }
  const sessions = names.find((t) => t !== messages && plain(t).includes("session_id") && !plain(t).includes("message_data"));

  const [{ n }] = rows(db, `SELECT count(*) AS n FROM ${q(messages)}`);
  if (Number(n) > maxRows) throw new Refusal("limit", `${n} rows in ${messages}`, null, "sqliteRows");

  const meta = [];
  if (sessions) {
    const scols = plain(sessions);
    const want = ["session_id", ...["created_at", "updated_at"].filter((c) => scols.includes(c))];
    trusted(sessions, cols.get(sessions), want);
    const [{ m }] = rows(db, `SELECT count(*) AS m FROM ${q(sessions)}`);
    if (Number(m) > maxRows) throw new Refusal("limit", `${m} rows in ${sessions}`, null, "sqliteRows");
    // Each value's length first; a value is fetched only when it is short (a key, a timestamp).
    const short = (c) => (scols.includes(c) ? `CASE WHEN length(CAST(${q(c)} AS BLOB)) <= ${KEY_BYTES} THEN CAST(${q(c)} AS TEXT) END` : "NULL");
    const stmt = db.prepare(`SELECT length(CAST(session_id AS BLOB)) AS len, ${short("session_id")} AS session_id, ${short("created_at")} AS created_at, ${short("updated_at")} AS updated_at FROM ${q(sessions)}`);
    try {
      while (stmt.step()) {
        const r = stmt.getAsObject();
        if (Number(r.len) > KEY_BYTES) throw invalid(`A session_id of ${sessions} is over ${KEY_BYTES} bytes`, { field: `${sessions}.session_id`, message: `${r.len} bytes` });
        meta.push({ session_id: r.session_id, created_at: r.created_at, updated_at: r.updated_at });
      }
    } finally {
      stmt.free();
    }
  }

  // Sizes first, in a pass that fetches no value: a message over the cap is refused before any is held.
  const sizes = db.prepare(
    `SELECT id, typeof(id) AS id_type, length(CAST(session_id AS BLOB)) AS key_len, length(CAST(message_data AS BLOB)) AS data_len${hasCreated ? ", length(CAST(created_at AS BLOB)) AS time_len" : ""} FROM ${q(messages)}`,
  );
  try {
    while (sizes.step()) {
      const r = sizes.getAsObject();
      if (r.id_type !== "integer") throw invalid(`A row of ${messages} has an id that is not an integer`, { field: `${messages}.id`, message: `${r.id_type}` });
      if (Number(r.key_len) > KEY_BYTES) throw invalid(`Row ${r.id} of ${messages}: session_id is over ${KEY_BYTES} bytes`, { field: `${messages}.session_id`, message: `${r.key_len} bytes` });
      if (Number(r.time_len ?? 0) > KEY_BYTES) throw invalid(`Row ${r.id} of ${messages}: created_at is over ${KEY_BYTES} bytes`, { field: `${messages}.created_at`, message: `${r.time_len} bytes` });
      if (Number(r.data_len ?? 0) > maxValueBytes) throw new Refusal("limit", `row ${r.id} of ${messages}: message_data is ${r.data_len} bytes`, null, "sqliteValue");
    }
  } finally {
    sizes.free();
  }
  const out = [];
  const stmt = db.prepare(`SELECT id, CAST(session_id AS TEXT) AS session_id, CAST(message_data AS TEXT) AS message_data${hasCreated ? ", created_at" : ""} FROM ${q(messages)} ORDER BY session_id, id`);
  try {
    while (stmt.step()) {
      const r = stmt.getAsObject();
      out.push({ id: r.id, session_id: r.session_id, message_data: r.message_data, created_at: hasCreated ? r.created_at : null });
    }
  } finally {
    stmt.free();
  }
  return { messages: out, sessions: meta, sessionsTable: sessions ?? null };
}

/**
 * Rows are posted back in groups of at most GROUP_ROWS rows or about GROUP_BYTES of text, the next
 * group when the parent asks: deserialising one posted value is one uninterrupted task of the
 * parent's thread, and all rows at once took it 1 s for 100 000 short rows and 46 s for 1 000 000
 * under load (docs/benchmarks.md section 35).
 */
const GROUP_ROWS = 2000;
const GROUP_BYTES = 1024 * 1024;

function* groups(messages) {
  let start = 0;
  while (start < messages.length) {
    let end = start;
    let bytes = 0;
    while (end < messages.length && end - start < GROUP_ROWS && bytes < GROUP_BYTES) bytes += String(messages[end++].message_data ?? "").length;
    const rows = messages.slice(start, end);
    messages.fill(null, start, end); // sent: its memory can go
    start = end;
    yield rows;
  }
}

read(workerData).then(
  (result) => {
    const { messages, ...rest } = result;
    const next = groups(messages);
    parentPort.on("message", () => {
      const step = next.next();
      parentPort.postMessage(step.done ? { type: "end" } : { type: "rows", rows: step.value });
    });
    parentPort.postMessage({ ok: true, type: "shell", result: { ...rest, messages: [] } });
  },
  (e) => parentPort.postMessage({ ok: false, kind: e instanceof Refusal ? e.kind : "invalid", message: e.message, detail: e.detail ?? { field: "body", message: e.message }, limit: e.limit ?? null }),
);
