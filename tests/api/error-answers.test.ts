import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlBesideServer, type RawQuery } from "../helpers/sql-beside-server";
import { apiClient } from "../helpers/api-client";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { freePort } from "../helpers/free-port";
import { startOpenAiStub, type OpenAiStub } from "../helpers/openai-stub";
import { reserveScratchPostgres } from "../helpers/scratch-postgres";
import { DATABASE_KINDS, itOnOneKind, openTestDatabase, type TestDatabase } from "../helpers/test-database";

// Error answers that need a broken outside world: a node document at its size limit and a
// version check that always loses (409 node_memory_full, 409 write_conflict; both set up in
// the database itself, as no API call can), chat and embedding models that fail (502
// provider_error), and a database that cannot be reached (503 on /ready). The status check of
// `npm test` (scripts/check-status-coverage.ts) found these answers untested.

type Api = ReturnType<typeof apiClient>;

describe.each(DATABASE_KINDS)("error answers on %s", (kind) => {
  // A failing chat model's 502 is the provider's answer, written nowhere: one kind (the rule is in
  // tests/helpers/test-database.ts).
  const modelOnly = itOnOneKind(kind);
  let db: TestDatabase;
  let server: AppServer;
  let stub: OpenAiStub;
  let api: Api;
  let failChat = false;
  let failEmbed = false;
  const env = () => ({
    MEMSCOPE_CHAT_BASE_URL: stub.url,
    MEMSCOPE_CHAT_MODEL: "stub-chat",
    MEMSCOPE_EMBEDDINGS_BASE_URL: stub.url,
    MEMSCOPE_EMBEDDINGS_MODEL: "stub-embed",
    MEMSCOPE_EMBEDDINGS_DIMENSIONS: "8",
  });

  beforeAll(async () => {
    stub = await startOpenAiStub({
      chat: (body) => {
        if (failChat) throw new Error("model overloaded");
        const prompt: string = body.messages[0].content;
        if (prompt.includes("Extract the user's long-term memories")) return { memories: [{ memory_type: "preference", content: "Prefers tea" }] };
        if (prompt.includes("Combine them")) return { content: "Merged by the chat model" };
        return "{}";
      },
      embed: (input, body) => {
        // The model configured last: never answers, so a re-embedding job towards it stays running.
        if (body?.model === "stub-embed-next") return new Promise<number[][]>(() => {});
        if (failEmbed) throw new Error("embedding model down");
        const dims = Number(body?.dimensions) || 8;
        // Same words, same vector: near duplicates stay near.
        return input.map((t) => {
          const v = new Array<number>(dims).fill(0);
          for (const w of t.toLowerCase().split(/\W+/).filter(Boolean)) v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % dims] += 1;
          const n = Math.hypot(...v) || 1;
          return v.map((x) => x / n);
        });
      },
    });
    db = await openTestDatabase(kind);
    server = await db.startApp({ env: env() });
    api = apiClient(server.url);
  });
  afterAll(async () => {
    await server?.stop();
    await db?.stop();
    await stub?.stop();
  });

  /** Runs SQL on the suite's database: directly on PostgreSQL; on the embedded folder, with the server stopped. */
  async function inDatabase(fn: (q: RawQuery) => Promise<void>) {
    server = await sqlBesideServer(db, server, fn, () => db.startApp({ env: env() }));
    api = apiClient(server.url);
  }

  it("node memory: 409 node_memory_full at 20 000 messages, 409 write_conflict when every version check loses; nothing is written", async () => {
    const c = (await api.post("/conversations", { app_id: "errors" })).body.id as string;
    const turn = (id: string) => ({ message_id: id, user_content: `question ${id}`, assistant_content: `answer ${id}` });
    expect((await api.post(`/conversations/${c}/nodes/full/turns`, turn("f0"))).status).toBe(201);
    expect((await api.post(`/conversations/${c}/nodes/busy/turns`, turn("b0"))).status).toBe(201);

    await inDatabase(async (q) => {
      // Fill "full" to the limit (MAX_NODE_MESSAGES = 20 000) with copies of its first turn.
      const [row] = await q(`SELECT document FROM node_memories WHERE conversation_id = $1 AND node_id = 'full'`, [c]);
      const [user, assistant] = row.document.messages;
      const messages = [];
      for (let i = 0; i < 10_000; i++) {
        messages.push({ ...user, message_id: `u${i}`, parent_message_id: i ? `u${i - 1}` : null });
        messages.push({ ...assistant, message_id: `a${i}`, parent_message_id: `u${i}` });
      }
      await q(`UPDATE node_memories SET document = $2::jsonb, message_count = 20000 WHERE conversation_id = $1 AND node_id = 'full'`, [
        c,
        JSON.stringify({ ...row.document, messages }),
      ]);
      // Every UPDATE of "busy" is skipped, as if another writer had always just bumped its version.
      await q(`CREATE OR REPLACE FUNCTION test_lose_version_race() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`);
      await q(
        `CREATE TRIGGER test_lose_version_race BEFORE UPDATE ON node_memories FOR EACH ROW WHEN (NEW.node_id = 'busy') EXECUTE FUNCTION test_lose_version_race()`,
      );
    });

    const full = await api.post(`/conversations/${c}/nodes/full/turns`, turn("f1"));
    expect(full.status, JSON.stringify(full.body)).toBe(409);
    expect(full.body.error.code).toBe("node_memory_full");
    expect(full.body.error.message).toContain("20000 messages");

    const busy = await api.post(`/conversations/${c}/nodes/busy/turns`, turn("b1"));
    expect(busy.status, JSON.stringify(busy.body)).toBe(409);
    expect(busy.body.error.code).toBe("write_conflict");
    expect(busy.body.error.message).toContain("30 attempts");

    const nodes = (await api.get(`/conversations/${c}/nodes`)).body.data as { node_id: string; version: number; message_count: number }[];
    expect(nodes.find((n) => n.node_id === "busy")).toMatchObject({ version: 1, message_count: 2 });
    expect(nodes.find((n) => n.node_id === "full")).toMatchObject({ version: 1, message_count: 20_000 });
  });

  const user = () => `err-${randomUUID().slice(0, 8)}`;
  const create = async (u: string, content: string, extra: Record<string, unknown> = {}) => {
    const r = await api.post(`/users/${u}/memories`, { memory_type: "preference", content, ...extra });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };
  const contextBody = (u: string, c: string) => ({
    user_id: u,
    conversation_id: c,
    query: "what boats do I own?",
    strategy: { type: "token_buffer", max_token_limit: 100_000 },
    memory: { k: 3, dry_run: true },
  });
  const expect502 = (r: { status: number; body: any }, what: string, message: RegExp) => {
    expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBe(502);
    expect(r.body.error.code, what).toBe("provider_error");
    expect(r.body.error.message, what).toMatch(message);
  };

  modelOnly("a failing chat model: 502 provider_error from /window auto_context, from the model's failed call", async () => {
    const chatCalls = () => stub.requests.filter((q) => q.path === "/v1/chat/completions").length;
    const before = chatCalls();
    failChat = true;
    try {
      const win = await api.post("/window", {
        // Tool calls to compress (AgentScope's strategy 1): a summary the model writes.
        messages: [
          { role: "user", content: "q1" },
          ...[0, 1, 2, 3].flatMap((i) => [
            { role: "assistant", content: "", tool_calls: [{ id: `c${i}`, name: "read_file", arguments: '{"path":"/srv/app.conf"}' }] },
            { role: "tool", tool_call_id: `c${i}`, content: `result of c${i}` },
          ]),
          { role: "assistant", content: "a1" },
          { role: "user", content: "q2" },
        ],
        strategy: { type: "auto_context", msg_threshold: 1, last_keep: 2, min_compression_token_threshold: 10, steps: 1 },
      });
      expect502(win, "window", /model overloaded|500/);
    } finally {
      failChat = false;
    }
    expect(chatCalls() - before).toBeGreaterThanOrEqual(1);
  });

  it("a failing embedding model: 502 provider_error from create, search, patch, merge, compress apply, memory.md apply, review approve and /context; nothing is written", async () => {
    const u = user();
    const a = await create(u, "Owns a green kayak");
    const b = await create(u, "Owns a blue canoe");
    const c = (await api.post("/conversations", { app_id: "errors", end_user_id: u })).body.id as string;
    expect((await api.post(`/conversations/${c}/messages`, { query: "I like tea", answer: "Noted." })).status).toBe(201);
    const extracted = await api.post(`/users/${u}/memories/extract`, { conversation_id: c });
    expect(extracted.status, JSON.stringify(extracted.body)).toBe(201);
    const item = extracted.body.data[0];
    expect(item.candidate).toMatchObject({ content: "Prefers tea" });
    const md = await (await fetch(`${server.url}/api/v1/users/${u}/memory-md?file=memory`)).text();
    const embedCalls = () => stub.requests.filter((q) => q.path === "/v1/embeddings").length;
    const before = embedCalls();
    failEmbed = true;
    try {
      const down = /embedding model down|500/;
      expect502(await api.post(`/users/${u}/memories`, { memory_type: "fact", content: "Lives in Porto" }), "create", down);
      expect502(await api.post(`/users/${u}/memories/search`, { query: "kayak" }), "search", down);
      expect502(await api.patch(`/memories/${a.id}`, { content: "Owns a red kayak", version: a.version }), "patch", down);
      expect502(await api.post("/memories/merge", { ids: [a.id, b.id], content: "Owns a kayak and a canoe" }), "merge", down);
      const proposal = { memory_type: "preference", source_ids: [a.id, b.id], compressed: [{ content: "Owns boats", importance_score: 0.5, source_ids: [a.id, b.id] }] };
      expect502(await api.post(`/users/${u}/memories/compress/apply`, { proposals: [proposal] }), "compress apply", down);
      expect502(await api.post(`/users/${u}/memory-md/apply`, { file: "memory", text: md.replace("Owns a green kayak", "Owns a yellow kayak") }), "memory.md apply", down);
      expect502(await api.post(`/users/${u}/review/${item.id}/resolve`, { action: "approve" }), "review approve", down);
      expect502(await api.post("/context", { ...contextBody(u, c) }), "context", down);
    } finally {
      failEmbed = false;
    }
    expect(embedCalls() - before).toBeGreaterThanOrEqual(8);
    expect((await api.get(`/users/${u}/review`)).body.data.map((i: any) => [i.id, i.status])).toEqual([[item.id, "open"]]);
    const all = (await api.get(`/users/${u}/memories?status=all&limit=50`)).body.data as any[];
    expect(all.map((m) => [m.content, m.status, m.version]).sort()).toEqual([
      ["Owns a blue canoe", "active", 1],
      ["Owns a green kayak", "active", 1],
    ]);
  });
  // Last: it restarts the server with another embedding model.
  it("memories embedded with a model no longer configured: search and /context answer 409 embeddings_misconfigured while a re-embedding towards the new one runs", async () => {
    const u = user();
    await create(u, "Owns a green kayak");
    await server.stop();
    server = await db.startApp({ env: { ...env(), MEMSCOPE_EMBEDDINGS_MODEL: "stub-embed-next" } });
    api = apiClient(server.url);
    const status = await api.get("/embeddings/status");
    expect(status.body).toMatchObject({ active_model: { model: "stub-embed" }, configured_model: { model: "stub-embed-next" } });
    const c = (await api.post("/conversations", { app_id: "errors", end_user_id: u })).body.id as string;
    for (const r of [
      await api.post(`/users/${u}/memories/search`, { query: "kayak" }),
      await api.post("/context", contextBody(u, c)),
    ]) {
      expect(r.status, JSON.stringify(r.body)).toBe(409);
      expect(r.body.error.code).toBe("embeddings_misconfigured");
      expect(r.body.error.message).toContain("stub-embed");
    }
  });
});

describe("readiness while the database is down", () => {
  it("/ready answers 503 database_unavailable while DATABASE_URL is unreachable, and 200 once it is up", async () => {
    // Nothing listens on the port yet: the server starts, and every open attempt is refused.
    const pg = await reserveScratchPostgres(await freePort());
    const server = await startAppServer({ databaseUrl: pg.url, readyStatus: 503 });
    try {
      const down = await fetch(`${server.url}/api/v1/ready`);
      expect(down.status).toBe(503);
      const body = await down.json();
      expect(body.error.code).toBe("database_unavailable");
      expect(body.error.message).toMatch(/ECONNREFUSED|connect/);
      // The next request retries the open: the database coming up is enough.
      await pg.listen();
      let status = 0;
      for (let i = 0; i < 120 && status !== 200; i++) {
        status = (await fetch(`${server.url}/api/v1/ready`)).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 500));
      }
      expect(status).toBe(200);
    } finally {
      await server.stop();
      await pg.stop();
    }
  });
});
