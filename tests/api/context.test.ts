import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import { DATABASE_KINDS, itOnOneKind } from "../helpers/test-database";

// The prompt inspector's API: /window on inline messages, /context assembling
// system + memories + history + query against a model's context window.

describe.each(DATABASE_KINDS)("window and context API on %s", (kind) => {
  // Refusals decided before any write, scopes and the OpenAPI text run on one kind (the rule is in
  // tests/helpers/test-database.ts); the rest, on both.
  const oneKind = itOnOneKind(kind);
  let server: SharedProject;
  let api: ReturnType<typeof apiClient>;
  const user = `ctx-${randomUUID().slice(0, 8)}`;
  let conversationId: string;

  beforeAll(async () => {
    server = await sharedProject(kind, "context");
    api = apiClient(server.url, server.headers);
    const c = await api.post("/conversations", { app_id: "inspector-test", end_user_id: user, name: "ctx" });
    conversationId = c.body.id;
    const turns = Array.from({ length: 40 }, (_, i) => ({ query: `Question ${i} about the Lisbon trip and its budget`, answer: `Answer ${i}: the budget stays at 120 euros a day.` }));
    await api.post(`/conversations/${conversationId}/messages/batch`, { messages: turns });
    await api.post(`/users/${user}/memories`, { memory_type: "preference", content: "Daily travel budget is 120 euros", importance_score: 0.9 });
    await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Lives in Berlin", importance_score: 0.5 });
  });
  afterAll(async () => server?.stop());

  const msgs = Array.from({ length: 12 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}` }));

  it("/window: message_window keeps the newest N and names what it dropped", async () => {
    const r = await api.post("/window", { messages: msgs, strategy: { type: "message_window", max_attached_message_count: 4, system_message: "Be brief." } });
    expect(r.status).toBe(200);
    expect(r.body.messages.map((m: { content: string }) => m.content)).toEqual(["Be brief.", "message 8", "message 9", "message 10", "message 11"]);
    expect(r.body.dropped).toHaveLength(8);
    expect(r.body.transformed[0]).toMatchObject({ index: -1, action: "system_inserted" });
    expect(r.body).toMatchObject({ model: "gpt-4o", encoding: "o200k_base", context_window: 128000 });
    expect(r.body.total_tokens).toBeGreaterThan(0);
  });

  oneKind("/window: invalid parameters are 422 naming the field", async () => {
    const zero = await api.post("/window", { messages: msgs, strategy: { type: "message_window", max_attached_message_count: 0 } });
    expect(zero.status).toBe(422);
    expect(zero.body.error.details[0].field).toBe("strategy.max_attached_message_count");
    const unknown = await api.post("/window", { messages: msgs, strategy: { type: "sliding_window" } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details[0].field).toBe("strategy.type");
    const tool = await api.post("/window", { messages: [{ role: "tool", content: "x" }], strategy: { type: "token_buffer", max_token_limit: 100 } });
    expect(tool.body.error.details[0].field).toBe("messages[0].tool_call_id");
  });

  it("/window: summary_buffer offloads large contents, retrievable by reference", async () => {
    const big = "lorem ipsum dolor sit amet ".repeat(400);
    const r = await api.post("/window", {
      messages: [...Array.from({ length: 31 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `m${i}` })), { role: "user", content: big }],
      strategy: { type: "summary_buffer", offload_tokens: 300 },
    });
    expect(r.body.triggered).toBe(true);
    const off = r.body.transformed.find((t: { action: string }) => t.action === "offloaded");
    expect(off.ref).toBeDefined();
    const got = await api.get(`/offloaded/${off.ref}`);
    expect(got.status).toBe(200);
    expect(got.body.content).toBe(big);
    expect((await api.get(`/offloaded/${randomUUID()}`)).status).toBe(404);
  });

  it("/context: system + memories + history + query, sections add up to the total", async () => {
    const r = await api.post("/context", {
      user_id: user,
      conversation_id: conversationId,
      query: "what is my daily budget?",
      system_prompt: "You are a travel assistant.",
      strategy: { type: "message_window", max_attached_message_count: 6 },
      memory: { k: 5, dry_run: true },
    });
    expect(r.status).toBe(200);
    const b = r.body;
    expect(b.history_source).toBe("conversation");
    expect(b.messages[0].role).toBe("system");
    expect(b.messages[0].content).toContain("You are a travel assistant.");
    expect(b.messages[0].content).toContain("# USER MEMORY");
    expect(b.messages[0].content).toContain("- Daily travel budget is 120 euros");
    expect(b.messages.at(-1)).toEqual({ role: "user", content: "what is my daily budget?" });
    expect(b.message_sections).toEqual(["system", "history", "history", "history", "history", "history", "history", "query"]);
    const s = b.sections;
    expect(s.system + s.memories + s.history + s.query + s.temporary).toBe(s.total);
    expect(s.memories).toBeGreaterThan(0);
    expect(s.free).toBe(s.context_window - s.reserved_output - s.total);
    expect(b.fits).toBe(true);
    expect(b.dropped).toHaveLength(74);
    expect(b.memories[0]).toMatchObject({ content: "Daily travel budget is 120 euros", included: true });
    expect(b.retrieval_id).toBeTruthy();
  });

  it("/context: fits a small context window by dropping history, then memories, and says why", async () => {
    // The window is sized from the API's own counts: exactly system + the best memory + query.
    const common = { user_id: user, query: "what is my daily budget?", system_prompt: "You are a travel assistant.", reserved_output_tokens: 250 };
    const bestOnly = await api.post("/context", { ...common, memory: { k: 1, format: "xml_block", dry_run: true }, strategy: { type: "token_buffer", max_token_limit: 100000 } });
    expect(bestOnly.body.history_source).toBe("none");
    expect(bestOnly.body.memories.map((m: { content: string }) => m.content)).toEqual(["Daily travel budget is 120 euros"]);
    const window = 250 + bestOnly.body.sections.total; // presets start at 256 tokens
    const model = `tiny-${kind}`;
    expect((await api.put("/settings/models", { presets: [{ model, context_window: window, encoding: "o200k_base", exact: false }] })).status).toBe(200);
    const r = await api.post("/context", {
      ...common,
      conversation_id: conversationId,
      model,
      strategy: { type: "token_buffer", max_token_limit: 100000 },
      memory: { k: 2, format: "xml_block", dry_run: true },
    });
    expect(r.status).toBe(200);
    expect(r.body.sections.context_window).toBe(window);
    expect(r.body.sections.total).toBe(bestOnly.body.sections.total);
    expect(r.body.fits).toBe(true);
    expect(r.body.exact).toBe(false);
    // Every history turn went first (oldest first), then the lower-scoring memory.
    const fitted = r.body.dropped.filter((d: { reason: string }) => d.reason.startsWith("context window"));
    const sections = fitted.map((d: { section: string }) => d.section);
    expect(sections).toEqual([...Array(80).fill("history"), "memories"]);
    const historyIndexes = fitted.filter((d: { section: string }) => d.section === "history").map((d: { index: number }) => d.index);
    expect(historyIndexes).toEqual([...historyIndexes].sort((a: number, b: number) => a - b));
    expect(fitted.at(-1)).toMatchObject({ section: "memories", index: 1 });
    expect(fitted.at(-1).reason).toContain("lowest-scoring memory");
    expect(r.body.memories).toEqual([
      expect.objectContaining({ content: "Daily travel budget is 120 euros", included: true }),
      expect.objectContaining({ content: "Lives in Berlin", included: false }),
    ]);
    expect(r.body.memories[0].score).toBeGreaterThan(r.body.memories[1].score);
    expect(r.body.message_sections).toEqual(["system", "query"]);
    expect(r.body.messages[0].content).toContain("<long_term_memory>");
    expect(r.body.messages[0].content).toContain("Daily travel budget is 120 euros");
    expect(r.body.messages[0].content).not.toContain("Lives in Berlin");
    const models = await api.get("/models");
    expect(models.body.data).toContainEqual(expect.objectContaining({ model, context_window: window, source: "settings" }));
  });

  it("/context: a window too small for system, memories and query drops every memory and says it does not fit", async () => {
    const model = `nano-${kind}`;
    expect((await api.put("/settings/models", { presets: [{ model, context_window: 256, encoding: "o200k_base", exact: true }] })).status).toBe(200);
    const r = await api.post("/context", {
      user_id: user,
      conversation_id: conversationId,
      query: "what is my daily budget?",
      system_prompt: "You are a travel assistant. ".repeat(10),
      model,
      reserved_output_tokens: 240,
      strategy: { type: "token_buffer", max_token_limit: 100000 },
      memory: { k: 2, dry_run: true },
    });
    expect(r.status).toBe(200);
    expect(r.body.fits).toBe(false);
    expect(r.body.sections.total).toBeGreaterThan(20);
    expect(r.body.memories.map((m: { included: boolean }) => m.included)).toEqual([false, false]);
    // The lowest-scoring memory goes first.
    const memDrops = r.body.dropped.filter((d: { section: string }) => d.section === "memories").map((d: { index: number }) => d.index);
    expect(memDrops).toEqual([1, 0]);
    expect(r.body.message_sections).toEqual(["system", "query"]);
  });

  it("/context: temporary messages come after the query and are counted on their own", async () => {
    const temporary_messages = [
      { role: "assistant", content: "Let me check the bookings." },
      { role: "user", content: "Only the hotel, please." },
    ];
    const base = { user_id: user, query: "what did I book?", strategy: { type: "token_buffer", max_token_limit: 1000 }, memory: { enabled: false } };
    const without = await api.post("/context", base);
    const r = await api.post("/context", { ...base, temporary_messages });
    expect(r.status).toBe(200);
    expect(r.body.messages).toEqual([{ role: "user", content: "what did I book?" }, ...temporary_messages]);
    expect(r.body.message_sections).toEqual(["query", "temporary", "temporary"]);
    expect(r.body.sections.temporary).toBeGreaterThan(0);
    expect(r.body.sections.total - without.body.sections.total).toBe(r.body.sections.temporary);
    expect(without.body.sections.temporary).toBe(0);
  });

  it("/context: leaf_message_id takes the branch ending there; it needs a conversation and must be in it", async () => {
    const c = await api.post("/conversations", { app_id: "inspector-test", end_user_id: user, name: "branches" });
    const root = await api.post(`/conversations/${c.body.id}/messages`, { query: "Plan a trip", answer: "Where to?", parent_message_id: null });
    const left = await api.post(`/conversations/${c.body.id}/messages`, { query: "Porto", answer: "Porto it is.", parent_message_id: root.body.id });
    await api.post(`/conversations/${c.body.id}/messages`, { query: "Madeira", answer: "Madeira it is.", parent_message_id: root.body.id });
    const body = { user_id: user, conversation_id: c.body.id, query: "book it", strategy: { type: "token_buffer", max_token_limit: 5000 }, memory: { enabled: false } };
    const newest = await api.post("/context", body);
    expect(newest.body.messages.map((m: { content: string }) => m.content)).toEqual(["Plan a trip", "Where to?", "Madeira", "Madeira it is.", "book it"]);
    const branch = await api.post("/context", { ...body, leaf_message_id: left.body.id });
    expect(branch.status).toBe(200);
    expect(branch.body.messages.map((m: { content: string }) => m.content)).toEqual(["Plan a trip", "Where to?", "Porto", "Porto it is.", "book it"]);
    const unknown = await api.post("/context", { ...body, leaf_message_id: randomUUID() });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.details[0].field).toBe("leaf_message_id");
    const alone = await api.post("/context", { user_id: user, query: "q", leaf_message_id: left.body.id, strategy: { type: "token_buffer", max_token_limit: 10 } });
    expect(alone.status).toBe(422);
    expect(alone.body.error.details[0].field).toBe("leaf_message_id");
  });

  it("/context: memory_types, min_score and weights shape which memories come and how they score", async () => {
    const base = { user_id: user, query: "where do I live and what is my budget?", strategy: { type: "token_buffer", max_token_limit: 10 } };
    const both = await api.post("/context", { ...base, memory: { k: 5, dry_run: true } });
    expect(both.body.memories.map((m: { content: string }) => m.content).sort()).toEqual(["Daily travel budget is 120 euros", "Lives in Berlin"]);

    const facts = await api.post("/context", { ...base, memory: { k: 5, dry_run: true, memory_types: ["fact"] } });
    expect(facts.body.memories.map((m: { content: string }) => m.content)).toEqual(["Lives in Berlin"]);
    expect(facts.body.messages[0].content).toContain("Lives in Berlin");
    expect(facts.body.messages[0].content).not.toContain("120 euros");

    // Importance only: the scores are the importance scores, in that order.
    const importance = await api.post("/context", { ...base, memory: { k: 5, dry_run: true, weights: { similarity: 0, recency: 0, importance: 1 } } });
    expect(importance.body.memories.map((m: { score: number }) => m.score)).toEqual([0.9, 0.5].map((x) => expect.closeTo(x, 6)));
    expect(importance.body.memories[0].content).toBe("Daily travel budget is 120 euros");

    // min_score between the two: only the higher one comes.
    const min = await api.post("/context", { ...base, memory: { k: 5, dry_run: true, min_score: 0.7, weights: { similarity: 0, recency: 0, importance: 1 } } });
    expect(min.body.memories.map((m: { content: string }) => m.content)).toEqual(["Daily travel budget is 120 euros"]);
    const none = await api.post("/context", { ...base, memory: { k: 5, dry_run: true, min_score: 5 } });
    expect(none.body.memories).toEqual([]);
    expect(none.body.sections.memories).toBe(0);
    const bad = await api.post("/context", { ...base, memory: { memory_types: ["opinion"] } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details[0].field).toMatch(/^memory\.memory_types/);
  });

  it("/context: a real call (not dry_run) marks the memories it retrieved as accessed; a dry run does not", async () => {
    const u = `ctx-access-${randomUUID().slice(0, 8)}`;
    const m = (await api.post(`/users/${u}/memories`, { memory_type: "fact", content: "Owns a red bicycle", importance_score: 0.6 })).body;
    const id = m.memory?.id ?? m.id;
    const body = { user_id: u, query: "what bicycle do I own?", strategy: { type: "token_buffer", max_token_limit: 10 } };
    const dry = await api.post("/context", { ...body, memory: { dry_run: true } });
    expect(dry.body.memories.map((x: { id: string }) => x.id)).toEqual([id]);
    const before = (await api.get(`/memories/${id}`)).body;
    expect(before.last_accessed_at).toBeNull();
    expect(before.access_count).toBe(0);
    const real = await api.post("/context", body);
    expect(real.status).toBe(200);
    const after = (await api.get(`/memories/${id}`)).body;
    expect(after.access_count).toBe(1);
    expect(after.last_accessed_at).not.toBeNull();
    const accesses = (await api.get(`/memories/${id}/accesses`)).body.data;
    // Accesses list real retrievals only: the dry run is not among them.
    expect(accesses.map((a: { retrieval_id: string; dry_run: boolean }) => [a.retrieval_id, a.dry_run])).toEqual([[real.body.retrieval_id, false]]);
  });

  it("/context: a stored turn's metadata.tool_calls become an assistant tool call and a tool result", async () => {
    const c = await api.post("/conversations", { app_id: "inspector-test", end_user_id: user });
    await api.post(`/conversations/${c.body.id}/messages`, {
      query: "Export my 120k rows",
      answer: "Queued: you will get an email in about 10 minutes.",
      metadata: { tool_calls: [{ id: "call_1", name: "queue_export", arguments: { rows: 120000 }, result: { job_id: "exp_1" } }] },
    });
    const body = { user_id: user, conversation_id: c.body.id, query: "status?", memory: { enabled: false } };
    const withTools = await api.post("/context", { ...body, strategy: { type: "token_buffer", max_token_limit: 5000 } });
    expect(withTools.body.messages.slice(0, 4)).toEqual([
      { role: "user", content: "Export my 120k rows" },
      { role: "assistant", content: "", tool_calls: [{ id: "call_1", name: "queue_export", arguments: '{"rows":120000}' }] },
      { role: "tool", tool_call_id: "call_1", content: '{"job_id":"exp_1"}' },
      { role: "assistant", content: "Queued: you will get an email in about 10 minutes." },
    ]);
    const noTools = await api.post("/context", { ...body, strategy: { type: "token_buffer", max_token_limit: 5000, include_tools: false } });
    expect(noTools.body.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(noTools.body.sections.history).toBeLessThan(withTools.body.sections.history);
  });

  oneKind("/context: inline messages, unknown conversation 404, both history sources 422", async () => {
    const inline = await api.post("/context", { user_id: user, messages: msgs, query: "hi", strategy: { type: "token_buffer", max_token_limit: 1000 }, memory: { enabled: false } });
    expect(inline.status).toBe(200);
    expect(inline.body.history_source).toBe("inline");
    expect(inline.body.sections.memories).toBe(0);
    expect((await api.post("/context", { user_id: user, conversation_id: randomUUID(), query: "hi", strategy: { type: "token_buffer", max_token_limit: 10 } })).status).toBe(404);
    const both = await api.post("/context", { user_id: user, conversation_id: conversationId, messages: msgs, query: "hi", strategy: { type: "token_buffer", max_token_limit: 10 } });
    expect(both.status).toBe(422);
    expect(both.body.error.details[0].field).toBe("messages");
  });

  it("/context: a stored turn's images come along as content parts and count 85 tokens each", async () => {
    const c = await api.post("/conversations", { app_id: "inspector-test", end_user_id: user, name: "images" });
    const url = "https://example.com/chart.png";
    const stored = await api.post(`/conversations/${c.body.id}/messages`, {
      query: "What does this chart show?",
      answer: "Revenue doubled in Q3.",
      files: [{ type: "image", transfer_method: "remote_url", url }],
    });
    expect(stored.status).toBe(201);
    const body = { user_id: user, conversation_id: c.body.id, query: "and Q4?", strategy: { type: "token_buffer", max_token_limit: 5000 }, memory: { enabled: false } };
    const r = await api.post("/context", body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const user0 = r.body.messages.find((m: { role: string }) => m.role === "user");
    expect(user0.content).toEqual([
      { type: "image", transfer_method: "remote_url", url, upload_file_id: null },
      { type: "text", text: "What does this chart show?" },
    ]);
    // The same turn without its image costs exactly 85 tokens less.
    const plain = await api.post("/conversations", { app_id: "inspector-test", end_user_id: user, name: "no image" });
    await api.post(`/conversations/${plain.body.id}/messages`, { query: "What does this chart show?", answer: "Revenue doubled in Q3." });
    const r2 = await api.post("/context", { ...body, conversation_id: plain.body.id });
    expect(r.body.sections.history - r2.body.sections.history).toBe(85);
    expect(r.body.sections.total - r2.body.sections.total).toBe(85);
  });

  it("/context: windows over a stored thread give the same result as the full history inline (what they read: tests/unit/thread-reads.test.ts)", async () => {
    // A straight conversation: its stored turns, oldest first, are its thread.
    const thread = await api.get(`/conversations/${conversationId}/messages?limit=100`);
    expect(thread.status).toBe(200);
    const inline = (thread.body.data as { query: string; answer: string }[]).flatMap((t) => [
      { role: "user", content: t.query },
      { role: "assistant", content: t.answer },
    ]);
    expect(inline).toHaveLength(80);
    for (const strategy of [
      { type: "token_buffer", max_token_limit: 300 },
      { type: "message_window", max_attached_message_count: 7, history_message_truncate_enable: true, history_message_truncate_length: 20 },
    ]) {
      const common = { user_id: user, query: "budget?", strategy, memory: { enabled: false } };
      const stored = await api.post("/context", { ...common, conversation_id: conversationId });
      const given = await api.post("/context", { ...common, messages: inline });
      expect(stored.status, JSON.stringify(stored.body)).toBe(200);
      expect(stored.body.messages).toEqual(given.body.messages);
      expect(stored.body.dropped).toEqual(given.body.dropped);
      expect(stored.body.transformed).toEqual(given.body.transformed);
      expect(stored.body.sections).toEqual(given.body.sections);
      expect(stored.body.messages.filter((m: { content: string }) => m.content === "" || m.content === " ")).toEqual([]);
    }
  });
});
