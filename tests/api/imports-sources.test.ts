import { runImportCli } from "../helpers/import-cli";
import fs from "node:fs";
import path from "node:path";
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import initSqlJs from "sql.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import type { AppServer } from "../helpers/app-server";
import { connectPostgres, createFreshDatabase, realPostgresUrl } from "../helpers/real-postgres";
import { sharedProject } from "../helpers/shared-app";
import { DATABASE_KINDS, startAppOn } from "../helpers/test-database";
import { stableUuid } from "@/lib/imports/stable-id";
import { zipFolder } from "@/lib/imports/zip-folder";
import { UUID_NIL } from "@/lib/threads/uuid-nil";

// The sources of issue 25 end to end through POST /api/v1/imports/upload (the file's bytes
// as the body) on both databases: what each writes shows up through the ordinary API,
// re-runs (also from another packaging of the same export) duplicate nothing, dry runs
// write nothing, problems name their record and field; memories go back out as a
// /memories zip and as MEMORY.md. The parsing details are unit tests
// (tests/unit/imports-sources.test.ts); this suite checks the writing and the routes.

const FIX = path.join(__dirname, "../fixtures/imports");
const bytes = (p: string) => new Uint8Array(fs.readFileSync(path.join(FIX, p)));

async function sessionDb(): Promise<Uint8Array> {
  const SQL = await initSqlJs({ locateFile: (f) => path.join(path.dirname(require.resolve("sql.js")), f) });
  const db = new SQL.Database();
  db.exec(fs.readFileSync(path.join(FIX, "openai-agents.sql"), "utf8"));
  return (db as unknown as { export(): Uint8Array }).export();
}

/** A LangGraph store database (its table as LangGraph creates it, TTL columns included) on the real PostgreSQL. */
async function langgraphStore(serverUrl: string) {
  const db = await createFreshDatabase(serverUrl);
  const c = await connectPostgres(db.url);
  try {
    await c.query(`CREATE TABLE store (prefix text NOT NULL, key text NOT NULL, value jsonb NOT NULL,
      created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP, updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP,
      expires_at timestamp with time zone, ttl_minutes integer, PRIMARY KEY (prefix, key))`);
    await c.query(`INSERT INTO store (prefix, key, value, created_at, expires_at, ttl_minutes) VALUES
      ('memories.lg-user', 'a', '{"content": "Runs on Tuesdays"}', '2026-02-01T00:00:00Z', NULL, NULL),
      ('memories.lg-user', 'b', '{"kind": "Memory", "content": {"content": "Speaks Catalan"}}', '2026-02-02T00:00:00Z', now() + interval '1 day', 1440),
      ('memories.lg-user', 'gone', '{"content": "Past its TTL"}', '2026-02-03T00:00:00Z', now() - interval '1 minute', 1)`);
  } finally {
    await c.end();
  }
  return db;
}

