import zlib from "node:zlib";
import { zipSync, strToU8 } from "fflate";
import initSqlJs from "sql.js";

// Hostile import files, built in memory: small as sent, huge once unpacked or read (issue 37).
// Used by tests/api/hostile-uploads.test.ts and bench/hostile-files.ts. Each answers the file,
// the query to upload it with, and what the server must answer (status, error code, the limit or
// field named in details[0].field).

export type Attack = {
  name: string;
  body: Uint8Array;
  query: Record<string, string>;
  status: number;
  code: string;
  /** details[0].field of the answer: the limit's name, or the field. */
  field: string | RegExp;
};

type RawEntry = { name: string; method: number; data: Buffer; size: number };

/** A zip written by hand, so that an entry may claim any method and carry pre-deflated bytes. No data descriptors; CRC left 0 (the reader never reaches the end of a hostile entry). */
export function rawZip(entries: RawEntry[]): Uint8Array {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, "utf8");
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(0, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(Math.min(e.size, 0xfffffffe), 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(0x0800, 8);
    cd.writeUInt16LE(e.method, 10);
    cd.writeUInt32LE(0, 16);
    cd.writeUInt32LE(e.data.length, 20);
    cd.writeUInt32LE(Math.min(e.size, 0xfffffffe), 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(offset, 42);
    parts.push(local, name, e.data);
    central.push(cd, name);
    offset += local.length + name.length + e.data.length;
  }
  const cdBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cdBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, cdBytes, end]));
}

/**
 * `size` bytes (`head`, then `fill` repeated, then `tail`) as one raw deflate stream, built from
 * one deflated MiB repeated (each part ends on a byte boundary, Z_SYNC_FLUSH, so the parts join
 * into one valid stream): never held unpacked.
 */
