import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { readGenAiSpan } from "@/lib/capture/genai-span";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import { ingestTraces } from "@/lib/capture/store-captures";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { useEmbeddedDatabase } from "../helpers/embedded-database";

// The Vercel AI SDK's spans (package `ai` 6, experimental_telemetry: {isEnabled: true}), with
// the attributes its generate-text.ts / stream-text.ts set (ai@6.0.99): the outer
// ai.generateText span without the prompt, the model call ai.generateText.doGenerate with
// ai.prompt.messages (stringifyForTelemetry of the provider prompt), ai.response.text /
// toolCalls / finishReason and the gen_ai.* request and usage attributes, and an ai.toolCall
// span. Only the model calls become turns, in the conventions' parts.

const store = useEmbeddedDatabase();

const PROMPT_1 = [
  { role: "system", content: "You are terse." },
  { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
];
const TOOL_CALL = { toolCallId: "call_1", toolName: "weather", input: '{"city":"Paris"}' };
const PROMPT_2 = [
  ...PROMPT_1,
  { role: "assistant", content: [{ type: "tool-call", ...TOOL_CALL }] },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "call_1", toolName: "weather", output: { type: "json", value: { temp: 18 } } }] },
];

function aiSdkRun(conversationId: string) {
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": "vercel-bot" }), spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("ai");
  const t0 = Date.UTC(2026, 0, 2);
  const outer = tracer.startSpan("ai.generateText", {
    startTime: new Date(t0),
    attributes: { "operation.name": "ai.generateText", "ai.operationId": "ai.generateText", "ai.prompt": JSON.stringify({ prompt: "Weather in Paris?" }), "ai.response.text": "18°C." },
  });
  const step = (i: number, prompt: unknown[], response: Record<string, string>) =>
    tracer
      .startSpan("ai.generateText.doGenerate", {
        startTime: new Date(t0 + i * 1000),
        attributes: {
          "operation.name": "ai.generateText.doGenerate",
          "ai.operationId": "ai.generateText.doGenerate",
          "ai.model.provider": "openai.chat",
          "ai.model.id": "gpt-4o-mini",
          "ai.telemetry.metadata.conversationId": conversationId,
          "ai.telemetry.metadata.userId": "alice",
          "ai.prompt.messages": JSON.stringify(prompt),
          "gen_ai.system": "openai.chat",
          "gen_ai.request.model": "gpt-4o-mini",
          ...response,
          "gen_ai.usage.input_tokens": 20 + i,
          "gen_ai.usage.output_tokens": 5,
        },
      })
      .end(new Date(t0 + i * 1000 + 300));
  step(0, PROMPT_1, { "ai.response.finishReason": "tool-calls", "ai.response.toolCalls": JSON.stringify([TOOL_CALL]) });
  tracer.startSpan("ai.toolCall", { attributes: { "ai.toolCall.name": "weather", "ai.toolCall.id": "call_1" } }).end();
  step(1, PROMPT_2, { "ai.response.finishReason": "stop", "ai.response.text": "18°C." });
  outer.end(new Date(t0 + 2000));
  return decodeTracesProto(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!);
}