describe.each(DATABASE_KINDS)("imports of 2026's sources on %s", (kind) => {
  let server: AppServer | null = null;
  let base = "";
  let headers: Record<string, string> = {};
  let key = "";
  let api: ReturnType<typeof apiClient>;
  let store: Awaited<ReturnType<typeof langgraphStore>> | null = null;
  const realPg = kind === "postgres" ? realPostgresUrl() : null;

  beforeAll(async () => {
    if (realPg) {
      // Reading a LangGraph store from its database is configured per server
      // (MEMSCOPE_LANGGRAPH_DATABASE_URL): a server of this file's own, open (no owner).
      store = await langgraphStore(realPg);
      server = await startAppOn(kind, { env: { MEMSCOPE_LANGGRAPH_DATABASE_URL: store.url } });
      base = server.url;
    } else {
      // Otherwise a project of its own on the worker's shared server is all it needs: every
      // source id, job, conversation and memory here is the project's.
      const p = await sharedProject(kind, "imports-sources");
      [base, headers, key] = [p.url, p.headers, p.key];
    }
    api = apiClient(base, headers);
  });
  afterAll(async () => {
    await server?.stop();
    await store?.drop();
  });

  async function upload(body: Uint8Array, query: Record<string, string> = {}, type = "application/octet-stream") {
    const r = await fetch(`${base}/api/v1/imports/upload?${new URLSearchParams(query)}`, { method: "POST", headers: { ...headers, "content-type": type }, body: Buffer.from(body) });
    return { status: r.status, body: await r.json() };
  }

  /** Uploads, expects 202, waits for the job's end. */
  async function run(body: Uint8Array, query: Record<string, string> = {}) {
    const r = await upload(body, query);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const j = await api.get(`/imports/${r.body.id}`);
      if (j.body.status === "done" || j.body.status === "failed") return j.body;
      if (Date.now() > deadline) throw new Error(`import ${r.body.id} still ${j.body.status}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  it("ChatGPT: a dry run writes nothing; the run writes the turn tree and memories; the export's zip re-imports nothing", async () => {
    const file = bytes("chatgpt/conversations.json");
    const trip = stableUuid("chatgpt-conversation:c1-67e1");
    const dry = await run(file, { dry_run: "true", file_name: "conversations.json" });
    expect(dry).toMatchObject({ format: "chatgpt", dry_run: true, status: "done", label: "conversations.json" });
    expect(dry.counts).toEqual({ conversations: 3, turns: 6, memories: 4, skipped: 1, failed: 0 });
    expect((await api.get(`/conversations/${trip}`)).status).toBe(404);
    expect((await api.get("/users/chatgpt/memories")).body.data).toEqual([]);

    const job = await run(file);
    expect(job.counts).toEqual({ conversations: 3, turns: 6, memories: 4, skipped: 1, failed: 0 });
    expect(job.processed).toBe(job.total);
    const conv = await api.get(`/conversations/${trip}`);
    expect(conv.body).toMatchObject({ app_id: "chatgpt", name: "Trip to Kyōto 🌸", turn_count: 4, created_at: "2023-11-14T22:13:20.123Z" });
    const msgs = (await api.get(`/conversations/${trip}/messages`)).body.data as { id: string; parent_message_id: string | null; metadata: { active: boolean }; files: unknown[] }[];
    const t = (n: string) => stableUuid(`chatgpt-turn:c1-67e1:${n}`);
    // Two roots (a regenerated first answer): the oldest turn's parent is UUID_NIL, the other's the conversation itself (lib/imports/dify-roots.ts).
    expect(new Map(msgs.map((m) => [m.id, m.parent_message_id]))).toEqual(new Map([[t("A1a"), UUID_NIL], [t("A1b"), trip], [t("A2"), t("A1b")], [t("A2e"), t("A1b")]]));
    // current_node (A2) is not the newest leaf (A2e): the default thread, the window and the context continue from it.
    expect((await api.get(`/conversations/${trip}/thread`)).body).toEqual({ leaf_message_id: t("A2"), message_ids: [t("A2"), t("A1b")] });
    const h = await api.get(`/conversations/${trip}/history?max_token_limit=100000`);
    expect(h.body.thread_message_ids).toEqual([t("A2"), t("A1b")]);
    const ctx = await api.post("/context", { user_id: "chatgpt", conversation_id: trip, query: "And the next temple?", strategy: { type: "token_buffer", max_token_limit: 100000 } });
    expect(ctx.status, JSON.stringify(ctx.body)).toBe(200);
    expect(ctx.body.messages.filter((m: { role: string }) => m.role === "user").map((m: { content: unknown }) => m.content)).toEqual(["Plan a trip to Kyōto 🌸", expect.anything(), "And the next temple?"]);
    // A leaf named by the caller still wins.
    expect((await api.get(`/conversations/${trip}/history?max_token_limit=100000&leaf_message_id=${t("A2e")}`)).body.thread_message_ids).toEqual([t("A2e"), t("A1b")]);
    expect(msgs.find((m) => m.id === t("A2"))!.files).toEqual([{ type: "image", transfer_method: "local_file", url: null, upload_file_id: "file-service://file-Kyoto123", belongs_to: "user" }]);
    const mems = (await api.get("/users/chatgpt/memories")).body.data as { content: string; memory_type: string }[];
    expect(mems.map((m) => m.content).sort()).toEqual(["Answer briefly, in metric units.", "I live in Lyon and travel by train.", "Is vegetarian.", "Prefers window seats."]);

    // The same export as ChatGPT ships it (a zip with chat.html): detected, streamed out of the zip, all known.
    const zip = zipSync({ "conversations.json": file, "chat.html": strToU8("<html></html>"), "user.json": strToU8("{}") });
    const again = await run(zip);
    expect(again.format).toBe("chatgpt");
    expect(again.counts).toEqual({ conversations: 0, turns: 0, memories: 0, skipped: 8, failed: 0 });
    expect((await api.get(`/conversations/${trip}`)).body.turn_count).toBe(4);

    // A turn added through the messages API continues the shown thread and becomes the active leaf.
    const added = await api.post(`/conversations/${trip}/messages`, { query: "And in spring?", answer: "Cherry blossoms.", parent_message_id: t("A2") });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const n1 = added.body.id as string;
    expect((await api.get(`/conversations/${trip}/thread`)).body).toEqual({ leaf_message_id: n1, message_ids: [n1, t("A2"), t("A1b")] });
    expect((await api.get(`/conversations/${trip}/history?max_token_limit=100000`)).body.thread_message_ids).toEqual([n1, t("A2"), t("A1b")]);
    // A batch too: the pointer moves to its last turn.
    const batch = await api.post(`/conversations/${trip}/messages/batch`, { messages: [{ query: "q3", answer: "a3" }, { query: "q4", answer: "a4" }] });
    expect(batch.status, JSON.stringify(batch.body)).toBe(201);
    const n3 = (batch.body.data as { id: string }[])[1].id;
    expect((await api.get(`/conversations/${trip}/thread`)).body.leaf_message_id).toBe(n3);
    // Re-running the same export leaves those turns shown (its current_node has not moved) ...
    expect((await run(file)).counts).toMatchObject({ conversations: 0, turns: 0 });
    expect((await api.get(`/conversations/${trip}/thread`)).body.leaf_message_id).toBe(n3);
    // ... a later export whose current_node moved to another branch (no new turns) moves the pointer there.
    const later = JSON.parse(strFromU8(file)) as { current_node: string }[];
    later[0].current_node = "A2e";
    expect((await run(strToU8(JSON.stringify(later)))).counts).toMatchObject({ conversations: 0, turns: 0, failed: 0 });
    expect((await api.get(`/conversations/${trip}/thread`)).body).toEqual({ leaf_message_id: t("A2e"), message_ids: [t("A2e"), t("A1b")] });
    expect((await api.get(`/conversations/${trip}/history?max_token_limit=100000`)).body.thread_message_ids).toEqual([t("A2e"), t("A1b")]);
  });

  it("ChatGPT: each bad conversation fails once, every one of its defects named; the rest imports", async () => {
    const job = await run(bytes("chatgpt/conversations-bad.json"), { format: "chatgpt", app_id: "bad-chatgpt" });
    expect(job.counts).toMatchObject({ failed: 6 });
    expect(job.problems.map((p: { record: string; field: string }) => `${p.record} ${p.field}`)).toEqual([
      "conversations[0] mapping",
      "conversations[1] current_node",
      "conversations[2] mapping.X.message.author.role",
      "conversations[3] create_time",
      "conversations[5] mapping.r.children[1]",
      "conversations[5] mapping.X.message.author.role",
      "conversations[5] mapping.U.message.create_time",
      "conversations[6] id",
    ]);
  });

  it("ChatGPT: an export of several batches (each read while the one before is written) imports whole; cut short, what came before the cut stays", async () => {
    // lib/imports/start-upload.ts reads the file a MiB at a time and writes a batch (125
    // conversations or more, what the MiBs read hold) while reading the next: ~12 KB answers
    // make a 3.6 MB file of several batches.
    const long = " lorem ipsum dolor".repeat(650);
    const conv = (k: number, text = `question ${k}`) => ({
      title: `Many ${k}`,
      create_time: 1_700_000_000 + k,
      id: `many-${k}`,
      conversation_id: `many-${k}`,
      current_node: `a${k}`,
      mapping: {
        [`r${k}`]: { id: `r${k}`, message: null, parent: null, children: [`u${k}`] },
        [`u${k}`]: { id: `u${k}`, parent: `r${k}`, children: [`a${k}`], message: { id: `u${k}`, author: { role: "user" }, create_time: 1_700_000_000 + k, content: { content_type: "text", parts: [text] } } },
        [`a${k}`]: { id: `a${k}`, parent: `u${k}`, children: [], message: { id: `a${k}`, author: { role: "assistant" }, create_time: 1_700_000_001 + k, content: { content_type: "text", parts: [`answer ${k}${long}`] } } },
      },
    });
    const many = Array.from({ length: 300 }, (_, k) => conv(k, k % 2 ? "The same question, asked again?" : `question ${k}`));
    many[140] = { ...many[140], current_node: 7 } as never; // a bad one in the second batch
    many.push(conv(3)); // its id again with another question, in the third batch: a defect naming the first (issue 36)
    many.push(many[5]); // an identical copy: skipped
    const job = await run(strToU8(JSON.stringify(many)), { format: "chatgpt", app_id: "many-chatgpt" });
    expect(job.status).toBe("done");
    expect(job.counts).toMatchObject({ conversations: 299, turns: 299, failed: 2 });
    expect(job.problems.map((p: { record: string; field: string }) => `${p.record} ${p.field}`)).toEqual(["conversations[140] current_node", "conversations[300] id"]);
    const last = (await api.get(`/conversations/${stableUuid("chatgpt-conversation:many-299")}/messages`)).body.data;
    expect(last.map((m: { query: string; answer: string }) => [m.query, m.answer])).toEqual([["The same question, asked again?", `answer 299${long}`]]);

    // Cut in the 261st conversation: the batches read before it are written (the one after
    // the first MiBs at least, not the one the cut is in), the job fails naming where.
    const text = JSON.stringify(Array.from({ length: 300 }, (_, k) => conv(1000 + k)));
    const cut = text.indexOf('"id":"many-1260"');
    const broken = await run(strToU8(`${text.slice(0, cut)}!!${text.slice(cut)}`), { format: "chatgpt", app_id: "cut-chatgpt" });
    expect(broken.status).toBe("failed");
    expect(broken.error).toMatch(/not valid JSON after 260 conversations/);
    expect(broken.counts.turns).toBe(broken.counts.conversations);
    expect(broken.counts.conversations).toBeGreaterThanOrEqual(125);
    expect(broken.counts.conversations).toBeLessThan(260);
    const exists = async (k: number) => (await api.get(`/conversations/${stableUuid(`chatgpt-conversation:many-${k}`)}`)).status;
    expect(await exists(1000 + broken.counts.conversations - 1)).toBe(200);
    expect(await exists(1000 + broken.counts.conversations)).toBe(404);
  });

  it("Claude.ai export zip: branches, tool use and memories.json; the newest leaf's thread is the window", async () => {
    const zip = zipSync({ "conversations.json": bytes("claude/conversations.json"), "memories.json": bytes("claude/memories.json"), "users.json": strToU8('[{"uuid":"acct-1"}]') });
    const job = await run(zip, { file_name: "claude-export.zip" });
    expect(job.format).toBe("claude");
    expect(job.counts).toEqual({ conversations: 2, turns: 6, memories: 6, skipped: 1, failed: 0 });
    const C = "11111111-1111-4111-8111-111111111111";
    const conv = stableUuid(`claude-conversation:${C}`);
    // Leaves: the retried answer, and the two answers under the first one (an edited question).
    expect((await api.get(`/conversations/${conv}`)).body).toMatchObject({ end_user_id: "acct-1", turn_count: 4, branch_count: 3 });
    // The active leaf (the newest message) is also the newest turn: the window follows it.
    const h = await api.get(`/conversations/${conv}/history?max_token_limit=100000`);
    // Newest first (as /thread): not the retried first answer a1r, which a null root made end the walk.
    expect(h.body.thread_message_ids).toEqual([stableUuid(`claude-turn:${C}:a2e`), stableUuid(`claude-turn:${C}:a1`)]);
    expect((await api.get("/users/acct-1/memories")).body.data).toHaveLength(6);
    const again = await run(zip);
    expect(again.counts).toEqual({ conversations: 0, turns: 0, memories: 0, skipped: 9, failed: 0 });
  });

  it("Letta .af: a shared core block is one memory; the agent's turns carry tool calls and approvals", async () => {
    const job = await run(bytes("letta/concierge.af"), { end_user_id: "zoe" });
    expect(job).toMatchObject({ format: "letta", status: "done" });
    expect(job.counts).toEqual({ conversations: 1, turns: 2, memories: 2, skipped: 2, failed: 0 });
    const mems = (await api.get("/users/zoe/memories")).body.data as { content: string; structured_data: { kind: string; label: string; agents: string[] } }[];
    const human = mems.find((m) => m.structured_data.label === "human")!;
    expect(human).toMatchObject({ content: "Name: Zoë. Lives in Paris. Vegetarian.", structured_data: { kind: "letta_core_block", limit: 5000, agents: ["Concierge", "Sleeptime"] } });
    expect(job.unrepresented).toEqual({ letta_event: 2 }); // the login and the heartbeat, kept in metadata
    const bad = await run(bytes("letta/bad.af"), { format: "letta" });
    expect(bad.counts.failed).toBe(5);
    expect(bad.problems).toHaveLength(8); // every defect of the 5 records
    expect(bad.problems[0]).toEqual({ record: "file blocks[0]", field: "blocks[0].value", message: "is 20 characters, over the block's limit of 10" });
  });

  it("Letta .af as Letta writes it (issue 36): the job says what only metadata keeps; the sleeptime agent's runs come back from GET /history", async () => {
    const dry = await run(bytes("letta/scout.af"), { dry_run: "true" });
    const job = await run(bytes("letta/scout.af"));
    expect(job.counts).toEqual({ conversations: 2, turns: 5, memories: 3, skipped: 0, failed: 0 });
    expect(dry.counts).toEqual(job.counts);
    expect(job.unrepresented).toEqual({ letta_event: 2, letta_image_data: 1, letta_reasoning: 5, letta_summary: 1, letta_hidden_reasoning: 1 });
    const list = (await api.get("/conversations?app_id=letta&limit=100")).body.data as { id: string; name: string }[];
    const sleep = list.find((c) => c.name === "Scout-sleeptime")!;
    const history = (await api.get(`/conversations/${sleep.id}/history?max_token_limit=100000`)).body;
    expect(history.messages.map((m: { role: string; content: string }) => [m.role, m.content.slice(0, 17)])).toEqual([
      ["user", "<system-reminder>"],
      ["assistant", "Recorded that the"],
      ["user", "<system-reminder>"],
      ["assistant", "Noted the decline"],
    ]);
    expect((await run(bytes("letta/scout.af"))).counts).toMatchObject({ conversations: 0, turns: 0, memories: 0, skipped: 5 });
  });

  it("OpenAI Agents SQLiteSession file: a conversation per session; the undecodable row is skipped and counted", async () => {
    const db = await sessionDb();
    const job = await run(db, { file_name: "session.db" });
    expect(job.format).toBe("openai-agents");
    expect(job.counts).toEqual({ conversations: 1, turns: 2, memories: 0, skipped: 2, failed: 0 });
    const msgs = (await api.get(`/conversations/${stableUuid("openai-agents-conversation:user_42")}/messages`)).body.data;
    expect(msgs.map((m: { query: string; answer: string; created_at: string }) => [m.query, m.answer, m.created_at])).toEqual([
      ["What is the weather in Tōkyō?", "It is 22°C and clear.", "2026-06-01T08:00:01.000Z"],
      ["Thanks!", "You are welcome.", "2026-06-01T08:01:00.000Z"],
    ]);
    expect((await run(db)).counts).toEqual({ conversations: 0, turns: 0, memories: 0, skipped: 3, failed: 0 });
  });

  it("memory folders in, and back out as a /memories zip and as MEMORY.md", async () => {
    const zip = zipFolder(path.join(FIX, "memories"), "memories");
    const job = await run(zip, { file_name: "memories/" });
    expect(job).toMatchObject({ format: "memory-dir" });
    expect(job.counts).toEqual({ conversations: 0, turns: 0, memories: 6, skipped: 4, failed: 0 });
    const alice = (await api.get("/users/alice/memories")).body.data as { content: string; structured_data: { path: string } }[];
    expect(alice.map((m) => m.content).sort()).toEqual(["Alice's dog is called Pixel.", "Allergic to peanuts\n(confirmed 2026-04)", "Prefers aisle seats on trains", "Works night shifts"]);

    const out = await fetch(`${base}/api/v1/users/alice/memory-files/memories.zip`, { headers });
    expect(out.status).toBe(200);
    expect(out.headers.get("content-type")).toBe("application/zip");
    const files = unzipSync(new Uint8Array(await out.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(["memories/alice/notes.txt", "memories/alice/preferences.md"]);
    expect(strFromU8(files["memories/alice/preferences.md"]).split("\n").filter(Boolean).sort()).toEqual(["  (confirmed 2026-04)", "- Allergic to peanuts", "- Prefers aisle seats on trains", "- Works night shifts"]);
    // What went out comes back in as the same memories: nothing new.
    const back = await run(zipSync({ "memories/alice/preferences.md": files["memories/alice/preferences.md"] }), { format: "memory-dir" });
    expect(back.counts).toEqual({ conversations: 0, turns: 0, memories: 0, skipped: 3, failed: 0 });

    const md = await fetch(`${base}/api/v1/users/alice/memory-files/MEMORY.md`, { headers });
    expect(md.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const text = await md.text();
    expect(text).toContain("## Facts\n\n");
    expect(text).toContain("- Allergic to peanuts\n  (confirmed 2026-04)");
  });

  it("AgentScope workspace zip: sessions once however many copies, MEMORY.md and daily notes", async () => {
    const job = await run(zipFolder(path.join(FIX, "agentscope")), { end_user_id: "kenji" });
    expect(job.format).toBe("agentscope");
    expect(job.counts).toEqual({ conversations: 2, turns: 2, memories: 3, skipped: 1, failed: 0 });
    expect((await api.get(`/conversations/${stableUuid("agentscope-conversation:s1")}`)).body).toMatchObject({ end_user_id: "kenji", turn_count: 1 });
  });

  it("LangGraph store: its SQL dump (rows past their TTL left out, a bad value named), then re-run: nothing new", async () => {
    const dump = bytes("langgraph-store.sql");
    const job = await run(dump, { file_name: "store.sql" });
    expect(job.format).toBe("langgraph");
    expect(job.counts).toEqual({ conversations: 0, turns: 0, memories: 3, skipped: 1, failed: 1 });
    expect(job.problems).toEqual([{ record: "line 25 (memories.user-3/bad)", field: "value", message: "must be a JSON object, got array" }]);
    const u1 = (await api.get("/users/user-1/memories")).body.data as { content: string; structured_data: { namespace: string[]; key: string } }[];
    expect(u1.map((m) => m.content).sort()).toEqual(["Lives in Porto", "Prefers tea over coffee ☕"]);
    expect((await run(dump)).counts).toEqual({ conversations: 0, turns: 0, memories: 0, skipped: 4, failed: 1 });
  });

  it.runIf(kind === "postgres" && !!realPostgresUrl())("LangGraph store read from its database (read only), namespace user segment chosen", async () => {
    const r = await api.post("/imports", { format: "langgraph", namespace_user_index: 1 });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    let job = r.body;
    while (job.status === "running") {
      await new Promise((res) => setTimeout(res, 100));
      job = (await api.get(`/imports/${r.body.id}`)).body;
    }
    expect(job.counts).toEqual({ conversations: 0, turns: 0, memories: 2, skipped: 1, failed: 0 });
    expect(((await api.get("/users/lg-user/memories")).body.data as { content: string }[]).map((m) => m.content).sort()).toEqual(["Runs on Tuesdays", "Speaks Catalan"]);
  });

  it.runIf(kind === "embedded")("LangGraph store without a database configured is a 409 naming the setting", async () => {
    const r = await api.post("/imports", { format: "langgraph" });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: "langgraph_database_not_configured", details: [{ field: "MEMSCOPE_LANGGRAPH_DATABASE_URL" }] });
  });

  it("bad uploads are 4xx naming the field; the job history lists every source", async () => {
    const plain = await upload(strToU8("[]"), {}, "text/plain");
    expect(plain.status).toBe(415);
    expect(plain.body.error.details[0].field).toBe("content-type");
    const wrong = await upload(bytes("chatgpt/conversations.json"), { format: "openai-agents" });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.details[0].field).toBe("format");
    const badQuery = await upload(strToU8("[]"), { format: "nope" });
    expect(badQuery.status).toBe(422);
    expect(badQuery.body.error.details[0].field).toBe("format");
    const asText = await api.post("/imports", { format: "agentscope", content: "x" });
    expect(asText.status).toBe(422);
    expect(asText.body.error.details[0].field).toBe("format");
    const list = await api.get("/imports");
    expect(new Set(list.body.data.map((j: { format: string }) => j.format))).toEqual(new Set(["chatgpt", "claude", "letta", "openai-agents", "memory-dir", "agentscope", "langgraph"]));
  });

  it.runIf(kind === "embedded")("the CLI streams a file and zips a folder", async () => {
    const cli = (args: string[]) => runImportCli(base, args, key);
    const folder = await cli(["--dry-run", "--end-user", "cli-user", path.join(FIX, "claude-code")]);
    expect(folder.out.trim().split("\n").at(-1)).toBe("would import: 0 conversations, 0 turns, 3 memories; skipped 0; failed 0");
    expect(folder.code).toBe(0);
    const file = await cli(["--format", "letta", "--end-user", "cli-user", path.join(FIX, "letta/old-pal.af")]);
    expect(file.out.trim().split("\n").at(-1)).toBe("imported: 1 conversations, 1 turns, 2 memories; skipped 0; failed 0");
  });
});