export function deflatedRepeat(size: number, fill: string | Buffer = " ", head = "", tail = ""): { data: Buffer; size: number } {
  const block = Buffer.alloc(1024 * 1024, fill);
  const sync = { level: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const chunks: Buffer[] = [zlib.deflateRawSync(Buffer.from(head), sync)];
  const mib = zlib.deflateRawSync(block, sync);
  let left = size - Buffer.byteLength(head) - Buffer.byteLength(tail);
  while (left >= block.length) {
    chunks.push(mib);
    left -= block.length;
  }
  chunks.push(zlib.deflateRawSync(Buffer.concat([block.subarray(0, left), Buffer.from(tail)]), { level: 9 }));
  return { data: Buffer.concat(chunks), size };
}

const MB = 1024 * 1024;

/** A zip whose one entry `name` unpacks to `size` bytes of `fill` between `head` and `tail`. */
export function bombZip(name: string, size: number, fill: string = " ", head = "", tail = "", extra: RawEntry[] = []): Uint8Array {
  const { data } = deflatedRepeat(size, fill, head, tail);
  return rawZip([...extra, { name, method: 8, data, size }]);
}

/** A SQLiteSession database whose messages table is built by `ddl` and filled by `fill`. */
export async function sqliteFile(ddl: string, fill = ""): Promise<Uint8Array> {
  const SQL = await initSqlJs(); // finds its .wasm beside its own script under Node
  const db = new SQL.Database();
  db.exec(ddl);
  if (fill) db.exec(fill);
  const out = (db as unknown as { export(): Uint8Array }).export();
  db.close();
  return out;
}

/** A ChatGPT conversation whose mapping is a chain of `nodes` answer nodes under one question. */
export function chatgptChain(nodes: number): Uint8Array {
  const mapping: Record<string, unknown> = {
    root: { id: "root", message: null, parent: null, children: ["u"] },
    u: { id: "u", parent: "root", children: ["n0"], message: { id: "u", author: { role: "user" }, content: { content_type: "text", parts: ["q"] } } },
  };
  for (let i = 0; i < nodes; i++) {
    mapping[`n${i}`] = { id: `n${i}`, parent: i ? `n${i - 1}` : "u", children: i < nodes - 1 ? [`n${i + 1}`] : [], message: { id: `n${i}`, author: { role: "assistant" }, recipient: "all", content: { content_type: "text", parts: [`a${i}`] } } };
  }
  return strToU8(JSON.stringify([{ id: "hostile-chain", title: "chain", create_time: 1700000000, mapping, current_node: `n${nodes - 1}` }]));
}

/** Every attack of issue 37 part A, at the default limits (upload-limits.ts). */
export async function attacks(): Promise<Attack[]> {
  const list: Attack[] = [];
  // SQLite: a generated id column, hidden from table_info, 100 MB a row when read.
  list.push({
    name: "sqlite: generated id column (100 MB a row)",
    body: await sqliteFile(
      `CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY, created_at TEXT, updated_at TEXT);
       CREATE TABLE agent_messages (rid INTEGER PRIMARY KEY, session_id TEXT, message_data TEXT, created_at TEXT,
         id BLOB GENERATED ALWAYS AS (zeroblob(100000000)) VIRTUAL);`,
      `INSERT INTO agent_sessions VALUES ('s1', '2026-01-01 00:00:00', '2026-01-01 00:00:00');
       ${Array.from({ length: 40 }, (_, i) => `INSERT INTO agent_messages (session_id, message_data) VALUES ('s1', '{"role":"user","content":"m${i}"}');`).join("\n")}`,
    ),
    query: { format: "openai-agents" },
    status: 422,
    code: "invalid_import_file",
    field: "agent_messages.id",
  });
  list.push({
    name: "sqlite: no id column",
    body: await sqliteFile(`CREATE TABLE agent_messages (session_id TEXT, message_data TEXT);`, `INSERT INTO agent_messages VALUES ('s1', '{"role":"user","content":"hi"}');`),
    query: {},
    status: 422,
    code: "invalid_import_file",
    field: "agent_messages.id",
  });
  // A column added to the schema by hand after the rows were written: each row's value is the default, computed when read.
  list.push({
    name: "sqlite: a column default that is an expression",
    body: await sqliteFile(
      `CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id TEXT);`,
      `${Array.from({ length: 40 }, () => `INSERT INTO agent_messages (session_id) VALUES ('s1');`).join("\n")}
       PRAGMA writable_schema = ON;
       UPDATE sqlite_master SET sql = 'CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id TEXT, message_data BLOB DEFAULT (zeroblob(100000000)))' WHERE name = 'agent_messages';`,
    ),
    query: { format: "openai-agents" },
    status: 422,
    code: "invalid_import_file",
    field: "agent_messages.message_data",
  });
  // Zips read whole: one entry of 200 MB of spaces (a few hundred KB sent).
  list.push({ name: "memory-dir zip: one 200 MB entry", body: bombZip("memories/u1/notes.md", 200 * MB, " ", "- "), query: { format: "memory-dir" }, status: 413, code: "import_limit_exceeded", field: "entry_bytes" });
  list.push({ name: "letta zip: a 400 MB .af of {}", body: bombZip("agent.af", 400 * MB, "{}", "[", "{}]"), query: { format: "letta" }, status: 413, code: "import_limit_exceeded", field: "entry_bytes" });
  // Three entries of 50 MB each: each under the entry bound, together over the unpacked bound for a file read whole.
  {
    const e = deflatedRepeat(50 * MB, "- x\n");
    list.push({
      name: "agentscope zip: 3 x 50 MB entries",
      body: rawZip([0, 1, 2].map((i) => ({ name: `memory/2026-01-0${i + 1}.md`, method: 8, data: e.data, size: e.size }))),
      query: { format: "agentscope" },
      status: 413,
      code: "import_limit_exceeded",
      field: "whole_unpacked_bytes",
    });
  }
  {
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i <= 10_000; i++) files[`sessions/s${i}.jsonl`] = strToU8("{}");
    list.push({ name: "agentscope zip: 10 001 sessions", body: zipSync(files, { level: 0 }), query: { format: "agentscope" }, status: 413, code: "import_limit_exceeded", field: "entries" });
  }
  list.push({
    name: "zip: compression method 99",
    body: rawZip([{ name: "memories/u1/a.md", method: 99, data: Buffer.from("- hello"), size: 7 }]),
    query: { format: "memory-dir" },
    status: 422,
    code: "invalid_import_file",
    field: "memories/u1/a.md",
  });
  {
    const lines = Array.from({ length: 1_000_000 }, (_, i) => `- item ${i}`).join("\n");
    const md = Buffer.from(lines);
    list.push({ name: "memory-dir zip: 1 M list items", body: rawZip([{ name: "memories/u1/MEMORY.md", method: 8, data: zlib.deflateRawSync(md, { level: 6 }), size: md.length }]), query: { format: "memory-dir" }, status: 413, code: "import_limit_exceeded", field: "records" });
  }
  // Streamed exports: one conversation of 100 MB (a single string), nesting 10 000 deep.
  list.push({
    name: "chatgpt zip: one 100 MB conversation",
    body: bombZip("conversations.json", 100 * MB, "a", '[{"id":"c","mapping":{},"title":"', '"}]', [{ name: "chat.html", method: 0, data: Buffer.from("<html></html>"), size: 13 }]),
    query: { format: "chatgpt" },
    status: 413,
    code: "import_limit_exceeded",
    field: "record_bytes",
  });
  list.push({ name: "chatgpt json: a conversation of 100 000 nodes", body: chatgptChain(100_000), query: { format: "chatgpt" }, status: 413, code: "import_limit_exceeded", field: "values_per_record" });
  list.push({ name: "claude json: nesting 10 000 deep", body: strToU8(`[${"[".repeat(10_000)}${"]".repeat(10_000)}]`), query: { format: "claude" }, status: 413, code: "import_limit_exceeded", field: "nesting_depth" });
  list.push({
    name: "claude zip: a 100 MB memories.json",
    body: bombZip("memories.json", 100 * MB, " ", "[", "]", [{ name: "conversations.json", method: 0, data: Buffer.from("[]"), size: 2 }, { name: "users.json", method: 0, data: Buffer.from("[]"), size: 2 }]),
    query: { format: "claude" },
    status: 413,
    code: "import_limit_exceeded",
    field: "record_bytes",
  });
  // JSON read whole, parsed in a worker: empty arrays are ~16 times their text once parsed (40 MB: ~10 M arrays, ~500 MB).
  list.push({ name: "letta zip: a 40 MB .af of empty arrays", body: bombZip("agent.af", 40 * MB + 4, "[], ", "[", "[]]"), query: { format: "letta" }, status: 413, code: "import_limit_exceeded", field: "parse_heap_mb" });
  list.push({ name: "dify-api json: 30 MB of empty arrays", body: strToU8(`{"conversations":[${"[], ".repeat(7_500_000)}[]]}`), query: { format: "dify-api" }, status: 413, code: "import_limit_exceeded", field: "parse_heap_mb" });
  list.push({ name: "letta json: nested 300 deep", body: strToU8(`{"agents":[${"[".repeat(300)}${"]".repeat(300)}]}`), query: { format: "letta" }, status: 413, code: "import_limit_exceeded", field: "nesting_depth" });
  return list;
}

