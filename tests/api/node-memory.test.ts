import { randomUUID } from "node:crypto";
import { get_encoding } from "tiktoken";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import { DATABASE_KINDS, itOnOneKind } from "../helpers/test-database";

// Node-level memory (Dify NodeTokenBufferMemory) through real HTTP on both databases.

describe.each(DATABASE_KINDS)("node memory API on %s", (kind) => {
  // Refusals decided before any write, scopes and the OpenAPI text run on one kind (the rule is in
  // tests/helpers/test-database.ts); the rest, on both.
  const oneKind = itOnOneKind(kind);
  let server: SharedProject;
  let api: ReturnType<typeof apiClient>;
  const enc = get_encoding("o200k_base");
  const app = `app-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    server = await sharedProject(kind, "node-memory");
    api = apiClient(server.url, server.headers);
  });
  afterAll(async () => {
    enc.free();
    await server?.stop();
  });

  const conversation = async () => {
    const r = await api.post("/conversations", { app_id: app });
    expect(r.status).toBe(201);
    return r.body.id as string;
  };
  const turn = (id: string, extra: Record<string, unknown> = {}) => ({
    message_id: id,
    user_content: `question ${id}`,
    assistant_content: `answer ${id}`,
    ...extra,
  });
  const nodes = (c: string) => `/conversations/${c}/nodes`;

  it("adds turns in the seed's v1 format, lists nodes and reads the document back", async () => {
    const c = await conversation();
    const first = await api.post(`${nodes(c)}/llm_1/turns`, {
      ...turn("msg-001", { parent_message_id: null, assistant_message_id: "msg-002", app_id: app }),
      user_files: [{ type: "image", transfer_method: "local_file", upload_file_id: "file-uuid-123" }],
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ conversation_id: c, node_id: "llm_1", app_id: app, version: 1, message_count: 2, turn_count: 1, attempts: 1 });
    const userTokens = enc.encode("question msg-001").length + 85;
    const asstTokens = enc.encode("answer msg-001").length;
    expect(first.body.token_count).toBe(userTokens + asstTokens);

    const second = await api.post(`${nodes(c)}/llm_1/turns`, turn("msg-003"));
    expect(second.status).toBe(201);
    expect(second.body.version).toBe(2);
    // Omitted parent: the node's newest turn.
    expect(second.body.messages[0]).toMatchObject({ message_id: "msg-003", parent_message_id: "msg-001", role: "user" });
    expect(second.body.messages[1]).toMatchObject({ parent_message_id: "msg-003", role: "assistant" });
    expect(second.body.messages[1].message_id).toMatch(/^[0-9a-f-]{36}$/);

    await api.post(`${nodes(c)}/other.node:2/turns`, turn("x1"));

    const doc = await api.get(`${nodes(c)}/llm_1`);
    expect(doc.status).toBe(200);
    expect(doc.body).toMatchObject({ node_id: "llm_1", app_id: app, version: 2, message_count: 4, turn_count: 2 });
    expect(doc.body.document.version).toBe(1);
    expect(doc.body.document.messages[0]).toEqual({
      message_id: "msg-001",
      parent_message_id: null,
      role: "user",
      content: "question msg-001",
      files: [{ type: "image", transfer_method: "local_file", upload_file_id: "file-uuid-123", tool_file_id: null, url: null, belongs_to: "user" }],
      token_count: userTokens,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(doc.body.document.messages[1]).toMatchObject({ message_id: "msg-002", parent_message_id: "msg-001", role: "assistant", token_count: asstTokens });

    const list = await api.get(nodes(c));
    expect(list.status).toBe(200);
    expect(list.body.data.map((n: { node_id: string }) => n.node_id).sort()).toEqual(["llm_1", "other.node:2"]);
    const llm = list.body.data.find((n: { node_id: string }) => n.node_id === "llm_1");
    expect(llm).toMatchObject({ app_id: app, version: 2, message_count: 4, turn_count: 2, token_count: doc.body.token_count });
  });

  it("history: thread by current_message_id, then the token limit (whole turns, oldest first)", async () => {
    const c = await conversation();
    const post = (id: string, extra: Record<string, unknown> = {}) => api.post(`${nodes(c)}/agent/turns`, turn(id, extra));
    await post("t1", { parent_message_id: null });
    await post("t2");
    await post("t3");
    await post("t4", { parent_message_id: "t2" }); // regenerated: a sibling of t3

    const full = await api.get(`${nodes(c)}/agent/history`);
    expect(full.status).toBe(200);
    expect(full.body.thread_message_ids).toEqual(["t4", "t2", "t1"]);
    expect(full.body.messages.map((m: { content: string }) => m.content)).toEqual([
      "question t1", "answer t1", "question t2", "answer t2", "question t4", "answer t4",
    ]);
    expect(full.body).toMatchObject({ node_id: "agent", version: 4, model: "gpt-4o", encoding: "o200k_base", max_token_limit: 2000, dropped_message_ids: [] });

    const branch = await api.get(`${nodes(c)}/agent/history?current_message_id=t3`);
    expect(branch.body.thread_message_ids).toEqual(["t3", "t2", "t1"]);

    // A limit that fits only the newest two turns drops t1 (a total equal to the limit fits).
    const costs = Object.fromEntries(branch.body.turn_tokens.map((t: { message_id: string; tokens: number }) => [t.message_id, t.tokens]));
    const limit = 3 + costs.t3 + costs.t2;
    const cut = await api.get(`${nodes(c)}/agent/history?current_message_id=t3&max_token_limit=${limit}`);
    expect(cut.body.dropped_message_ids).toEqual(["t1"]);
    expect(cut.body.total_tokens).toBe(limit);
    expect(cut.body.messages.map((m: { content: string }) => m.content)).toEqual(["question t2", "answer t2", "question t3", "answer t3"]);
    const cut2 = await api.get(`${nodes(c)}/agent/history?current_message_id=t3&max_token_limit=${limit - 1}`);
    expect(cut2.body.dropped_message_ids).toEqual(["t2", "t1"]);

    // The in-flight message of the conversation (not yet in the node): its ancestors.
    const m1 = await api.post(`/conversations/${c}/messages`, { query: "q", answer: "a", parent_message_id: null });
    const inflight = await api.post(`/conversations/${c}/messages`, { query: "next", answer: "" });
    await api.post(`${nodes(c)}/agent/turns`, turn(m1.body.id, { parent_message_id: "t3" }));
    const h = await api.get(`${nodes(c)}/agent/history?current_message_id=${inflight.body.id}`);
    expect(h.status).toBe(200);
    expect(h.body.thread_message_ids).toEqual([m1.body.id, "t3", "t2", "t1"]);

    const unknown = await api.get(`${nodes(c)}/agent/history?current_message_id=${randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.details[0].field).toBe("current_message_id");

    // A node that has not run yet has an empty history.
    const none = await api.get(`${nodes(c)}/never-ran/history`);
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ version: 0, messages: [], thread_message_ids: [], total_tokens: 0 });

    const bad = await api.get(`${nodes(c)}/agent/history?max_token_limit=-1`);
    expect(bad.status).toBe(422);
    expect(bad.body.error.details[0].field).toBe("max_token_limit");
  });

  it("duplicate message ids are a 409; invalid input a 422 naming the field", async () => {
    const c = await conversation();
    expect((await api.post(`${nodes(c)}/n/turns`, turn("d1", { assistant_message_id: "d1-a" }))).status).toBe(201);
    const dup = await api.post(`${nodes(c)}/n/turns`, turn("d1"));
    expect(dup.status).toBe(409);
    expect(dup.body.error.details[0]).toMatchObject({ field: "message_id", id: "d1" });
    const dupA = await api.post(`${nodes(c)}/n/turns`, turn("d2", { assistant_message_id: "d1-a" }));
    expect(dupA.status).toBe(409);
    expect(dupA.body.error.details[0].field).toBe("assistant_message_id");
    // The same id in another node is fine: each node has its own document.
    expect((await api.post(`${nodes(c)}/n2/turns`, turn("d1"))).status).toBe(201);

    const missing = await api.post(`${nodes(c)}/n/turns`, { message_id: "z" });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details.map((d: { field: string }) => d.field)).toEqual(expect.arrayContaining(["user_content", "assistant_content"]));
    const wrongApp = await api.post(`${nodes(c)}/n/turns`, turn("z", { app_id: "another-app" }));
    expect(wrongApp.status).toBe(422);
    expect(wrongApp.body.error.details[0].field).toBe("app_id");
    const file = await api.post(`${nodes(c)}/n/turns`, turn("z", { user_files: [{ transfer_method: "remote_url" }] }));
    expect(file.status).toBe(422);
    expect(file.body.error.details[0].field).toBe("user_files[0]");

    for (const badId of ["bad%20id", "a%2Fb", "x".repeat(201)]) {
      for (const r of [
        await api.post(`${nodes(c)}/${badId}/turns`, turn("q")),
        await api.get(`${nodes(c)}/${badId}`),
        await api.get(`${nodes(c)}/${badId}/history`),
        await api.del(`${nodes(c)}/${badId}`),
      ]) {
        expect(r.status).toBe(422);
        expect(r.body.error.details[0].field).toBe("node_id");
      }
    }
    expect((await api.get(`${nodes(c)}/no-such-node`)).status).toBe(404);
  });

  it("unknown or deleted conversations are 404 on every route; clear is 204 and idempotent", async () => {
    const ghost = randomUUID();
    expect((await api.del(`${nodes(ghost)}/n`)).status).toBe(404);
    expect((await api.post(`${nodes(ghost)}/n/turns`, turn("a"))).status).toBe(404);
    expect((await api.get(nodes(ghost))).status).toBe(404);
    expect((await api.get(`${nodes(ghost)}/n`)).status).toBe(404);
    expect((await api.get(`${nodes(ghost)}/n/history`)).status).toBe(404);
    expect((await api.del(`${nodes("not-a-uuid")}/n`)).status).toBe(404);

    const c = await conversation();
    await api.post(`${nodes(c)}/n/turns`, turn("a"));
    const cleared = await api.del(`${nodes(c)}/n`);
    expect(cleared.status).toBe(204);
    expect((await api.get(`${nodes(c)}/n`)).status).toBe(404);
    expect((await api.get(nodes(c))).body.data).toEqual([]);
    expect((await api.del(`${nodes(c)}/n`)).status).toBe(204);
    // After a clear the node starts again at version 1, and the old ids are free.
    const again = await api.post(`${nodes(c)}/n/turns`, turn("a"));
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ version: 1, message_count: 2 });

    expect((await api.del(`/conversations/${c}`)).status).toBe(204);
    expect((await api.del(`${nodes(c)}/n`)).status).toBe(404);
    expect((await api.get(nodes(c))).status).toBe(404);
    expect((await api.post(`${nodes(c)}/n/turns`, turn("b"))).status).toBe(404);
  });

  it("concurrent writers never lose a turn (optimistic versioning with retry)", async () => {
    const attempts = await concurrentWriters(api, await conversation());
    expect(Math.max(...attempts)).toBeLessThanOrEqual(30);
    // Through DATABASE_URL (a pool of connections) requests interleave between the read and the
    // conditional UPDATE, so writers do lose races: the retry path ran, and its attempts are
    // reported. The embedded database answers each short request before the next one reads, so
    // races are rare there; tests/unit/node-memory.test.ts forces them on PGlite.
    if (kind === "postgres") expect(attempts.filter((a) => a > 1).length, `attempts: ${attempts.join(",")}`).toBeGreaterThan(0);
  });

  oneKind("is in the OpenAPI document (NODE_MEMORY_OPS, tag node-memory)", async () => {
    const r = await api.get("/openapi.json");
    expect(r.status).toBe(200);
    const paths = r.body.paths;
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining(["/conversations/{id}/nodes", "/conversations/{id}/nodes/{node_id}", "/conversations/{id}/nodes/{node_id}/turns", "/conversations/{id}/nodes/{node_id}/history"]),
    );
    expect(paths["/conversations/{id}/nodes/{node_id}/turns"].post.tags).toEqual(["node-memory"]);
    expect(Object.keys(paths["/conversations/{id}/nodes/{node_id}"])).toEqual(expect.arrayContaining(["get", "delete"]));
    const params = paths["/conversations/{id}/nodes/{node_id}/history"].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(expect.arrayContaining(["id", "node_id", "current_message_id", "max_token_limit", "model"]));
  });
});

