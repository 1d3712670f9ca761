import { get_encoding } from "tiktoken";
import { DEFAULT_PROJECT_ID, projectSql, type ProjectSql } from "@/lib/db/project-sql";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  appendMessages,
  buildTurnMessages,
  documentTokens,
  documentTurns,
  duplicateIds,
  emptyDocument,
  nodeThread,
  nodeWindow,
  parseDocument,
} from "@/lib/node-memory/document";
import { addNodeTurn, backoffMs, MAX_NODE_MESSAGES, MAX_WRITE_ATTEMPTS } from "@/lib/node-memory/store";
import { openDatabase, type Database } from "@/lib/db/open-database";
import { removeDir } from "../helpers/temp-dir";
import { freshDataDir } from "../helpers/fresh-data-dir";
import type { SqlRunner } from "@/lib/db/migrations";
import { ZAddTurnInput, ZNodeHistoryQuery, ZNodeId, ZNodeMemoryDocument, type NodeMemoryDocument } from "@/lib/node-memory/schemas";
import { UUID_NIL } from "@/lib/threads/uuid-nil";
import { resolveTokenizer } from "@/lib/tokens/registry";
import { LOADED_MACHINE_TIMEOUT_MS } from "../helpers/loaded-machine";

const o200k = get_encoding("o200k_base");
const cl100k = get_encoding("cl100k_base");
afterAll(() => {
  o200k.free();
  cl100k.free();
});

const T0 = "2026-01-07T10:00:00.000Z";

/** Appends a turn the way the store does: parent omitted = the newest turn. */
function add(doc: NodeMemoryDocument, id: string, parent?: string | null, user = `question ${id}`, answer = `answer ${id}`): NodeMemoryDocument {
  const resolved = parent === undefined ? (documentTurns(doc).at(-1)?.id ?? null) : parent;
  const input = ZAddTurnInput.parse({ message_id: id, parent_message_id: parent, user_content: user, assistant_content: answer });
  return appendMessages(doc, buildTurnMessages(input, `${id}-a`, resolved, T0));
}

const linear = (n: number) => {
  let doc = emptyDocument();
  for (let i = 1; i <= n; i++) doc = add(doc, `m${i}`);
  return doc;
};

describe("node memory document (format version 1)", () => {
  it("matches the seed's shape: a turn is a user message and an assistant message whose parent is the user message", () => {
    const input = ZAddTurnInput.parse({
      message_id: "msg-001",
      parent_message_id: null,
      user_content: "Analyze this image",
      user_files: [{ type: "image", transfer_method: "local_file", upload_file_id: "file-uuid-123" }],
      assistant_content: "This is a landscape image...",
    });
    const doc = appendMessages(emptyDocument(), buildTurnMessages(input, "msg-002", null, T0));
    expect(doc).toEqual({
      version: 1,
      messages: [
        {
          message_id: "msg-001",
          parent_message_id: null,
          role: "user",
          content: "Analyze this image",
          files: [{ type: "image", transfer_method: "local_file", upload_file_id: "file-uuid-123", tool_file_id: null, url: null, belongs_to: "user" }],
          token_count: o200k.encode("Analyze this image").length + 85,
          created_at: T0,
        },
        {
          message_id: "msg-002",
          parent_message_id: "msg-001",
          role: "assistant",
          content: "This is a landscape image...",
          files: [],
          token_count: o200k.encode("This is a landscape image...").length,
          created_at: T0,
        },
      ],
    });
    expect(ZNodeMemoryDocument.parse(JSON.parse(JSON.stringify(doc)))).toEqual(doc);
    expect(documentTokens(doc)).toBe(doc.messages[0].token_count + doc.messages[1].token_count);
  });

  it("parses stored documents (object or JSON text) and refuses another format version", () => {
    const doc = linear(2);
    expect(parseDocument(JSON.stringify(doc))).toEqual(doc);
    expect(parseDocument(doc)).toEqual(doc);
    expect(() => parseDocument({ version: 2, messages: [] })).toThrow(/version 2/);
    expect(() => parseDocument({ messages: [] })).toThrow(/Unsupported/);
  });

  it("reports ids already present (either message of a turn)", () => {
    const doc = linear(2);
    expect(duplicateIds(doc, ["m1", "x"])).toEqual(["m1"]);
    expect(duplicateIds(doc, ["y", "m2-a"])).toEqual(["m2-a"]);
    expect(duplicateIds(doc, ["new", "new-a"])).toEqual([]);
  });

  it("groups messages into turns and maps a parent naming an assistant message to its turn", () => {
    let doc = linear(2);
    doc = add(doc, "m3", "m2-a");
    const turns = documentTurns(doc);
    expect(turns.map((t) => [t.id, t.parentMessageId, t.assistant?.message_id])).toEqual([
      ["m1", null, "m1-a"],
      ["m2", "m1", "m2-a"],
      ["m3", "m2", "m3-a"],
    ]);
    // Stored as given.
    expect(doc.messages[4].parent_message_id).toBe("m2-a");
  });

  it("validates input: node ids, distinct assistant id, parent '' = null", () => {
    expect(ZNodeId.safeParse("llm_1:answer-v2.0").success).toBe(true);
    expect(ZNodeId.safeParse("").success).toBe(false);
    expect(ZNodeId.safeParse("a/b").success).toBe(false);
    expect(ZNodeId.safeParse("x".repeat(201)).success).toBe(false);
    const same = ZAddTurnInput.safeParse({ message_id: "a", assistant_message_id: "a", user_content: "", assistant_content: "" });
    expect(same.success).toBe(false);
    expect(same.error?.issues[0].path).toEqual(["assistant_message_id"]);
    expect(ZAddTurnInput.parse({ message_id: "a", parent_message_id: "", user_content: "", assistant_content: "" }).parent_message_id).toBeNull();
    expect(ZNodeHistoryQuery.parse({}).max_token_limit).toBe(2000);
  });
});

