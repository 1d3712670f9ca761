import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemscope, type MemscopeClient } from "@/sdk/typescript/src/index";
import { TOOL_AGENT_DEMO_ID, toolAgentDemo } from "@/lib/demo/demo-tool-agent";
import { HOOK_INSTRUCTION } from "@/lib/strategies/agentscope/prompts";
import type { AppServer } from "../helpers/app-server";
import { startOpenAiStub, type OpenAiStub } from "../helpers/openai-stub";
import { DATABASE_KINDS, openTestDatabase, type TestDatabase } from "../helpers/test-database";

// auto_context through POST /window and POST /context: AgentScope v1.0.12's
// AutoContextMemory with the chat model as summarizer (a local stub), replayed over the
// tool-agent demo conversation (stored through the API), offloaded originals readable by their uuid.

type Msg = { role: "system" | "user" | "assistant" | "tool"; content: string; tool_call_id?: string; tool_calls?: { id: string; name: string; arguments: string }[] };
const u = (content: string): Msg => ({ role: "user", content });
const a = (content: string): Msg => ({ role: "assistant", content });
const call = (id: string): Msg => ({ role: "assistant", content: "", tool_calls: [{ id, name: "read_file", arguments: '{"path":"/srv/app.conf"}' }] });
const tool = (id: string, content = `result of ${id}`): Msg => ({ role: "tool", tool_call_id: id, content });
const TAG = /<!-- CONTEXT_OFFLOAD: uuid=([0-9a-f-]{36}) -->$/;

/** The four-step history of the unit tests: strategies 1, 2, 4 and 6 in a row. */
const fourSteps: Msg[] = [
  u("q1"),
  ...Array.from({ length: 4 }, (_, i) => [call(`c${i}`), tool(`c${i}`)]).flat(),
  a("a1"),
  u("q2"),
  a("b".repeat(6000)),
  u("q3"),
  call("c9"),
  tool("c9"),
  a("a3"),
  u("q4"),
  a("a4"),
  u("q5"),
  call("c10"),
  tool("c10"),
];