/** The streamed export's unpacked bound: `size` bytes of spaces around an empty array (set the server's MEMSCOPE_IMPORT_MAX_UNPACKED_BYTES under it). */
export function spacesExport(size: number): Attack {
  return {
    name: `chatgpt zip: ${Math.round(size / MB)} MB of spaces`,
    body: bombZip("conversations.json", size, " ", "[", "]", [{ name: "chat.html", method: 0, data: Buffer.from("<html></html>"), size: 13 }]),
    query: { format: "chatgpt" },
    status: 413,
    code: "import_limit_exceeded",
    field: "unpacked_bytes",
  };
}

/**
 * Valid uploads that are costly to parse once read whole (issue 37: parsing moved off the request
 * thread): each is imported as a dry run, and what its job counts is given. Sizes stay under the
 * defaults of upload-limits.ts (records, entry_bytes, whole_unpacked_bytes).
 */
export type HeavyImport = { name: string; body: Uint8Array; query: Record<string, string>; counts: { memories: number; conversations: number } };

const PAD = "lorem ipsum dolor sit amet, ".repeat(18); // ~500 characters a record

/** LangGraph's store as pg_dump writes it: one COPY block of `rows` rows (~620 bytes each). */
export function langgraphDump(rows: number): HeavyImport {
  const lines = Array.from({ length: rows }, (_, i) => `memories.user-${i % 50}\tk${i}\t{"content": "fact ${i} ${PAD}"}\t2026-01-01 10:00:00+00\t2026-01-01 10:00:00+00\t\\N\t\\N`);
  const dump = `--\n-- PostgreSQL database dump\n--\n\nCOPY public.store (prefix, key, value, created_at, updated_at, expires_at, ttl_minutes) FROM stdin;\n${lines.join("\n")}\n\\.\n`;
  return { name: `langgraph dump: ${rows} rows`, body: strToU8(dump), query: { format: "langgraph", dry_run: "true" }, counts: { memories: rows, conversations: 0 } };
}