/**
 * One turn creates the node; then 2 parallel batches of 25 writers append distinct turns to it
 * at once, all racing on the version check of the same row. Returns each racing write's attempts.
 */
async function concurrentWriters(api: ReturnType<typeof apiClient>, c: string): Promise<number[]> {
  const path = `/conversations/${c}/nodes/busy/turns`;
  const turn = (id: string) => ({ message_id: id, parent_message_id: null, user_content: `question ${id}`, assistant_content: `answer ${id}` });
  const first = await api.post(path, turn("first"));
  expect(first.body).toMatchObject({ version: 1, attempts: 1 });
  const batch = (b: number) => Promise.all(Array.from({ length: 25 }, (_, i) => api.post(path, turn(`b${b}-w${i}`))));
  const results = (await Promise.all([batch(0), batch(1)])).flat();
  expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
  // Every write landed on its own version: 2..51, each exactly once.
  expect(results.map((r) => r.body.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 2));
  // Each writer's message_count is the document size right after its own write.
  for (const r of results) expect(r.body.message_count).toBe(2 * r.body.version);

  const doc = await api.get(`/conversations/${c}/nodes/busy`);
  expect(doc.body).toMatchObject({ version: 51, message_count: 102, turn_count: 51 });
  const ids = doc.body.document.messages.filter((m: { role: string }) => m.role === "user").map((m: { message_id: string }) => m.message_id);
  expect(new Set(ids).size).toBe(51);
  expect(ids[0]).toBe("first");
  expect([...ids.slice(1)].sort()).toEqual(results.map((r) => r.body.messages[0].message_id).sort());
  // Document order is commit order: the i-th turn was written by the writer that got version i.
  const byVersion = [...results].sort((a, b) => a.body.version - b.body.version).map((r) => r.body.messages[0].message_id);
  expect(ids.slice(1)).toEqual(byVersion);

  // Omitted parents under contention still form one chain (each under the turn before it).
  const chainPath = `/conversations/${c}/nodes/chain/turns`;
  const chained = await Promise.all(
    Array.from({ length: 10 }, (_, i) => api.post(chainPath, { message_id: `c${i}`, user_content: `q${i}`, assistant_content: `a${i}` })),
  );
  expect(chained.every((r) => r.status === 201)).toBe(true);
  const h = await api.get(`/conversations/${c}/nodes/chain/history?max_token_limit=100000`);
  expect(h.body.thread_message_ids).toHaveLength(10);
  return results.map((r) => r.body.attempts);
}
