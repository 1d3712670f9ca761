import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import type { Owner } from "../helpers/owner";
import { DATABASE_KINDS } from "../helpers/test-database";

// Ids a client chooses (conversations, messages, node turns, an import's source ids) are
// unique per project. Project B sending an id that project A holds gets exactly the answer
// it gets for an id nobody holds (status and body, ids and times aside), so B learns nothing
// about A; and afterwards both rows live side by side: each project reads, lists, changes,
// deletes and appends to its own, and A's is unchanged. Each test makes its own projects.

type Answer = { status: number; json: any; text: string };

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A body with its ids and times blanked: what remains must not depend on which id was sent. */
function shape(v: unknown): unknown {
  if (typeof v === "string") return ISO_TIME.test(v) ? "<time>" : v.replace(UUID, "<id>");
  if (Array.isArray(v)) return v.map(shape);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, shape(x)]));
  return v;
}
const seen = (r: Answer) => ({ status: r.status, body: shape(r.json) });

const fixture = (name: string) => fs.readFileSync(path.join(__dirname, "../fixtures/imports", name), "utf8");
// Ids in tests/fixtures/imports/dify-api.json.
const C1 = "3f1c2a90-5b7e-4d21-9c3a-0a1b2c3d4e01";
const M01 = "7a0d9e4c-1111-4c5a-8d2e-000000000001";

