import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemscope, must, type MemscopeClient } from "@/sdk/typescript/src/index";
import { sharedProject } from "../helpers/shared-app";

// The MCP server, through the SDK's own Client, over both transports, against the built app
// with an API key required: the key of a project of this file's own on the worker's shared
// embedded server (every tool reads and writes that project's data). Setup and checks use the
// typed client (sdk/typescript).

const ROOT = path.resolve(__dirname, "../..");
let KEY = "";
const TOOLS = ["add_turns", "archive_memory", "get_context", "get_history", "list_incidents", "list_memories", "run_eval", "save_memory", "search_memories", "update_memory"];

type ToolText = { isError?: boolean; content: { type: string; text: string }[] };
const textOf = (r: unknown) => (r as ToolText).content.map((c) => c.text).join("");
const jsonOf = (r: unknown) => JSON.parse(textOf(r));

let server: { url: string };
let api: MemscopeClient;

beforeAll(async () => {
  const p = await sharedProject("embedded", "mcp");
  server = { url: p.url };
  KEY = p.key;
  api = createMemscope({ baseUrl: server.url, apiKey: KEY });
});

async function connect(kind: "http" | "stdio", key: string | null = KEY): Promise<Client> {
  const client = new Client({ name: "memscope-tests", version: "1" });
  const transport =
    kind === "http"
      ? new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
          requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} },
        })
      : new StdioClientTransport({
          command: process.execPath,
          args: [path.join(ROOT, "bin/memscope-mcp.mjs"), "--url", server.url, ...(key ? ["--key", key] : [])],
          cwd: ROOT,
          stderr: "pipe",
        });
  await client.connect(transport);
  return client;
}