describe.each(DATABASE_KINDS)("auto_context (AgentScope AutoContextMemory) through the API, on %s", (kind) => {
  let db: TestDatabase;
  let server: AppServer;
  let api: MemscopeClient;
  let stub: OpenAiStub;
  let summaries = 0;
  const start = async () => {
    server = await db.startApp({ env: { MEMSCOPE_CHAT_BASE_URL: stub.url, MEMSCOPE_CHAT_MODEL: "stub-chat" } });
    api = createMemscope({ baseUrl: server.url });
  };

  beforeAll(async () => {
    stub = await startOpenAiStub({ chat: () => `SUMMARY ${++summaries}` });
    db = await openTestDatabase(kind);
    await start();
    const demo = toolAgentDemo();
    const c = await api.POST("/conversations", { body: demo.conversation as never });
    expect(c.response.status).toBe(201);
    const b = await api.POST("/conversations/{id}/messages/batch", { params: { path: { id: TOOL_AGENT_DEMO_ID } }, body: { messages: demo.turns } as never });
    expect(b.response.status).toBeLessThan(300);
  });
  afterAll(async () => {
    await server?.stop();
    await db?.stop();
    await stub?.stop();
  });

  const chatRequests = () => stub.requests.filter((r) => r.path === "/v1/chat/completions");

  it("/window: four model calls apply strategies 1, 2, 4 and 6; summaries come from the model, asked as AgentScope asks", async () => {
    const before = chatRequests().length;
    const r = await api.POST("/window", {
      body: {
        messages: fourSteps,
        strategy: { type: "auto_context", msg_threshold: 1, last_keep: 4, min_compression_token_threshold: 10, steps: 4, system_prompt: "You are Friday." },
      } as never,
    });
    expect(r.response.status).toBe(200);
    const report = r.data!.auto_context!;
    expect(report.steps.map((s) => s.strategy)).toEqual([1, 2, 4, 6]);
    expect(report).toMatchObject({ follows: "AgentScope v1.0.12 AutoContextMemory", summaries: "model", summary_model: "stub-chat", model_calls: 3 });
    // Three summaries (strategies 1, 4, 6); the offload of strategy 2 needs no model.
    const sent = chatRequests().slice(before);
    expect(sent).toHaveLength(3);
    // An instruction as a user message, the messages as chat messages (the tool calls native), the end marker.
    const first = sent[0].body.messages;
    expect(first[0].role).toBe("user");
    expect(first[1]).toMatchObject({ role: "assistant", tool_calls: [{ id: "c0", type: "function", function: { name: "read_file" } }] });
    expect(first[2]).toMatchObject({ role: "tool", tool_call_id: "c0", content: "result of c0" });
    expect(first).toHaveLength(1 + 8 + 1);
    // Current round: the character budget after the end marker.
    expect(sent[2].body.messages.at(-1).content).toMatch(/Write about \d+ characters/);
    // What the model receives next: the hook's system message, then the memory.
    const msgs = r.data!.messages;
    expect(msgs[0]).toEqual({ role: "system", content: `You are Friday.\n\n${HOOK_INSTRUCTION}` });
    expect(msgs).toHaveLength(1 + 11);
    expect(msgs[2].content).toMatch(/^SUMMARY \d+\n<!-- CONTEXT_OFFLOAD/);
    expect(msgs.at(-1)!.content).toMatch(/^SUMMARY \d+<!-- CONTEXT_OFFLOAD/);
  });

  it("/window: every offloaded original is readable at /offloaded/{uuid}", async () => {
    const r = await api.POST("/window", {
      body: { messages: [u("q0"), a("A".repeat(6000)), u("q1"), a("a1"), u("q2")], strategy: { type: "auto_context", msg_threshold: 1, last_keep: 2 } } as never,
    });
    const stubbed = r.data!.messages[2].content as string;
    expect(stubbed.startsWith(`${"A".repeat(200)}...\n<!-- CONTEXT_OFFLOAD: uuid=`)).toBe(true);
    const uuid = TAG.exec(stubbed)![1];
    expect(r.data!.auto_context!.steps[0].events[0].offload_ref).toBe(uuid);
    const o = await api.GET("/offloaded/{ref}", { params: { path: { ref: uuid } } });
    expect(o.response.status).toBe(200);
    expect(JSON.parse(o.data!.content)).toEqual([a("A".repeat(6000))]);
  });

  it("/window at AgentScope's defaults: a plain chat over 100 messages is sent whole", async () => {
    const chat = Array.from({ length: 60 }, (_, i) => [u(`q${i}`), a(`a${i}`)]).flat();
    const r = await api.POST("/window", { body: { messages: [...chat, u("next")], strategy: { type: "auto_context" } } as never });
    expect(r.data!.auto_context!.steps[0]).toMatchObject({ triggered: true, strategy: null, messages_before: 121, threshold_tokens: 98_304 });
    expect(r.data!.messages.slice(1)).toEqual([...chat, u("next")]);
  });

  it("/window: the old auto_context parameters are refused with 422 naming them; summary_buffer keeps them", async () => {
    const old = await api.POST("/window", { body: { messages: [u("hi")], strategy: { type: "auto_context", offload_tokens: 2000 } } as never });
    expect(old.response.status).toBe(422);
    expect(JSON.stringify(old.error)).toContain("offload_tokens");
    const sb = await api.POST("/window", { body: { messages: [u("hi")], strategy: { type: "summary_buffer", offload_tokens: 2000 } } as never });
    expect(sb.response.status).toBe(200);
    expect(sb.data!.triggered).toBe(false);
  });

  it("/window: Agents-Flex truncate length 0 is accepted and empties every history text", async () => {
    const r = await api.POST("/window", {
      body: { messages: [u("question"), a("answer")], strategy: { type: "message_window", history_message_truncate_enable: true, history_message_truncate_length: 0 } } as never,
    });
    expect(r.response.status).toBe(200);
    expect(r.data!.messages.map((m) => m.content)).toEqual(["", ""]);
  });

  it("/context replays the stored tool-agent conversation: old tool runs compressed at AgentScope's defaults, the query last, the hook in both wirings", async () => {
    const body = (wiring: "1.0" | "1.1") =>
      ({
        user_id: "sam@example.com",
        conversation_id: TOOL_AGENT_DEMO_ID,
        query: "Is the rollout safe now?",
        system_prompt: "You are the on-call agent.",
        strategy: { type: "auto_context", hook_wiring: wiring },
        memory: { enabled: false },
      }) as never;
    // First for free: placeholders, no model call, and how many calls the model run will make.
    const callsBefore = chatRequests().length;
    const free = await api.POST("/context", { body: { ...(body("1.0") as object), strategy: { type: "auto_context", summarizer: "placeholder" } } as never });
    expect(chatRequests().length).toBe(callsBefore);
    expect(free.data!.auto_context).toMatchObject({ summaries: "placeholder", chat_model: "stub-chat", model_calls: 0 });
    const needed = free.data!.auto_context!.summaries_written;
    expect(needed).toBeGreaterThan(0);

    const calls0 = chatRequests().length;
    const r = await api.POST("/context", { body: body("1.0") });
    expect(r.response.status).toBe(200);
    const report = r.data!.auto_context!;
    expect(report.calls).toBeGreaterThan(20);
    expect(report.steps.length).toBeGreaterThan(0);
    expect(report.steps.every((s) => s.turn_index !== null || s.call === report.calls)).toBe(true);
    expect(report.steps.flatMap((s) => s.events.map((e) => e.type))).toContain("TOOL_INVOCATION_COMPRESS");
    const made = chatRequests().length - calls0;
    expect(report.model_calls).toBe(made);
    expect(made).toBe(needed);
    const msgs = r.data!.messages;
    expect(msgs[0]).toEqual({ role: "system", content: `You are the on-call agent.\n\n${HOOK_INSTRUCTION}` });
    expect(msgs.at(-1)).toEqual(u("Is the rollout safe now?"));
    // Tool results stay paired with their calls.
    const callIds = new Set(msgs.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []));
    for (const m of msgs) if (m.role === "tool") expect(callIds.has(m.tool_call_id!)).toBe(true);
    // A summary's original opens.
    const ref = report.steps[0].events[0].offload_ref!;
    const o = await api.GET("/offloaded/{ref}", { params: { path: { ref } } });
    expect(JSON.parse(o.data!.content).length).toBe(report.steps[0].events[0].compressed_message_count);

    // The same replay again is served from the summary cache: no model call.
    const calls1 = chatRequests().length;
    const again = await api.POST("/context", { body: body("1.1") });
    expect(chatRequests().length).toBe(calls1);
    expect(again.data!.auto_context!.cached_summaries).toBe(made);
    expect(again.data!.messages.slice(0, 2)).toEqual([
      { role: "system", content: "You are the on-call agent." },
      { role: "system", content: HOOK_INSTRUCTION },
    ]);
    expect(again.data!.message_sections.slice(0, 2)).toEqual(["system", "system"]);
  });

  it("/context and /window after a restart: the model's summaries come from the database, no model call", async () => {
    const contextBody = { user_id: "sam@example.com", conversation_id: TOOL_AGENT_DEMO_ID, query: "Is the rollout safe now?", strategy: { type: "auto_context" }, memory: { enabled: false } } as never;
    const windowBody = { messages: fourSteps, strategy: { type: "auto_context", msg_threshold: 1, last_keep: 3, min_compression_token_threshold: 1, steps: 4 } } as never;
    const before = await api.POST("/context", { body: contextBody });
    const beforeWindow = await api.POST("/window", { body: windowBody });
    expect(beforeWindow.data!.auto_context!.summaries_written).toBeGreaterThan(0);
    await server.stop();
    await start();
    const calls0 = chatRequests().length;
    const after = await api.POST("/context", { body: contextBody });
    const afterWindow = await api.POST("/window", { body: windowBody });
    expect(chatRequests().length).toBe(calls0);
    expect(after.data!.auto_context).toMatchObject({ model_calls: 0, cached_summaries: before.data!.auto_context!.summaries_written });
    expect(afterWindow.data!.auto_context).toMatchObject({ model_calls: 0, cached_summaries: beforeWindow.data!.auto_context!.summaries_written });
    const noUuids = (ms: { content: unknown }[]) => JSON.stringify(ms.map((m) => m.content)).replace(/uuid=[0-9a-f-]{36}/g, "uuid=*");
    expect(noUuids(after.data!.messages)).toBe(noUuids(before.data!.messages));
    expect(noUuids(afterWindow.data!.messages)).toBe(noUuids(beforeWindow.data!.messages));
  });
});