describe.each(DATABASE_KINDS)("client-chosen ids are per project, on %s", (kind) => {
  let app: SharedProject;
  let owner: Owner;

  beforeAll(async () => {
    app = await sharedProject(kind, "project-scoped-ids");
    owner = app.owner;
  }, 240_000);
  afterAll(() => app?.stop());

  /** A new project and a key of it with every scope. */
  const newProject = async (name: string) => {
    const p = await owner.post("/projects", { name });
    return owner.key(`${name}-key`, ["read", "write", "admin"], p.id);
  };
  /** Two fresh projects: A holds the ids, B probes them. */
  const twoProjects = async (what: string) => ({ keyA: await newProject(`${what} A`), keyB: await newProject(`${what} B`) });

  const call = async (key: string, method: string, p: string, body?: unknown): Promise<Answer> => {
    const r = await fetch(`${app.url}/api/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, text, json: text && (r.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : null };
  };
  /** A call that must succeed (setup and reads of a project's own rows). */
  const ok = async (key: string, method: string, p: string, body?: unknown) => {
    const r = await call(key, method, p, body);
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${r.text}`);
    return r.json;
  };
  const conversation = (key: string, id: string, name: string) => ok(key, "POST", "/conversations", { id, app_id: "ids-app", end_user_id: "ids-user", name });
  const turn = (key: string, conv: string, body: Record<string, unknown>) => ok(key, "POST", `/conversations/${conv}/messages`, body);
  const messageIds = async (key: string, conv: string) => (await ok(key, "GET", `/conversations/${conv}/messages?limit=1000`)).data.map((m: { id: string }) => m.id);

  it("POST /conversations: A's id answers B as a fresh id does; both conversations then live side by side", async () => {
    const { keyA, keyB } = await twoProjects("conversations");
    const X = randomUUID();
    await conversation(keyA, X, "A's conversation");
    await turn(keyA, X, { query: "a question of A", answer: "an answer of A" });
    const aBefore = await ok(keyA, "GET", `/conversations/${X}`);

    const body = { app_id: "ids-app", end_user_id: "ids-user", name: "B's conversation", mode: "chat" };
    const fresh = await call(keyB, "POST", "/conversations", { ...body, id: randomUUID() });
    const taken = await call(keyB, "POST", "/conversations", { ...body, id: X });
    expect(fresh.status).toBe(201);
    expect(seen(taken)).toEqual(seen(fresh));
    expect(taken.json.id).toBe(X);
    // Taken in B itself now: B's own id is a conflict, as before.
    expect((await call(keyB, "POST", "/conversations", { ...body, id: X })).status).toBe(409);

    // Each project reads its own X.
    expect(await ok(keyB, "GET", `/conversations/${X}`)).toMatchObject({ id: X, name: "B's conversation", turn_count: 0 });
    expect(await ok(keyA, "GET", `/conversations/${X}`)).toEqual(aBefore);
    const listB = (await ok(keyB, "GET", "/conversations?limit=200")).data.filter((c: { id: string }) => c.id === X);
    const listA = (await ok(keyA, "GET", "/conversations?limit=200")).data.filter((c: { id: string }) => c.id === X);
    expect(listB.map((c: { name: string }) => c.name)).toEqual(["B's conversation"]);
    expect(listA.map((c: { name: string }) => c.name)).toEqual(["A's conversation"]);
    expect((await ok(keyB, "GET", `/conversations?q=${X}`)).data).toHaveLength(1);

    // B changes and deletes its X; A's stays as it was.
    expect(await ok(keyB, "PATCH", `/conversations/${X}`, { name: "renamed by B", status: "archived" })).toMatchObject({ name: "renamed by B", status: "archived" });
    expect(await ok(keyA, "GET", `/conversations/${X}`)).toEqual(aBefore);
    expect((await call(keyB, "DELETE", `/conversations/${X}`)).status).toBe(204);
    expect((await call(keyB, "GET", `/conversations/${X}`)).status).toBe(404);
    expect(await ok(keyA, "GET", `/conversations/${X}`)).toEqual(aBefore);
    expect(await messageIds(keyA, X)).toHaveLength(1);
  });

  it("POST /messages: a message id A holds answers B as a fresh id does; threads, lists and trees stay in their project", async () => {
    const { keyA, keyB } = await twoProjects("messages");
    const X = randomUUID();
    const [m0, m1, m2, m3] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await conversation(keyA, X, "A");
    await turn(keyA, X, { id: m1, query: "A one", answer: "A one answered" });
    await turn(keyA, X, { id: m2, query: "A two", answer: "A two answered" });
    const W = randomUUID();
    await conversation(keyA, W, "A");
    await turn(keyA, W, { id: m0, query: "A zero", answer: "A zero answered" });
    const aMessages = await ok(keyA, "GET", `/conversations/${X}/messages`);
    const aThread = await ok(keyA, "GET", `/conversations/${X}/thread`);

    // The same first turn in two conversations of B: one with a fresh id, one with A's m0.
    const [y1, y2] = [randomUUID(), randomUUID()];
    await conversation(keyB, y1, "B");
    await conversation(keyB, y2, "B");
    const first = { query: "B one", answer: "B one answered" };
    const fresh = await call(keyB, "POST", `/conversations/${y1}/messages`, { ...first, id: randomUUID() });
    const taken = await call(keyB, "POST", `/conversations/${y2}/messages`, { ...first, id: m0 });
    expect(fresh.status).toBe(201);
    expect(seen(taken)).toEqual(seen(fresh));

    // A parent that only A has is unknown to B, as an id nobody has.
    const orphanFresh = await call(keyB, "POST", `/conversations/${y1}/messages`, { query: "q", answer: "a", parent_message_id: randomUUID() });
    const orphanTaken = await call(keyB, "POST", `/conversations/${y1}/messages`, { query: "q", answer: "a", parent_message_id: m2 });
    expect(orphanFresh.status).toBe(422);
    expect(seen(orphanTaken)).toEqual(seen(orphanFresh));

    // B's own X with A's ids: the tree resolves parents within B's conversation.
    await conversation(keyB, X, "B");
    await turn(keyB, X, { id: m1, query: "B one", answer: "B one answered" });
    const b2 = await turn(keyB, X, { id: m2, query: "B two", answer: "B two answered" });
    const b3 = await turn(keyB, X, { id: m3, query: "B branch", answer: "B branch answered", parent_message_id: m1 });
    expect(b2).toMatchObject({ parent_message_id: m1, tree_parent_id: m1, conversation_id: X });
    expect(b3).toMatchObject({ parent_message_id: m1, tree_parent_id: m1 });
    expect((await ok(keyB, "GET", `/conversations/${X}`)).branch_count).toBe(2);
    expect(await ok(keyB, "GET", `/conversations/${X}/thread`)).toEqual({ leaf_message_id: m3, message_ids: [m3, m1] });
    expect(await ok(keyB, "GET", `/conversations/${X}/thread?leaf_message_id=${m2}`)).toEqual({ leaf_message_id: m2, message_ids: [m2, m1] });
    const bMessages = (await ok(keyB, "GET", `/conversations/${X}/messages`)).data;
    expect(bMessages.map((m: { query: string }) => m.query)).toEqual(["B one", "B two", "B branch"]);
    const history = await ok(keyB, "GET", `/conversations/${X}/history?leaf_message_id=${m2}`);
    expect(history.thread_message_ids).toEqual([m2, m1]);
    expect(JSON.stringify(history.messages)).not.toContain("A one");
    const context = await ok(keyB, "POST", "/context", { user_id: "ids-user", conversation_id: X, leaf_message_id: m2, query: "next", strategy: { type: "token_buffer", max_token_limit: 2000 } });
    expect(JSON.stringify(context)).not.toMatch(/A (one|two)/);

    // A's conversation, its turns and its tree are as they were.
    expect(await ok(keyA, "GET", `/conversations/${X}/messages`)).toEqual(aMessages);
    expect(await ok(keyA, "GET", `/conversations/${X}/thread`)).toEqual(aThread);
    expect((await ok(keyA, "GET", `/conversations/${X}`)).turn_count).toBe(2);
    // A leaf only B has is unknown to A, as an id nobody has.
    const leafFresh = await call(keyA, "GET", `/conversations/${X}/thread?leaf_message_id=${randomUUID()}`);
    const leafB = await call(keyA, "GET", `/conversations/${X}/thread?leaf_message_id=${m3}`);
    expect(leafFresh.status).toBe(404);
    expect(seen(leafB)).toEqual(seen(leafFresh));
  });

  it("POST /messages/batch: ids A holds answer B as fresh ids do, full and minimal", async () => {
    const { keyA, keyB } = await twoProjects("batch");
    const X = randomUUID();
    const ids = Array.from({ length: 6 }, () => randomUUID());
    await conversation(keyA, X, "A");
    await ok(keyA, "POST", `/conversations/${X}/messages/batch`, {
      messages: ids.map((id, i) => ({ id, query: `A ${i}`, answer: `A answer ${i}` })),
    });
    const aMessages = await ok(keyA, "GET", `/conversations/${X}/messages`);

    for (const [ret, held] of [["full", ids.slice(0, 3)], ["minimal", ids.slice(3)]] as const) {
      const batch = (turnIds: string[]) => ({
        return: ret,
        messages: turnIds.map((id, i) => ({ id, query: `B ${i}`, answer: `B answer ${i}`, ...(i === 2 ? { parent_message_id: turnIds[0] } : {}) })),
      });
      const [y1, y2] = [randomUUID(), randomUUID()];
      await conversation(keyB, y1, "B");
      await conversation(keyB, y2, "B");
      const fresh = await call(keyB, "POST", `/conversations/${y1}/messages/batch`, batch([randomUUID(), randomUUID(), randomUUID()]));
      const taken = await call(keyB, "POST", `/conversations/${y2}/messages/batch`, batch(held));
      expect(fresh.status, ret).toBe(201);
      expect(seen(taken), ret).toEqual(seen(fresh));
      // Sent again within B, the same ids are B's own now: a conflict naming each.
      const again = await call(keyB, "POST", `/conversations/${y1}/messages/batch`, batch(held));
      expect(again.status, ret).toBe(409);
      expect(again.json.error.details.map((d: { field: string }) => d.field)).toEqual(["messages[0].id", "messages[1].id", "messages[2].id"]);
    }
    expect(await ok(keyA, "GET", `/conversations/${X}/messages`)).toEqual(aMessages);
  });

  it("node memory: the same conversation id, node id and message ids in both projects are two documents", async () => {
    const { keyA, keyB } = await twoProjects("nodes");
    const X = randomUUID();
    const [k1, k2] = [randomUUID(), randomUUID()];
    await conversation(keyA, X, "A");
    await ok(keyA, "POST", `/conversations/${X}/nodes/llm-1/turns`, { message_id: k1, assistant_message_id: k2, user_content: "A asks", assistant_content: "A hears" });
    const aNode = await ok(keyA, "GET", `/conversations/${X}/nodes/llm-1`);

    const turnBody = (ids: [string, string]) => ({ message_id: ids[0], assistant_message_id: ids[1], user_content: "B asks", assistant_content: "B hears" });
    const y = randomUUID();
    await conversation(keyB, y, "B");
    await conversation(keyB, X, "B");
    const fresh = await call(keyB, "POST", `/conversations/${y}/nodes/llm-1/turns`, turnBody([randomUUID(), randomUUID()]));
    const taken = await call(keyB, "POST", `/conversations/${X}/nodes/llm-1/turns`, turnBody([k1, k2]));
    expect(fresh.status).toBe(201);
    expect(seen(taken)).toEqual(seen(fresh));

    const bNode = await ok(keyB, "GET", `/conversations/${X}/nodes/llm-1`);
    expect(bNode.document.messages.map((m: { content: unknown }) => m.content)).toEqual(["B asks", "B hears"]);
    expect((await ok(keyB, "GET", `/conversations/${X}/nodes`)).data).toHaveLength(1);
    expect(await ok(keyA, "GET", `/conversations/${X}/nodes/llm-1`)).toEqual(aNode);
    // B clears its node; A's is still there.
    expect((await call(keyB, "DELETE", `/conversations/${X}/nodes/llm-1`)).status).toBe(204);
    expect((await call(keyB, "GET", `/conversations/${X}/nodes/llm-1`)).status).toBe(404);
    expect(await ok(keyA, "GET", `/conversations/${X}/nodes/llm-1`)).toEqual(aNode);
  });

  it("a conversation id in a memory body (source_session_id, conversation_id) is B's own or unknown, never A's", async () => {
    const { keyA, keyB } = await twoProjects("memory refs");
    const X = randomUUID();
    await conversation(keyA, X, "A");
    const user = "/users/ids-user";
    const save = (conv: string) => call(keyB, "POST", `${user}/memories`, { memory_type: "fact", content: `B knows a fact ${randomUUID()}`, source_session_id: conv });
    const search = (conv: string) => call(keyB, "POST", `${user}/memories/search`, { query: "fact", conversation_id: conv });
    const extract = (conv: string) => call(keyB, "POST", `${user}/memories/extract`, { conversation_id: conv });
    for (const [name, send] of [["save", save], ["search", search], ["extract", extract]] as const) {
      const fresh = await send(randomUUID());
      const taken = await send(X);
      expect(fresh.status, name).toBeGreaterThanOrEqual(400);
      expect(seen(taken), name).toEqual(seen(fresh));
    }
    // Once B has its own X, the memory refers to B's X: listed under B's X, not A's.
    await conversation(keyB, X, "B");
    const saved = await save(X);
    expect(saved.status).toBe(201);
    expect((await ok(keyB, "GET", `/conversations/${X}/memories`)).extracted.map((m: { id: string }) => m.id)).toContain(saved.json.id);
    expect((await ok(keyA, "GET", `/conversations/${X}/memories`)).extracted).toEqual([]);
    expect((await ok(keyB, "GET", `/memories/${saved.json.id}/origin`)).conversation).toEqual({ id: X, name: "B", deleted: false });
  });

  it("imports: a file whose ids A holds imports into B under the file's own ids, exactly as into A", async () => {
    const { keyA, keyB } = await twoProjects("imports");
    const runImport = async (key: string) => {
      const started = await ok(key, "POST", "/imports", { content: fixture("dify-api.json"), file_name: "dify-api.json" });
      for (const deadline = Date.now() + 60_000; ; ) {
        const job = await ok(key, "GET", `/imports/${started.id}`);
        if (job.status === "done" || job.status === "failed") return job;
        if (Date.now() > deadline) throw new Error(`import still ${job.status}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const inA = await runImport(keyA);
    const aConversation = await ok(keyA, "GET", `/conversations/${C1}`);
    const inB = await runImport(keyB);
    const pick = (j: any) => ({ status: j.status, counts: j.counts, problems: shape(j.problems) });
    expect(pick(inB)).toEqual(pick(inA));
    expect(inB.counts.conversations).toBe(2);

    // B's copy has the source's ids, as A's has; each grows on its own.
    expect(await messageIds(keyB, C1)).toEqual(await messageIds(keyA, C1));
    expect((await messageIds(keyB, C1))[0]).toBe(M01);
    await turn(keyB, C1, { query: "only in B", answer: "B's answer" });
    expect((await ok(keyB, "GET", `/conversations/${C1}`)).turn_count).toBe(aConversation.turn_count + 1);
    expect(await ok(keyA, "GET", `/conversations/${C1}`)).toEqual(aConversation);
  });

  // Issue 39: memories, their history, relations, retrievals, review items and offloaded
  // contents had ids unique across projects, so a user export carrying an id another project
  // held answered 409 where a fresh id answered 201.
  it("POST /user-imports: a document with every kind of id A holds answers B as one with fresh ids does; both copies live side by side", async () => {
    const { keyA, keyB } = await twoProjects("user imports");
    const user = `export-${randomUUID().slice(0, 8)}`;
    const conv = await ok(keyA, "POST", "/conversations", { app_id: "ids-app", end_user_id: user, name: "A's chat" });
    await ok(keyA, "POST", `/conversations/${conv.id}/messages/batch`, { messages: [{ query: "hello", answer: "words ".repeat(200) }] });
    const m1 = await ok(keyA, "POST", `/users/${user}/memories`, { memory_type: "fact", content: "Prefers green tea over coffee" });
    const m2 = await ok(keyA, "POST", `/users/${user}/memories`, { memory_type: "fact", content: "Prefers green tea over coffee in the morning", dedupe_threshold: 0.3 });
    await ok(keyA, "POST", `/memories/${m1.id}/relations`, { target_id: m2.id, relation_type: "supports" });
    await ok(keyA, "POST", `/users/${user}/memories/search`, { query: "tea", conversation_id: conv.id });
    await ok(keyA, "POST", "/context", {
      user_id: user,
      conversation_id: conv.id,
      query: "context",
      strategy: { type: "summary_buffer", msg_threshold: 1, last_keep: 10, offload_tokens: 50 },
    });
    const doc = await ok(keyA, "GET", `/users/${user}/export`);
    for (const t of ["memories", "memory_events", "memory_relations", "memory_retrievals", "memory_retrieval_hits", "memory_review_items", "offloaded_contents"]) {
      expect(doc.tables[t]?.length, t).toBeGreaterThan(0);
    }

    // The same document with every id replaced by a fresh one (the same fresh one wherever it recurs).
    const fresh = new Map<string, string>();
    const renamed = JSON.parse(
      JSON.stringify(doc).replace(UUID, (id: string) => {
        if (!fresh.has(id)) fresh.set(id, randomUUID());
        return fresh.get(id)!;
      }),
    );
    const answerFresh = await call(keyB, "POST", "/user-imports", renamed);
    const answerTaken = await call(keyB, "POST", "/user-imports", doc);
    expect(answerFresh.status, answerFresh.text).toBe(201);
    expect(seen(answerTaken)).toEqual(seen(answerFresh));
    // Taken in B itself now: the same document again is a conflict, as before.
    expect((await call(keyB, "POST", "/user-imports", doc)).status).toBe(409);

    // Each project reads its own copy; B's changes leave A's alone.
    expect(await ok(keyB, "GET", `/memories/${m1.id}`)).toMatchObject({ id: m1.id, content: "Prefers green tea over coffee" });
    const aMemory = await ok(keyA, "GET", `/memories/${m1.id}`);
    await ok(keyB, "PATCH", `/memories/${m1.id}`, { content: "Prefers black tea", version: aMemory.version });
    expect(await ok(keyA, "GET", `/memories/${m1.id}`)).toEqual(aMemory);
    await ok(keyB, "POST", `/memories/${m1.id}/archive`, {});
    expect((await call(keyB, "DELETE", `/memories/${m1.id}?confirm=true`)).status).toBe(204);
    expect((await call(keyB, "GET", `/memories/${m1.id}`)).status).toBe(404);
    expect(await ok(keyA, "GET", `/memories/${m1.id}`)).toEqual(aMemory);
    expect((await ok(keyA, "GET", `/memories/${m1.id}/history`)).data.length).toBeGreaterThan(0);
  });
});
