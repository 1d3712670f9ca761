import { randomUUID } from "node:crypto";
import { ChatMemoryBuffer } from "@llamaindex/core/memory";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RoleMessage } from "@/lib/strategies/schemas";
import { apiClient } from "../helpers/api-client";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import { history, lcKey, lcOptions, type LlamaMsg, llamaKey, runLangChain, toLangChain, toLlama } from "../helpers/framework-oracles";
import type { Owner } from "../helpers/owner";
import { DATABASE_KINDS } from "../helpers/test-database";

// The framework strategies of issue 42 through the API: cases generated and run through the real
// npm packages give the same kept messages through POST /window; the frameworks' own failures
// are 422s naming them; POST /context places the call's messages where LlamaIndex does; an agent
// profile with langchain_trim replays a stored turn.

const trimmedEnd = (m: RoleMessage): RoleMessage => ({
  ...m,
  content: typeof m.content === "string" ? m.content.trimEnd() : m.content.map((p) => (p.type === "text" ? { ...p, text: p.text.trimEnd() } : p)),
});

describe.each(DATABASE_KINDS)("framework window strategies through the API on %s", (kind) => {
  let server: SharedProject;
  let owner: Owner;
  let n = 0;
  const project = async () => {
    const p = await owner.post("/projects", { name: `frameworks ${++n}` });
    return apiClient(server.url, { authorization: `Bearer ${await owner.key(`k${n}`, ["read", "write", "admin"], p.id)}` });
  };

  beforeAll(async () => {
    server = await sharedProject(kind, "framework-windows");
    owner = server.owner;
  }, 240_000);
  afterAll(async () => server?.stop());

  it("POST /window keeps exactly what LangChain's trimMessages keeps, on generated cases (a 422 where LangChain throws or answers [undefined])", async () => {
    const api = await project();
    const cases = fc.sample(fc.tuple(history, lcOptions, fc.constantFrom("gpt-4o", "gpt-4")), { numRuns: 60, seed: 4242 });
    let refused = 0;
    for (const [messages, o, model] of cases) {
      const theirs = await runLangChain(messages, o, model === "gpt-4o" ? "o200k_base" : "cl100k_base");
      const r = await api.post("/window", { messages, model, strategy: { type: "langchain_trim", ...o } });
      if (theirs === "throws" || theirs.includes("undefined")) {
        refused++;
        expect(r.status).toBe(422);
        expect(r.body.error.code).toBe("unprocessable");
        expect(r.body.error.message).toMatch(/LangChain's trimMessages/);
        expect(r.body.error.details[0].field).toMatch(/^strategy\.(start_on|include_system)$/);
      } else {
        expect(r.status).toBe(200);
        expect(r.body.messages.map((m: RoleMessage) => lcKey(toLangChain(m)))).toEqual(theirs);
      }
    }
    expect(refused).toBeGreaterThan(0);
  });

  it("POST /window keeps exactly what LlamaIndex's ChatMemoryBuffer keeps, the call's messages in front (texts seen before included)", async () => {
    const api = await project();
    const cases = fc.sample(fc.tuple(history, fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 2 })), { numRuns: 30, seed: 77 });
    for (const [generated, tokenLimit, temps] of cases) {
      const temporary: RoleMessage[] = Array.from({ length: temps }, (_, i) => ({ role: "user", content: `call message ${i}` }));
      // As generated (texts mostly end in white space: the joined string is scanned), then with
      // every text ending in a non-space (counted per text, kept by the project's counter); each
      // sent twice, the second time from the counts the first one left.
      for (const messages of [generated, generated.map(trimmedEnd)]) {
        let theirs: string[] | "throws";
        try {
          const buffer = new ChatMemoryBuffer({ tokenLimit, chatHistory: messages.map(toLlama) as never, llm: { metadata: { contextWindow: 1 } } as never });
          const out = (await buffer.getMessages(temps ? (temporary.map(toLlama) as never) : undefined, 0)) as LlamaMsg[];
          theirs = out.map(llamaKey);
        } catch {
          theirs = "throws";
        }
        for (let again = 0; again < 2; again++) {
          const r = await api.post("/window", { messages, strategy: { type: "llamaindex_buffer", token_limit: tokenLimit }, ...(temps ? { temporary_messages: temporary } : {}) });
          if (theirs === "throws") {
            expect(r.status).toBe(422);
            expect(r.body.error.message).toMatch(/LlamaIndex/);
          } else {
            expect(r.status).toBe(200);
            expect(r.body.messages.map((m: RoleMessage) => llamaKey(toLlama(m)))).toEqual(theirs);
          }
        }
      }
    }
  });

  it("POST /window uses a model preset from the request after it is saved, and its change on the next one; not another project's", async () => {
    const api = await project();
    const other = await project();
    const model = `fw-preset-${kind}`;
    const messages: RoleMessage[] = Array.from({ length: 6 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ${"the weather in Lisbon ".repeat(15).trim()}` }));
    const window = async (client: typeof api) => {
      const r = await client.post("/window", { messages, model, strategy: { type: "llamaindex_buffer" } });
      expect(r.status).toBe(200);
      return { context_window: r.body.context_window, encoding: r.body.encoding, kept: r.body.messages.length };
    };
    const before = await window(api);
    expect(before.context_window).not.toBe(256);
    expect(before.kept).toBe(6);
    // 0.75 × 256 = 192 tokens of LlamaIndex's count (six messages hold ~370): the newest only.
    expect((await api.put("/settings/models", { presets: [{ model, context_window: 256, encoding: "cl100k_base", exact: true }] })).status).toBe(200);
    const small = await window(api);
    expect(small).toMatchObject({ context_window: 256, encoding: "cl100k_base" });
    expect(small.kept).toBeLessThan(6);
    expect((await api.put("/settings/models", { presets: [{ model, context_window: 4000, encoding: "o200k_base", exact: true }] })).status).toBe(200);
    expect(await window(api)).toEqual({ context_window: 4000, encoding: "o200k_base", kept: 6 });
    expect(await window(other)).toEqual(before);
  });

  it("answers 422 naming the option or the framework's behaviour", async () => {
    const api = await project();
    const msgs = [
      { role: "system", content: "You are brief." },
      { role: "user", content: "hello there" },
      { role: "assistant", content: "hi" },
    ];
    const first = await api.post("/window", { messages: msgs, strategy: { type: "langchain_trim", max_tokens: 10, strategy: "first", start_on: "human" } });
    expect(first.status).toBe(422);
    expect(first.body.error.details[0]).toMatchObject({ field: "strategy.start_on" });
    const none = await api.post("/window", { messages: msgs, strategy: { type: "langchain_trim", max_tokens: 0, include_system: true, token_counter: "chars" } });
    expect(none.status).toBe(422);
    expect(none.body.error.message).toMatch(/returns \[undefined\]/);
    const badType = await api.post("/window", { messages: msgs, strategy: { type: "langchain_trim", max_tokens: 10, end_on: "assistant" } });
    expect(badType.status).toBe(422);
    expect(JSON.stringify(badType.body.error.details)).toMatch(/strategy\.end_on/);
    const negative = await api.post("/window", { messages: msgs, strategy: { type: "mastra_last_messages", last_messages: -1 } });
    expect(negative.status).toBe(422);
    expect(JSON.stringify(negative.body.error.details)).toMatch(/strategy\.last_messages/);
    const initial = await api.post("/window", { messages: msgs, strategy: { type: "llamaindex_buffer", token_limit: 5, initial_token_count: 6 } });
    expect(initial.status).toBe(422);
    expect(initial.body.error.message).toMatch(/Initial token count exceeds token limit/);
    const transient = await api.post("/window", {
      messages: msgs,
      strategy: { type: "llamaindex_memory", token_limit: 3 },
      temporary_messages: [{ role: "user", content: "a call message longer than three tokens" }],
    });
    expect(transient.status).toBe(422);
    expect(transient.body.error.details[0]).toMatchObject({ field: "temporary_messages" });
  });

  it("POST /window explains the quirks in the list of changes: a tool result kept without its call, Mastra's \".\"", async () => {
    const api = await project();
    const msgs = [
      { role: "user", content: "weather in Lisbon?" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "forecast", arguments: "{}" }] },
      { role: "tool", tool_call_id: "c1", content: "sunny, 23 C" },
      { role: "assistant", content: "Sunny and 23 C." },
    ];
    const lc = await api.post("/window", { messages: msgs, strategy: { type: "langchain_trim", max_tokens: 2, token_counter: "messages" } });
    expect(lc.status).toBe(200);
    expect(lc.body.transformed).toContainEqual({ index: 2, action: "kept_unpaired", reason: "LangChain kept this tool result although its call was cut" });
    const mastra = await api.post("/window", { messages: msgs, strategy: { type: "mastra_last_messages", last_messages: 1 }, temporary_messages: [{ role: "user", content: "and tomorrow?" }] });
    expect(mastra.status).toBe(200);
    expect(mastra.body.messages.map((m: RoleMessage) => m.content)).toEqual([".", "", "sunny, 23 C", "Sunny and 23 C.", "and tomorrow?"]);
    expect(mastra.body.transformed).toContainEqual(expect.objectContaining({ action: "message_inserted" }));
  });

  it("POST /context: LlamaIndex's buffer puts the query before the history; a profile with langchain_trim replays a turn", async () => {
    const api = await project();
    const profile = await api.post("/profiles/trim-bot/versions", {
      settings: { strategy: { type: "langchain_trim", max_tokens: 2, token_counter: "messages", start_on: "human" }, system_prompt: "Be brief.", memory: { k: 1 } },
    });
    expect(profile.status).toBe(201);
    await new Promise((r) => setTimeout(r, 5));
    const user = `u-${randomUUID().slice(0, 8)}`;
    const c = await api.post("/conversations", { app_id: "trim-bot", end_user_id: user, name: "trip" });
    expect(c.status).toBe(201);
    const t = [randomUUID(), randomUUID(), randomUUID()];
    const batch = await api.post(`/conversations/${c.body.id}/messages/batch`, {
      messages: [
        { id: t[0], parent_message_id: null, query: "Plan a day in Porto", answer: "Start at the Ribeira." },
        { id: t[1], parent_message_id: t[0], query: "Where can I eat?", answer: "Try a francesinha." },
        { id: t[2], parent_message_id: t[1], query: "Anything I should avoid?", answer: "Avoid satay sauce." },
      ],
    });
    expect(batch.status).toBe(201);

    const ctx = await api.post("/context", {
      user_id: user,
      conversation_id: c.body.id,
      query: "And tomorrow?",
      system_prompt: "Be brief.",
      strategy: { type: "llamaindex_buffer", token_limit: 10_000 },
      memory: { enabled: false },
    });
    expect(ctx.status).toBe(200);
    expect(ctx.body.message_sections).toEqual(["system", "query", "history", "history", "history", "history", "history", "history"]);
    expect(ctx.body.messages[1]).toEqual({ role: "user", content: "And tomorrow?" });

    const r = await api.post("/replay", { conversation_id: c.body.id, message_id: t[2] });
    expect(r.status).toBe(200);
    expect(r.body.profile).toMatchObject({ source: "profile", app_id: "trim-bot" });
    // The newest two messages before the turn (start_on human), then the turn's own query.
    expect(r.body.context.messages.filter((m: RoleMessage) => m.role !== "system")).toEqual([
      { role: "user", content: "Where can I eat?" },
      { role: "assistant", content: "Try a francesinha." },
      { role: "user", content: "Anything I should avoid?" },
    ]);
    expect(r.body.context.dropped.map((d: { index: number }) => d.index)).toEqual([0, 1]);
  });
});