describe("node thread (Dify extract_thread_messages over the node's turns)", () => {
  // m1 <- m2 <- m3, and m4 regenerated from m2 (a sibling of m3), then m5 under m4.
  let doc = linear(3);
  doc = add(doc, "m4", "m2");
  doc = add(doc, "m5");
  const turns = documentTurns(doc);
  const ids = (t: { id: string }[] | null) => t?.map((x) => x.id) ?? null;

  it("without current_message_id walks from the newest turn", () => {
    expect(ids(nodeThread(turns, undefined))).toEqual(["m5", "m4", "m2", "m1"]);
  });

  it("from a turn of the node (user or assistant id): that turn and its ancestors", () => {
    expect(ids(nodeThread(turns, "m3"))).toEqual(["m3", "m2", "m1"]);
    expect(ids(nodeThread(turns, "m3-a"))).toEqual(["m3", "m2", "m1"]);
    expect(ids(nodeThread(turns, "m1"))).toEqual(["m1"]);
  });

  it("an in-flight message not in the node: its ancestors via the parent given by the conversation", () => {
    expect(ids(nodeThread(turns, "m6", { parentMessageId: "m3" }))).toEqual(["m3", "m2", "m1"]);
    expect(ids(nodeThread(turns, "m6", { parentMessageId: null }))).toEqual([]);
    expect(nodeThread(turns, "m6")).toBeNull();
  });

  it("a new root ends the walk; UUID_NIL follows the next older turn", () => {
    let d = linear(2);
    d = add(d, "r", null);
    d = add(d, "n", UUID_NIL);
    expect(ids(nodeThread(documentTurns(d), undefined))).toEqual(["n", "r"]);
    let e = linear(2);
    e = add(e, "x", UUID_NIL);
    expect(ids(nodeThread(documentTurns(e), undefined))).toEqual(["x", "m2", "m1"]);
  });
});

