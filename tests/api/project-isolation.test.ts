import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppServer } from "../helpers/app-server";
import { OWNER_ENV, signInOwner } from "../helpers/owner";
import { DATABASE_KINDS, startAppOn } from "../helpers/test-database";

// Two projects on one server: project `default` (A, with the demo data) and a project B
// made by the owner. Generated from the live openapi.json, so a new route is covered by
// default: every operation is sent with B's key, with A's real ids in the path and in a
// body built from the operation's own schema. Operations on an id of A answer 404; any
// operation B may do in its own namespace (a user's list, a search, a new conversation)
// answers without a trace of A's rows; and afterwards nothing of A has changed. A's data is
// made once (beforeAll) and only read by the tests; each test makes a fresh project B of its own.


type Schema = Record<string, any>;
type Op = { method: string; path: string; op: Schema };

describe.each(DATABASE_KINDS)("project isolation, on %s", (kind) => {
  let app: AppServer;
  let keyA = "";
  let owner: Awaited<ReturnType<typeof signInOwner>>;
  let ops: Op[] = [];
  // A's real ids and texts: none may reach B.
  const a = { user: "", conversation: "", message: "", memory: "", other: "", relation: "", item: "", batch: "", node: "isolation-node", app: "isolation-app", contents: [] as string[] };

  /** A JSON body, or raw bytes (a Uint8Array: an upload's application/octet-stream). */
  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const raw = body instanceof Uint8Array;
    const r = await fetch(`${app.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": raw ? "application/octet-stream" : "application/json" }) },
      body: body === undefined ? undefined : raw ? (body as Uint8Array<ArrayBuffer>) : JSON.stringify(body),
    });
    const text = await r.text();
    const json = (r.headers.get("content-type") ?? "").includes("json") && text ? (JSON.parse(text) as any) : null;
    return { status: r.status, text, json };
  };
  const asA = async (method: string, path: string, body?: unknown) => {
    const r = await call(keyA, method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path} as A: ${r.status} ${r.text}`);
    return r.json;
  };

  /** What A can read about its own data; compared before and after B's requests. */
  const snapshotA = async () =>
    Promise.all(
      [
        `/conversations/${a.conversation}`,
        `/conversations/${a.conversation}/messages?limit=500`,
        `/conversations/${a.conversation}/nodes/${a.node}`,
        `/memories/${a.memory}`,
        `/memories/${a.other}`,
        `/memories/${a.memory}/history`,
        `/memories/${a.memory}/relations?include_removed=true`,
        `/users/${encodeURIComponent(a.user)}/memories?status=all&limit=200`,
        `/users/${encodeURIComponent(a.user)}/review?status=open`,
        "/memory-users",
        "/settings/models",
        `/profiles/${a.app}`,
      ].map(async (p) => JSON.stringify(await asA("GET", p))),
    );

  beforeAll(async () => {
    app = await startAppOn(kind, { seed: true, env: OWNER_ENV });
    owner = await signInOwner(app.url);
    keyA = await owner.key("a-all", ["read", "write", "admin"]);

    // A's data: the demo conversations and memories, plus a relation, a node memory, a
    // bulk batch and an open review item made here so that every kind of id exists.
    const users = (await asA("GET", "/memory-users")).data as { user_id: string; active: number }[];
    a.user = users.find((u) => u.active >= 2)!.user_id;
    const memories = (await asA("GET", `/users/${encodeURIComponent(a.user)}/memories?limit=2`)).data;
    [a.memory, a.other] = memories.map((m: { id: string }) => m.id);
    a.contents = memories.map((m: { content: string }) => m.content);
    const conversations = (await asA("GET", "/conversations?limit=50")).data as { id: string; turn_count: number }[];
    a.conversation = conversations.find((c) => c.turn_count > 0)!.id;
    a.message = (await asA("GET", `/conversations/${a.conversation}/messages?limit=1`)).data[0].id;
    a.relation = (await asA("POST", `/memories/${a.memory}/relations`, { target_id: a.other, relation_type: "supports", strength: 0.5 })).id;
    await asA("POST", `/conversations/${a.conversation}/nodes/${a.node}/turns`, { message_id: randomUUID(), user_content: "node question", assistant_content: "node answer" });
    a.batch = (await asA("POST", `/users/${encodeURIComponent(a.user)}/memories/bulk`, { action: "set_importance", ids: [a.other], importance_score: 0.41 })).batch_id;
    await asA("POST", `/profiles/${a.app}/versions`, { settings: { strategy: { type: "message_window" }, system_prompt: "A's agent" } });
    // A near duplicate saved without a chat model is kept and queued for review.
    const near = await asA("POST", `/users/${encodeURIComponent(a.user)}/memories`, { memory_type: "fact", content: `${a.contents[0]} (said again)`, dedupe_threshold: 0.3 });
    a.contents.push(near.content);
    const review = (await asA("GET", `/users/${encodeURIComponent(a.user)}/review?status=open`)).data;
    a.item = review[0]?.id ?? "";

    const doc = await (await fetch(`${app.url}/api/v1/openapi.json`)).json();
    for (const [path, byMethod] of Object.entries<Record<string, Schema>>(doc.paths)) {
      for (const [method, op] of Object.entries<Schema>(byMethod)) {
        if (!["get", "post", "put", "patch", "delete"].includes(method) || op["x-scope"] === "public") continue;
        // /project/* acts on the caller's own project by definition (the access matrix covers their ids).
        if (path === "/project" || path.startsWith("/project/") || path === "/projects") continue;
        ops.push({ method: method.toUpperCase(), path, op });
      }
    }
  }, 240_000);
  afterAll(() => app?.stop());

  /** A new, empty project B and its key (named b-all, with every scope). */
  const newProjectB = async () => {
    const b = await owner.post("/projects", { name: "Project B" });
    return owner.key("b-all", ["read", "write", "admin"], b.id);
  };

  /** A's id for a path parameter (user_id and app_id are names, not ids: B has its own namespace of users and apps). */
  const pathValue = (path: string, name: string): string => {
    if (name === "user_id") return encodeURIComponent(a.user);
    if (name === "app_id") return a.app;
    if (name === "node_id") return a.node;
    if (name === "relation_id") return a.relation;
    if (name === "item_id") return a.item || a.memory;
    if (name === "batch_id") return a.batch;
    if (path.startsWith("/conversations/")) return a.conversation;
    if (path.startsWith("/memories/")) return a.memory;
    return a.memory; // /imports/{id}, /offloaded/{ref}: any id of A's is as good as unknown to B
  };

  /** A minimal valid value for a JSON schema, with A's ids wherever a field names an id. */
  const example = (s: Schema | undefined, field = ""): unknown => {
    if (!s) return null;
    if (s.const !== undefined) return s.const;
    if (s.default !== undefined && !/_id$|^ids$/.test(field)) return s.default;
    if (s.enum) return s.enum[0];
    const alt = s.anyOf ?? s.oneOf;
    if (alt) return example(alt.find((x: Schema) => x.type !== "null") ?? alt[0], field);
    if (s.allOf) return Object.assign({}, ...s.allOf.map((x: Schema) => example(x, field)));
    const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
    if (/conversation_id|source_session_id/.test(field)) return a.conversation;
    if (/message_id/.test(field)) return a.message;
    if (/memory_id|target_id|other_memory_id/.test(field)) return a.other;
    if (field === "user_id") return a.user;
    switch (type) {
      case "object": {
        const out: Record<string, unknown> = {};
        for (const k of s.required ?? []) out[k] = example(s.properties?.[k], k);
        return out;
      }
      case "array": {
        if (field === "ids" || field === "source_ids") return [a.memory, a.other];
        const n = Math.max(1, s.minItems ?? 1);
        return Array.from({ length: n }, () => example(s.items, field));
      }
      case "string":
        return s.format === "uuid" ? a.memory : s.format === "date-time" ? new Date().toISOString() : "isolation probe".slice(0, s.maxLength ?? 100);
      case "integer":
      case "number":
        return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
      case "boolean":
        return false;
      default:
        return "isolation probe";
    }
  };

  const leaks = (text: string) =>
    [a.conversation, a.message, a.memory, a.other, a.relation, a.item, a.batch, ...a.contents].filter((x) => x && text.includes(x));

  it("the document lists the data operations and A has every kind of id", () => {
    expect(ops.length).toBeGreaterThan(40);
    for (const [k, v] of Object.entries(a)) if (k !== "contents") expect(v, k).toBeTruthy();
  });

  it("B's lists, pickers, search and exports hold none of A's rows", async () => {
    const keyB = await newProjectB();
    const user = encodeURIComponent(a.user);
    for (const path of [
      "/conversations?limit=200",
      "/conversations/facets",
      "/memory-users",
      `/users/${user}/memories?status=all&limit=200`,
      `/users/${user}/memories/metrics`,
      `/users/${user}/review?status=open`,
      `/users/${user}/review?status=resolved`,
      `/users/${user}/memory-md?file=memory`,
      "/embeddings/status",
    ]) {
      const r = await call(keyB, "GET", path);
      expect(r.status, path).toBe(200);
      expect(leaks(r.text), path).toEqual([]);
    }
    // B has written nothing: its project is empty.
    expect((await call(keyB, "GET", "/conversations?limit=200")).json.data).toEqual([]);
    expect((await call(keyB, "GET", "/memory-users")).json.data).toEqual([]);
    expect((await call(keyB, "GET", "/conversations/facets")).json).toEqual({ apps: [], users: [] });
    const search = await call(keyB, "POST", `/users/${user}/memories/search`, { query: a.contents[0].split(" ").slice(1).join(" "), k: 10 });
    expect(search.status).toBe(200);
    expect(search.json.data).toEqual([]);
  });

  it("B's key: 404 for every operation on an id of A, nothing of A in any other answer, and nothing of A changed", async () => {
    const keyB = await newProjectB();
    const before = await snapshotA();
    const wrong: string[] = [];
    let notFound = 0;
    for (const { method, path, op } of ops) {
      const ids = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).filter((p) => p !== "user_id" && p !== "app_id");
      // Required query parameters get valid values too, so the request reaches its lookup.
      const query = ((op.parameters ?? []) as { in: string; name: string; required?: boolean; schema?: Schema }[])
        .filter((p) => p.in === "query" && p.required)
        .map((p) => `${p.name}=${encodeURIComponent(String(example(p.schema, p.name)))}`);
      const url = path.replace(/\{(\w+)\}/g, (_, name) => pathValue(path, name)) + (query.length ? `?${query.join("&")}` : "");
      const bodySchema = op.requestBody?.content?.["application/json"]?.schema;
      const upload = !bodySchema && op.requestBody?.content?.["application/octet-stream"];
      const body = method === "GET" || method === "DELETE" ? undefined : bodySchema ? example(bodySchema) : upload ? new TextEncoder().encode("[]") : undefined;
      const r = await call(keyB, method, url, body);
      const where = `${method} ${path} -> ${r.status}`;
      if (r.status >= 500) wrong.push(`${where}: ${r.text.slice(0, 200)}`);
      else if (ids.length && r.status !== 404) {
        // An invalid body is refused before anything is looked up: nothing is revealed.
        const bodyRefused = r.status === 422 && String(r.json?.error?.message ?? "").startsWith("Invalid body");
        if (!bodyRefused) wrong.push(`${where} (expected 404): ${r.text.slice(0, 200)}`);
      } else if (r.status === 404) notFound++;
      // An error may name what the request itself sent (e.g. "Memory <id> not found"): only the rest counts.
      const sent = url + (body instanceof Uint8Array ? "" : JSON.stringify(body ?? ""));
      const seen = leaks(r.text).filter((x) => !sent.includes(x));
      if (seen.length) wrong.push(`${where} shows A's ${seen.join(", ")}: ${r.text.slice(0, 300)}`);
    }
    expect(wrong).toEqual([]);
    // Most operations on ids really reached their lookup (not refused on the body first).
    expect(notFound).toBeGreaterThanOrEqual(ops.filter((o) => /\{(?!user_id|app_id)\w+\}/.test(o.path)).length - 6);
    // Nothing of A changed, and A still reads all of it.
    expect(await snapshotA()).toEqual(before);
  });

  it("what B writes lands in B: A's key gets 404 for it and A's lists do not show it", async () => {
    const keyB = await newProjectB();
    const conv = (await call(keyB, "POST", "/conversations", { app_id: "b-app", end_user_id: a.user, name: "B's own conversation" })).json;
    const saved = (await call(keyB, "POST", `/users/${encodeURIComponent(a.user)}/memories`, { memory_type: "fact", content: "Only project B knows this" })).json;
    expect(saved.id).toBeTruthy();
    expect((await call(keyA, "GET", `/conversations/${conv.id}`)).status).toBe(404);
    expect((await call(keyA, "GET", `/memories/${saved.id}`)).status).toBe(404);
    expect((await call(keyA, "PATCH", `/memories/${saved.id}`, { content: "changed by A", version: saved.version })).status).toBe(404);
    const listed = await call(keyA, "GET", `/users/${encodeURIComponent(a.user)}/memories?status=all&limit=200`);
    expect(listed.text).not.toContain(saved.id);
    expect((await call(keyA, "GET", "/conversations?limit=200")).text).not.toContain(conv.id);
    // B's own reads see it.
    expect((await call(keyB, "GET", `/memories/${saved.id}`)).status).toBe(200);
  });

  it("history names who made each change: the API key's name", async () => {
    const keyB = await newProjectB();
    const saved = await call(keyB, "POST", `/users/${encodeURIComponent(a.user)}/memories`, { memory_type: "fact", content: "B's key wrote this" });
    expect(saved.status).toBe(201);
    const hist = (await call(keyB, "GET", `/memories/${saved.json.id}/history`)).json;
    expect(hist.data.at(-1)).toMatchObject({ event_type: "create", actor: "api", actor_label: "API key b-all" });
  });
});
