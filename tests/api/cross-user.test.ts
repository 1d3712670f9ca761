import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemscope, type MemscopeClient } from "@/sdk/typescript/src/index";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import { ONE_KIND } from "../helpers/test-database";

// Within one project, a request that names a user and a conversation must not mix two
// people: /context, search, memory create and extract refuse another end user's
// conversation with a 422 naming the field, and write nothing.

// Refusals decided before any write: one database kind (the rule is in tests/helpers/test-database.ts).
describe.each(ONE_KIND)("one user's request never uses another user's conversation, on %s", (kind) => {
  let server: SharedProject;
  let api: MemscopeClient;
  const alice = `alice-${randomUUID().slice(0, 6)}`;
  const bob = `bob-${randomUUID().slice(0, 6)}`;
  let aliceConv: string;

  beforeAll(async () => {
    server = await sharedProject(kind, "cross-user");
    api = createMemscope({ baseUrl: server.url, apiKey: server.key });
    const c = await api.POST("/conversations", { body: { app_id: "x", end_user_id: alice, name: "Alice's" } });
    aliceConv = c.data!.id;
    await api.POST("/conversations/{id}/messages/batch", {
      params: { path: { id: aliceConv } },
      body: { messages: [{ query: "My name is Alice and I prefer tea", answer: "Noted." }] },
    });
    await api.POST("/users/{user_id}/memories", { params: { path: { user_id: bob } }, body: { memory_type: "fact", content: "Bob likes chess" } });
  });
  afterAll(async () => server?.stop());

  const fieldsOf = (error: unknown) => (error as { error: { details: { field: string }[] } }).error.details.map((d) => d.field);

  it("/context as Bob with Alice's conversation is 422 naming conversation_id", async () => {
    const r = await api.POST("/context", {
      body: { user_id: bob, conversation_id: aliceConv, query: "hi", strategy: { type: "token_buffer", max_token_limit: 1000 } },
    });
    expect(r.response.status).toBe(422);
    expect(fieldsOf(r.error)).toEqual(["conversation_id"]);
    const own = await api.POST("/context", {
      body: { user_id: alice, conversation_id: aliceConv, query: "hi", strategy: { type: "token_buffer", max_token_limit: 1000 } },
    });
    expect(own.response.status).toBe(200);
  });

  it("search as Bob with Alice's conversation_id is 422 and logs no retrieval", async () => {
    const before = await api.GET("/users/{user_id}/memories/metrics", { params: { path: { user_id: bob } } });
    const r = await api.POST("/users/{user_id}/memories/search", { params: { path: { user_id: bob } }, body: { query: "chess", conversation_id: aliceConv } });
    expect(r.response.status).toBe(422);
    expect(fieldsOf(r.error)).toEqual(["conversation_id"]);
    const after = await api.GET("/users/{user_id}/memories/metrics", { params: { path: { user_id: bob } } });
    expect(after.data).toEqual(before.data);
    const unknown = await api.POST("/users/{user_id}/memories/search", {
      params: { path: { user_id: bob } },
      body: { query: "chess", conversation_id: randomUUID() },
    });
    expect(unknown.response.status).toBe(422);
  });

  it("a memory of Bob cannot name Alice's conversation as its source, and nothing is saved", async () => {
    const r = await api.POST("/users/{user_id}/memories", {
      params: { path: { user_id: bob } },
      body: { memory_type: "fact", content: "Prefers tea", source_session_id: aliceConv },
    });
    expect(r.response.status).toBe(422);
    expect(fieldsOf(r.error)).toEqual(["source_session_id"]);
    const list = await api.GET("/users/{user_id}/memories", { params: { path: { user_id: bob }, query: { q: "tea" } } });
    expect(list.data!.data).toEqual([]);
  });

  it("extracting Alice's conversation into Bob's memories is 422", async () => {
    const r = await api.POST("/users/{user_id}/memories/extract", { params: { path: { user_id: bob } }, body: { conversation_id: aliceConv } });
    expect(r.response.status).toBe(422);
    expect(fieldsOf(r.error)).toEqual(["conversation_id"]);
  });
});
