import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import { ONE_KIND } from "../helpers/test-database";

// The access rule: a search marks the memories it returns as accessed, and last_accessed_at is
// the recency term of every later search. A key with only `read` may search (and assemble
// /context), its retrieval is logged, but it must not change what others retrieve: only a
// caller that also holds `write` records access.

// A scope rule (whether a caller records access), not the database's: one kind (the rule is in
// tests/helpers/test-database.ts); marking accessed is written on both kinds by memory-as-of.test.ts.
describe.each(ONE_KIND)("read-only retrieval on %s", (kind) => {
  let app: SharedProject;
  let reader: ReturnType<typeof apiClient>;
  let writer: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    app = await sharedProject(kind, "read-only-retrieval");
    const owner = app.owner;
    reader = apiClient(app.url, { authorization: `Bearer ${await owner.key("reader", ["read"])}` });
    writer = apiClient(app.url, { authorization: `Bearer ${await owner.key("writer", ["read", "write"])}` });
  });
  afterAll(() => app?.stop());

  /** A user of its own with one memory, as the writer saves it. */
  async function memoryOfNewUser(): Promise<{ user: string; id: string }> {
    const user = `ro-${randomUUID().slice(0, 8)}`;
    const r = await writer.post(`/users/${user}/memories`, { memory_type: "fact", content: "Keeps bees on the roof", importance_score: 0.6 });
    expect(r.status).toBe(201);
    return { user, id: r.body.memory?.id ?? r.body.id };
  }
  const accessOf = async (id: string) => {
    const m = (await reader.get(`/memories/${id}`)).body;
    return { access_count: m.access_count, last_accessed_at: m.last_accessed_at };
  };
  const loggedRetrievals = async (id: string) => (await reader.get(`/memories/${id}/accesses`)).body.data.map((a: { retrieval_id: string }) => a.retrieval_id);

  it("a search with a read-only key is answered and logged, and marks nothing accessed", async () => {
    const { user, id } = await memoryOfNewUser();
    const r = await reader.post(`/users/${user}/memories/search`, { query: "who keeps bees?" });
    expect(r.status).toBe(200);
    expect(r.body.data.map((h: { memory: { id: string } }) => h.memory.id)).toEqual([id]);
    expect(await accessOf(id)).toEqual({ access_count: 0, last_accessed_at: null });
    expect(await loggedRetrievals(id)).toEqual([r.body.retrieval_id]);
    expect(r.body.access_recorded).toBe(false);
  });

  it("the same search with a key holding write marks the result accessed", async () => {
    const { user, id } = await memoryOfNewUser();
    const r = await writer.post(`/users/${user}/memories/search`, { query: "who keeps bees?" });
    expect(r.body.access_recorded).toBe(true);
    const after = await accessOf(id);
    expect(after.access_count).toBe(1);
    expect(after.last_accessed_at).not.toBeNull();
    // A dry run records nothing, whoever asks.
    const dry = await writer.post(`/users/${user}/memories/search`, { query: "who keeps bees?", dry_run: true });
    expect(dry.body.access_recorded).toBe(false);
    expect((await accessOf(id)).access_count).toBe(1);
  });

  it("/context with a read-only key retrieves and logs, and marks nothing accessed; with write it does", async () => {
    const { user, id } = await memoryOfNewUser();
    const body = { user_id: user, query: "who keeps bees?", strategy: { type: "token_buffer", max_token_limit: 100 } };
    const read = await reader.post("/context", body);
    expect(read.status).toBe(200);
    expect(read.body.memories.map((m: { id: string }) => m.id)).toEqual([id]);
    expect(await accessOf(id)).toEqual({ access_count: 0, last_accessed_at: null });
    expect(await loggedRetrievals(id)).toEqual([read.body.retrieval_id]);
    expect(read.body.memory_access_recorded).toBe(false);

    const write = await writer.post("/context", body);
    expect(write.body.memory_access_recorded).toBe(true);
    expect((await accessOf(id)).access_count).toBe(1);
  });

  it("the rule is in the routes' OpenAPI descriptions", async () => {
    const doc = await (await fetch(`${app.url}/api/v1/openapi.json`)).json();
    for (const [path, method] of [["/users/{user_id}/memories/search", "post"], ["/context", "post"]] as const) {
      expect(doc.paths[path][method].description, path).toMatch(/only a caller that also holds `write` marks/i);
    }
    expect(doc.paths["/window"].post.description).toMatch(/`read` grant/);
    expect(doc.paths["/users/{user_id}/memory-md/preview"].post.description).toMatch(/Nothing is written/);
  });
});