describe.each(["http", "stdio"] as const)("MCP over %s", (kind) => {
  let mcp: Client;
  const user = `mcp-${kind}-${Date.now()}`;

  beforeAll(async () => {
    mcp = await connect(kind);
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it("lists the ten tools, each with a schema, a description and read-only / destructive hints", async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe("object");
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const ro of ["search_memories", "list_memories", "get_history", "get_context", "list_incidents"]) expect(byName[ro].annotations?.readOnlyHint, ro).toBe(true);
    expect(byName.archive_memory.annotations?.destructiveHint).toBe(true);
    expect(byName.save_memory.annotations?.readOnlyHint).toBe(false);
  });

  it("adds turns and reads the token-buffer history back", async () => {
    const conv = await must(api.POST("/conversations", { body: { app_id: "mcp", end_user_id: user, name: "MCP chat" } }));
    const added = jsonOf(
      await mcp.callTool({
        name: "add_turns",
        arguments: { conversation_id: conv.id, turns: [{ query: "I live in Lisbon", answer: "Noted." }, { query: "And I cycle to work", answer: "Nice." }] },
      }),
    );
    expect(added.count).toBe(2);
    const history = jsonOf(await mcp.callTool({ name: "get_history", arguments: { conversation_id: conv.id, max_token_limit: 2000 } }));
    expect(history.messages.map((m: { content: string }) => m.content)).toEqual(["I live in Lisbon", "Noted.", "And I cycle to work", "Nice."]);
    expect(history.thread_message_ids).toEqual([...added.data.map((d: { id: string }) => d.id)].reverse());
    const thread = await mcp.readResource({ uri: `memscope://conversations/${conv.id}/thread` });
    expect((thread.contents[0] as { text: string }).text).toBe("Human: I live in Lisbon\nAssistant: Noted.\nHuman: And I cycle to work\nAssistant: Nice.");
  });

  it("list_incidents finds the turn where a memory was missed, and names a bad filter", async () => {
    const who = `${user}-inc`;
    await must(api.POST("/users/{user_id}/memories", { params: { path: { user_id: who } }, body: { memory_type: "fact", content: "Has a dentist appointment on Tuesday at 9" } }));
    const app = `mcp-inc-${Date.now()}`;
    await must(api.POST("/profiles/{app_id}/versions", { params: { path: { app_id: app } }, body: { settings: { strategy: { type: "message_window" }, memory: { k: 5, memory_types: ["preference"] } } } as never }));
    const conv = await must(api.POST("/conversations", { body: { app_id: app, end_user_id: who, name: "MCP incidents" } }));
    await mcp.callTool({
      name: "add_turns",
      arguments: { conversation_id: conv.id, turns: [{ query: "When is my dentist appointment?", answer: "I don't remember you mentioning one." }] },
    });
    let found: { data: { kind: string; memory_ids: string[]; summary: string }[] } = { data: [] };
    for (let i = 0; i < 100 && !found.data.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      found = jsonOf(await mcp.callTool({ name: "list_incidents", arguments: { conversation_id: conv.id } }));
    }
    expect(found.data).toHaveLength(1);
    expect(found.data[0]).toMatchObject({ kind: "missed_memory", severity: "high" });
    expect(found.data[0].summary).toContain("Has a dentist appointment");
    const bad = await mcp.callTool({ name: "list_incidents", arguments: { kind: "forgotten" } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("invalid_filter");
  });

  it("run_eval runs a named set (nothing logged as an access) and names an unknown set", async () => {
    const saved = jsonOf(await mcp.callTool({ name: "save_memory", arguments: { user_id: user, memory_type: "fact", content: "Keeps a sourdough starter named Bubbles" } }));
    const name = `mcp-${kind}-${Date.now()}`;
    const set = await must(api.POST("/evals/sets", { body: { name } }));
    await must(api.POST("/evals/sets/{id}/cases", { params: { path: { id: set.id } }, body: { cases: [{ user_id: user, question: "What is my sourdough starter called?", expected: { memory_ids: [saved.id], turns: [], texts: [] }, tags: [] }] } }));
    const out = jsonOf(await mcp.callTool({ name: "run_eval", arguments: { set: name, k: 5 } }));
    expect(out.run.metrics.overall.recall.value).toBe(1);
    expect(out.failed_cases).toEqual([]);
    const again = jsonOf(await mcp.callTool({ name: "run_eval", arguments: { set: name, k: 5, weights: { similarity: 0 }, compare_to: out.run.id } }));
    expect(again.comparison.base_run_id).toBe(out.run.id);
    const accesses = await must(api.GET("/memories/{id}/accesses", { params: { path: { id: saved.id } } }));
    expect(accesses.data).toEqual([]);
    const missing = (await mcp.callTool({ name: "run_eval", arguments: { set: "no-such-set" } })) as ToolText;
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('no eval set named "no-such-set"');
  });

  it("saves (created, then duplicate), searches with a breakdown that lands in the access log, updates, archives and lists", async () => {
    const saved = jsonOf(await mcp.callTool({ name: "save_memory", arguments: { user_id: user, memory_type: "preference", content: "Prefers window seats on long flights" } }));
    expect(saved.dedupe.action).toBe("created");
    const again = jsonOf(await mcp.callTool({ name: "save_memory", arguments: { user_id: user, memory_type: "preference", content: "Prefers window seats on long flights" } }));
    expect(again.dedupe.action).toBe("duplicate");
    expect(again.id).toBe(saved.id);

    const found = jsonOf(await mcp.callTool({ name: "search_memories", arguments: { user_id: user, query: "window seat flight" } }));
    expect(found.data[0].memory.id).toBe(saved.id);
    expect(found.data[0].breakdown.cosine).toBeGreaterThan(0);
    const accesses = await must(api.GET("/memories/{id}/accesses", { params: { path: { id: saved.id } } }));
    expect(accesses.data.map((a) => a.query)).toContain("window seat flight");

    const current = await must(api.GET("/memories/{id}", { params: { path: { id: saved.id } } }));
    const updated = jsonOf(
      await mcp.callTool({ name: "update_memory", arguments: { id: saved.id, version: current.version, content: "Prefers aisle seats now", reason: "said so" } }),
    );
    expect(updated).toMatchObject({ content: "Prefers aisle seats now", version: current.version + 1 });
    const history = await must(api.GET("/memories/{id}/history", { params: { path: { id: saved.id } } }));
    expect(history.data.some((e) => e.event_type === "update" && e.reason === "said so")).toBe(true);

    const archived = jsonOf(await mcp.callTool({ name: "archive_memory", arguments: { id: saved.id, reason: "test" } }));
    expect(archived.status).toBe("archived");
    const active = jsonOf(await mcp.callTool({ name: "list_memories", arguments: { user_id: user } }));
    expect(active.data.map((m: { id: string }) => m.id)).not.toContain(saved.id);
    const all = jsonOf(await mcp.callTool({ name: "list_memories", arguments: { user_id: user, status: "archived" } }));
    expect(all.data.map((m: { id: string }) => m.id)).toContain(saved.id);

    const md = await mcp.readResource({ uri: `memscope://users/${encodeURIComponent(user)}/memory.md` });
    expect((md.contents[0] as { mimeType: string }).mimeType).toBe("text/markdown");
  });

  it("assembles the context with section tokens", async () => {
    await must(api.POST("/users/{user_id}/memories", { params: { path: { user_id: user } }, body: { memory_type: "fact", content: "Works as a nurse in Porto" } }));
    const ctx = jsonOf(await mcp.callTool({ name: "get_context", arguments: { user_id: user, query: "Where do I work?", system_prompt: "Be brief." } }));
    expect(ctx.sections.memories).toBeGreaterThan(0);
    expect(ctx.sections.system + ctx.sections.memories + ctx.sections.history + ctx.sections.query + ctx.sections.temporary).toBe(ctx.sections.total);
    expect(JSON.stringify(ctx.messages)).toContain("Works as a nurse in Porto");
  });

  it("refuses bad arguments with an error naming the field, not a crash", async () => {
    const wrongType = (await mcp.callTool({ name: "search_memories", arguments: { user_id: user, query: "x", k: "ten" } })) as ToolText;
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toMatch(/\bk\b/);
    const stale = (await mcp.callTool({ name: "update_memory", arguments: { id: "7b0e1f0a-0000-4000-8000-000000000000", version: 1, content: "x" } })) as ToolText;
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toMatch(/^404 not_found/);
    const badApi = (await mcp.callTool({ name: "add_turns", arguments: { conversation_id: "7b0e1f0a-0000-4000-8000-000000000000", turns: [{ query: "q", answer: "a" }] } })) as ToolText;
    expect(badApi.isError).toBe(true);
    expect(textOf(badApi)).toContain("404");
    // The server is still there.
    expect((await mcp.listTools()).tools).toHaveLength(10);
  });
});

describe("MCP access", () => {
  it("over HTTP without a key is refused with 401", async () => {
    const r = await fetch(`${server.url}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(r.status).toBe(401);
    expect((await r.json()).error.code).toBe("unauthorized");
  });

  it("over stdio with a wrong key answers each tool call with the API's 401", async () => {
    const mcp = await connect("stdio", "wrong-key");
    const r = (await mcp.callTool({ name: "list_memories", arguments: { user_id: "u" } })) as ToolText;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^401 unauthorized/);
    await mcp.close();
  });
});