/** A Mem0 export ({results: [...]}) of `n` memories (~640 bytes each). */
export function mem0Export(n: number): HeavyImport {
  const results = Array.from({ length: n }, (_, i) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, memory: `fact ${i} ${PAD}`, user_id: `user-${i % 50}`, metadata: { source: "chat" }, categories: ["travel"], created_at: "2026-01-02T09:00:00.000000-08:00", updated_at: "2026-01-05T10:30:00.000000-08:00" }));
  return { name: `mem0 json: ${n} memories`, body: strToU8(JSON.stringify({ results })), query: { format: "mem0", dry_run: "true" }, counts: { memories: n, conversations: 0 } };
}

/** A zipped memory folder: `files` users' notes.md of `items` list items each (~520 bytes an item). */
export function memoryDirZip(files: number, items: number): HeavyImport {
  const entries: Record<string, Uint8Array> = {};
  for (let f = 0; f < files; f++) entries[`user-${f}/notes.md`] = strToU8(Array.from({ length: items }, (_, i) => `- fact ${f}.${i} ${PAD}`).join("\n"));
  return { name: `memory-dir zip: ${files} x ${items} list items`, body: zipSync(entries, { level: 1 }), query: { format: "memory-dir", dry_run: "true" }, counts: { memories: files * items, conversations: 0 } };
}

/** A zipped AgentScope workspace: `sessions` sessions of `messages` messages (~640 bytes each). */
export function agentscopeZip(sessions: number, messages: number): HeavyImport {
  const entries: Record<string, Uint8Array> = {};
  for (let s = 0; s < sessions; s++) {
    const lines = Array.from({ length: messages }, (_, i) => JSON.stringify({ id: `m${s}-${i}`, name: i % 2 ? "assistant" : "user", role: i % 2 ? "assistant" : "user", content: [{ type: "text", text: `message ${i} ${PAD}` }], metadata: {}, created_at: "2026-01-01T00:00:00Z" }));
    entries[`sessions/s${s}/context.jsonl`] = strToU8(lines.join("\n"));
  }
  return { name: `agentscope zip: ${sessions} sessions of ${messages} messages`, body: zipSync(entries, { level: 1 }), query: { format: "agentscope", dry_run: "true" }, counts: { memories: 0, conversations: sessions } };
}

/** The heavy imports bench:hostile runs, one of each parse moved off the request thread. */
export const heavyImports = (): HeavyImport[] => [langgraphDump(100_000), mem0Export(100_000), memoryDirZip(10, 9_900), agentscopeZip(100, 990)];