describe("Vercel AI SDK spans", () => {
  it("reads ai.prompt.messages and ai.response.* into the conventions' parts", () => {
    const spans = aiSdkRun("conv-read").resourceSpans[0];
    const readings = spans.spans.map((s) => readGenAiSpan(s, spans.resource, new Date()));
    expect(readings.map((r) => r.kind)).toEqual(["chat", "ignored", "chat", "ignored"]);
    const second = readings[2];
    if (second.kind !== "chat") throw new Error("not a chat");
    expect(second.chat).toMatchObject({
      messageForm: "ai_sdk",
      provider: "openai.chat",
      requestModel: "gpt-4o-mini",
      conversationKey: "conv-read",
      endUserId: "alice",
      appId: "vercel-bot",
      inputTokens: 21,
      answer: "18°C.",
      query: '{"temp":18}',
    });
    expect(second.chat.inputMessages).toEqual([
      { role: "system", parts: [{ type: "text", content: "You are terse." }] },
      { role: "user", parts: [{ type: "text", content: "Weather in Paris?" }] },
      { role: "assistant", parts: [{ type: "tool_call", id: "call_1", name: "weather", arguments: '{"city":"Paris"}' }] },
      { role: "tool", parts: [{ type: "tool_call_response", id: "call_1", response: { temp: 18 } }] },
    ]);
    const first = readings[0];
    if (first.kind !== "chat") throw new Error("not a chat");
    expect(first.chat.outputMessages).toEqual([{ role: "assistant", parts: [{ type: "tool_call", id: "call_1", name: "weather", arguments: '{"city":"Paris"}' }], finish_reason: "tool-calls" }]);
    expect(first.chat.toolCalls).toEqual([{ id: "call_1", name: "weather", arguments: '{"city":"Paris"}' }]);
  });

  it("a prompt that is not the SDK's shape is rejected naming the field", () => {
    const spans = aiSdkRun("conv-bad").resourceSpans[0];
    const bad = { ...spans.spans[0], attributes: { ...spans.spans[0].attributes, "ai.prompt.messages": JSON.stringify([{ role: "user", content: 42 }]) } };
    expect(readGenAiSpan(bad, spans.resource, new Date())).toEqual({
      kind: "rejected",
      field: "resourceSpans[0].scopeSpans[0].spans[0].attributes[ai.prompt.messages][0].content",
      problem: "must be a string or an array of parts",
    });
  });

  it("stores the model calls as turns of the metadata's conversation, for its user", async () => {
    const r = await ingestTraces(projectSql(store.db.sql, DEFAULT_PROJECT_ID), aiSdkRun("conv-store"));
    expect(r).toMatchObject({ spans: 4, turns_created: 2, ignored: 2, rejected: [] });
    const rows = await store.db.sql.query<{ name: string; end_user_id: string; app_id: string; message_form: string; n: number }>(
      `SELECT c.name, c.end_user_id, c.app_id, s.message_form, s.input_count AS n
         FROM conversations c JOIN captured_spans s ON s.project_id = c.project_id AND s.conversation_id = c.id WHERE c.name = 'conv-store' ORDER BY s.started_at`,
    );
    expect(rows).toEqual([
      { name: "conv-store", end_user_id: "alice", app_id: "vercel-bot", message_form: "ai_sdk", n: 2 },
      { name: "conv-store", end_user_id: "alice", app_id: "vercel-bot", message_form: "ai_sdk", n: 4 },
    ]);
  });
});

describe("Sent vs modelled with tools (issue 35, item 6)", () => {
  it("a tool result is modelled with the role it was sent with, and tool calls compare by name and arguments", async () => {
    const { sentVsModelled } = await import("@/lib/capture/sent-vs-modelled");
    const sql = projectSql(store.db.sql, DEFAULT_PROJECT_ID);
    await ingestTraces(sql, aiSdkRun("conv-tools"));
    const [conv] = await store.db.sql.query<{ id: string }>(`SELECT id FROM conversations WHERE name = 'conv-tools'`);
    const [second] = await store.db.sql.query<{ message_id: string }>(`SELECT message_id FROM captured_spans WHERE conversation_id = $1 ORDER BY started_at DESC LIMIT 1`, [conv.id]);
    const r = await sentVsModelled(sql, conv.id, second.message_id);
    const call = '[tool call] weather({"city":"Paris"})';
    expect(r.sent.messages.filter((l) => l.section !== "system").map((l) => [l.section, l.role, l.content])).toEqual([
      ["history", "user", "Weather in Paris?"],
      ["history", "assistant", call],
      ["query", "tool", '{"temp":18}'],
    ]);
    expect(r.modelled.messages.filter((l) => l.section === "history" || l.section === "query").map((l) => [l.section, l.role, l.content])).toEqual([
      ["history", "user", "Weather in Paris?"],
      ["history", "assistant", call],
      ["query", "tool", '{"temp":18}'],
    ]);
    expect(r.diff).toMatchObject({ query_matches: true, history: { sent: 2, modelled: 2, both: 2, sent_only: 0, modelled_only: 0 } });
  });
});
