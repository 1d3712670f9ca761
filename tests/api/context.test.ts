import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import type { AppServer } from "../helpers/app-server";
import { DATABASE_KINDS, startAppOn } from "../helpers/test-database";

// The prompt inspector's API: /window on inline messages, /context assembling
// system + memories + history + query against a model's context window.

describe.each(DATABASE_KINDS)("window and context API on %s", (kind) => {
  let server: AppServer;
  let api: ReturnType<typeof apiClient>;
  const user = `ctx-${randomUUID().slice(0, 8)}`;
  let conversationId: string;

  beforeAll(async () => {
    server = await startAppOn(kind);
    api = apiClient(server.url);
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

  it("/window: invalid parameters are 422 naming the field", async () => {
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
    await api.put("/settings/models", { presets: [{ model: "tiny-test-model", context_window: 400, encoding: "o200k_base", exact: false }] });
    const r = await api.post("/context", {
      user_id: user,
      conversation_id: conversationId,
      query: "what is my daily budget?",
      model: "tiny-test-model",
      reserved_output_tokens: 100,
      strategy: { type: "token_buffer", max_token_limit: 100000 },
      memory: { k: 2, format: "xml_block", dry_run: true },
    });
    expect(r.status).toBe(200);
    expect(r.body.sections.context_window).toBe(400);
    expect(r.body.sections.total).toBeLessThanOrEqual(300);
    expect(r.body.fits).toBe(true);
    const reasons = r.body.dropped.map((d: { reason: string }) => d.reason);
    expect(reasons.some((x: string) => x.startsWith("context window"))).toBe(true);
    expect(r.body.messages[0].content).toContain("<long_term_memory>");
    expect(r.body.exact).toBe(false);
    const models = await api.get("/models");
    expect(models.body.data).toContainEqual(expect.objectContaining({ model: "tiny-test-model", context_window: 400, source: "settings" }));
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

  it("/context: inline messages, unknown conversation 404, both history sources 422", async () => {
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

  it("/context: windows over a stored thread read only the text they send, with the same result as the full history inline", async () => {
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