describe("node window (token limit over the thread, whole turns, oldest first)", () => {
  const gpt4o = resolveTokenizer("gpt-4o");
  const doc = linear(3);
  const thread = nodeThread(documentTurns(doc), undefined)!;
  // Chat formula: 3 + tokens(role) + tokens(content) per message, + 3 for the reply.
  const turnCost = (i: number, enc = o200k) =>
    3 + enc.encode("user").length + enc.encode(`question m${i}`).length + 3 + enc.encode("assistant").length + enc.encode(`answer m${i}`).length;
  const all = 3 + turnCost(1) + turnCost(2) + turnCost(3);

  it("keeps everything under the limit, as user/assistant messages oldest first", () => {
    const w = nodeWindow(thread, 10_000, gpt4o);
    expect(w.messages).toEqual([
      { role: "user", content: "question m1" },
      { role: "assistant", content: "answer m1" },
      { role: "user", content: "question m2" },
      { role: "assistant", content: "answer m2" },
      { role: "user", content: "question m3" },
      { role: "assistant", content: "answer m3" },
    ]);
    expect(w.total_tokens).toBe(all);
    expect(w.thread_message_ids).toEqual(["m3", "m2", "m1"]);
    expect(w.dropped_message_ids).toEqual([]);
    expect(w.turn_tokens).toEqual([
      { message_id: "m3", assistant_message_id: "m3-a", tokens: turnCost(3), kept: true },
      { message_id: "m2", assistant_message_id: "m2-a", tokens: turnCost(2), kept: true },
      { message_id: "m1", assistant_message_id: "m1-a", tokens: turnCost(1), kept: true },
    ]);
    expect(w).toMatchObject({ model: "gpt-4o", encoding: "o200k_base", approximate: false, max_token_limit: 10_000 });
  });

  it("a total equal to the limit fits; one less drops the oldest whole turn", () => {
    expect(nodeWindow(thread, all, gpt4o).dropped_message_ids).toEqual([]);
    const w = nodeWindow(thread, all - 1, gpt4o);
    expect(w.dropped_message_ids).toEqual(["m1"]);
    expect(w.total_tokens).toBe(all - turnCost(1));
    expect(w.messages.map((m) => m.content)).toEqual(["question m2", "answer m2", "question m3", "answer m3"]);
    expect(w.turn_tokens.map((t) => t.kept)).toEqual([true, true, false]);
  });

  it("is empty (0 tokens) when even the newest turn does not fit", () => {
    const w = nodeWindow(thread, 5, gpt4o);
    expect(w.messages).toEqual([]);
    expect(w.total_tokens).toBe(0);
    expect(w.dropped_message_ids).toEqual(["m3", "m2", "m1"]);
  });

  it("an empty answer is still a turn (node memory has no in-flight placeholder)", () => {
    const d = add(emptyDocument(), "e", null, "hi", "");
    const w = nodeWindow(nodeThread(documentTurns(d), undefined)!, 1000, gpt4o);
    expect(w.messages).toEqual([{ role: "user", content: "hi" }, { role: "assistant", content: "" }]);
    expect(w.thread_message_ids).toEqual(["e"]);
  });

  it("counts with the model's encoding (cl100k_base recounted from the text) and prices images at 85", () => {
    const w = nodeWindow(thread, 10_000, resolveTokenizer("gpt-4"));
    expect(w.encoding).toBe("cl100k_base");
    expect(w.total_tokens).toBe(3 + turnCost(1, cl100k) + turnCost(2, cl100k) + turnCost(3, cl100k));

    const input = ZAddTurnInput.parse({
      message_id: "img",
      user_content: "look",
      user_files: [{ type: "image", transfer_method: "remote_url", url: "https://x/y.png" }],
      assistant_content: "ok",
    });
    const d = appendMessages(emptyDocument(), buildTurnMessages(input, "img-a", null, T0));
    const iw = nodeWindow(nodeThread(documentTurns(d), undefined)!, 10_000, resolveTokenizer("gpt-4"));
    expect(iw.messages[0]).toEqual({
      role: "user",
      content: [{ type: "image", transfer_method: "remote_url", url: "https://x/y.png", upload_file_id: null }, { type: "text", text: "look" }],
    });
    expect(iw.total_tokens).toBe(3 + 3 + cl100k.encode("user").length + cl100k.encode("look").length + 85 + 3 + cl100k.encode("assistant").length + cl100k.encode("ok").length);
  });
});

// Thousands of writes and a 20 000-message document through PGlite: correctness, given a loaded
// machine's time (the full-node test took 99 s at load 20-37, past its own 60 s).
describe("addNodeTurn: optimistic versioning on a real database (embedded PGlite)", { timeout: LOADED_MACHINE_TIMEOUT_MS }, () => {
  // The store's own SQL against a migrated database. Concurrent calls interleave at every
  // await (between a writer's read and its conditional UPDATE), so writers really lose
  // races; `racer` additionally lets a test change the row under a writer on purpose.
  let db: Database;
  let dir: string;
  let conversationId: string;
  /** Runs before every UPDATE of node_memories (a writer that always gets there first). */
  let racer: ((sql: ProjectSql) => Promise<void>) | null = null;
  let updates = 0;
  const racing: SqlRunner = {
    exec: (text) => db.sql.exec(text),
    transaction: (fn) => db.sql.transaction(fn),
    async query<T>(text: string, params?: unknown[]): Promise<T[]> {
      if (/^\s*UPDATE node_memories/.test(text)) {
        updates++;
        if (racer) await racer(projectSql(db.sql, DEFAULT_PROJECT_ID));
      }
      return db.sql.query<T>(text, params);
    },
  };
  const sql = projectSql(racing, DEFAULT_PROJECT_ID);

  beforeAll(async () => {
    dir = await freshDataDir(); // a copy of a migrated folder: no initdb here
    db = await openDatabase({ kind: "pglite", dataDir: dir });
    const [c] = await db.sql.query<{ id: string }>(`INSERT INTO conversations (id, app_id, name) VALUES (gen_random_uuid(), 'app-1', 'node memory') RETURNING id`);
    conversationId = c.id;
  }, LOADED_MACHINE_TIMEOUT_MS);
  afterAll(async () => {
    await db?.close();
    if (dir) removeDir(dir);
  });
  beforeEach(() => {
    racer = null;
    updates = 0;
  });

  const stored = async (node: string) => {
    const [row] = await db.sql.query<{ version: number; document: unknown }>(
      `SELECT version, document FROM node_memories WHERE conversation_id = $1 AND node_id = $2`,
      [conversationId, node],
    );
    return row ? { version: row.version, doc: parseDocument(row.document) } : null;
  };
  const input = (id: string, parent?: string | null) =>
    ZAddTurnInput.parse({ message_id: id, ...(parent === undefined ? {} : { parent_message_id: parent }), user_content: `q ${id}`, assistant_content: `a ${id}` });

  it("50 concurrent writers: every turn lands once, versions 1..50, losers re-read and retry", async () => {
    // The node exists, so every writer takes the UPDATE path and races on its version check.
    const first = await addNodeTurn(sql, conversationId, "node", input("w0", null));
    expect(first).toMatchObject({ version: 1, attempts: 1 });
    const results = [first, ...(await Promise.all(Array.from({ length: 49 }, (_, i) => addNodeTurn(sql, conversationId, "node", input(`w${i + 1}`, null)))))];
    expect(results.map((r) => r.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // Races were lost and retried: the attempts say so, and each lost attempt was an UPDATE that matched no row.
    const retries = results.reduce((n, r) => n + r.attempts - 1, 0);
    expect(retries).toBeGreaterThan(0);
    expect(updates).toBe(49 + retries);
    expect(Math.max(...results.map((r) => r.attempts))).toBeLessThanOrEqual(MAX_WRITE_ATTEMPTS);
    const s = (await stored("node"))!;
    expect(s.version).toBe(50);
    expect(s.doc.messages).toHaveLength(100);
    const users = s.doc.messages.filter((m) => m.role === "user").map((m) => m.message_id);
    expect(new Set(users).size).toBe(50);
    // Commit order = version order.
    expect(users).toEqual([...results].sort((a, b) => a.version - b.version).map((r) => r.messages[0].message_id));
  });

  it("an omitted parent is resolved at the attempt that lands: concurrent writers form one chain", async () => {
    await Promise.all(Array.from({ length: 12 }, (_, i) => addNodeTurn(sql, conversationId, "chain", input(`c${i}`))));
    const turns = documentTurns((await stored("chain"))!.doc);
    expect(turns.map((t) => t.parentMessageId)).toEqual([null, ...turns.slice(0, -1).map((t) => t.id)]);
    expect(nodeThread(turns, undefined)).toHaveLength(12);
  });

  it("a writer that loses every race gives up after MAX_WRITE_ATTEMPTS with 409 write_conflict, and writes nothing", async () => {
    await addNodeTurn(sql, conversationId, "contended", input("first"));
    // Someone else commits between this writer's read and its UPDATE, every time.
    racer = (db) => db.query(`UPDATE node_memories SET version = version + 1 WHERE conversation_id = $1 AND node_id = 'contended'`, [conversationId]).then(() => {});
    await expect(addNodeTurn(sql, conversationId, "contended", input("loser"))).rejects.toMatchObject({ kind: "conflict", code: "write_conflict" });
    expect(updates).toBe(MAX_WRITE_ATTEMPTS);
    racer = null;
    const s = (await stored("contended"))!;
    expect(s.version).toBe(1 + MAX_WRITE_ATTEMPTS);
    expect(s.doc.messages.map((m) => m.message_id)).not.toContain("loser");
    expect(documentTurns(s.doc).map((t) => t.id)).toEqual(["first"]);
  });

  it("a full node refuses another turn with 409 node_memory_full, and is left as it was", async () => {
    let doc = emptyDocument();
    const msgs = [];
    for (let i = 0; i < (MAX_NODE_MESSAGES - 2) / 2; i++) {
      const t = ZAddTurnInput.parse({ message_id: `f${i}`, user_content: "q", assistant_content: "a" });
      msgs.push(...buildTurnMessages(t, `f${i}-a`, i ? `f${i - 1}` : null, T0));
    }
    doc = appendMessages(doc, msgs);
    expect(doc.messages.length).toBe(MAX_NODE_MESSAGES - 2);
    await db.sql.query(
      `INSERT INTO node_memories (conversation_id, node_id, app_id, version, document, message_count, token_count) VALUES ($1, 'full', 'app-1', 7, $2::jsonb, $3, 0)`,
      [conversationId, JSON.stringify(doc), doc.messages.length],
    );
    // 19 998 messages + 2 = the limit: one more turn still fits, the next does not.
    await expect(addNodeTurn(sql, conversationId, "full", input("last-fits"))).resolves.toMatchObject({ version: 8, message_count: MAX_NODE_MESSAGES });
    await expect(addNodeTurn(sql, conversationId, "full", input("too-many"))).rejects.toMatchObject({ kind: "conflict", code: "node_memory_full" });
    const s = (await stored("full"))!;
    expect(s.version).toBe(8);
    expect(s.doc.messages).toHaveLength(MAX_NODE_MESSAGES);
  });

  it("rejects a duplicate id with 409, a wrong app with 422 and an unknown or deleted conversation with 404", async () => {
    await addNodeTurn(sql, conversationId, "n", input("a"));
    await expect(addNodeTurn(sql, conversationId, "n", input("a"))).rejects.toMatchObject({ kind: "conflict", details: [{ field: "message_id" }] });
    await expect(addNodeTurn(sql, conversationId, "n", { ...input("b"), app_id: "other" })).rejects.toMatchObject({ kind: "validation", details: [{ field: "app_id" }] });
    await expect(addNodeTurn(sql, "00000000-0000-4000-8000-000000000001", "n", input("b"))).rejects.toMatchObject({ kind: "not_found" });
    const [gone] = await db.sql.query<{ id: string }>(`INSERT INTO conversations (id, app_id, deleted_at) VALUES (gen_random_uuid(), 'app-1', now()) RETURNING id`);
    await expect(addNodeTurn(sql, gone.id, "n", input("b"))).rejects.toMatchObject({ kind: "not_found" });
    expect(documentTurns((await stored("n"))!.doc).map((t) => t.id)).toEqual(["a"]);
  });

  it("backs off with full jitter over a doubling, capped window", () => {
    expect(backoffMs(1, 1)).toBe(5);
    expect(backoffMs(3, 1)).toBe(20);
    expect(backoffMs(30, 1)).toBe(320);
    expect(backoffMs(4, 0)).toBe(0);
  });
});
