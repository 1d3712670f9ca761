import { createRequire } from "node:module";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { OpenAIInstrumentation } from "@traceloop/instrumentation-openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withPrompts } from "../helpers/captured-prompts";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import { ingestTraces } from "@/lib/capture/store-captures";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { useEmbeddedDatabase } from "../helpers/embedded-database";
import { startOpenAiStub, type OpenAiStub } from "../helpers/openai-stub";

// The real Traceloop / OpenLLMetry instrumentation (npm @traceloop/instrumentation-openai
// 0.27, devDependency) around the real `openai` client calling a local OpenAI-compatible
// stub: two calls of an agent that resends its history, without a conversation id. The spans,
// serialized by the OpenTelemetry SDK as its exporter would, are captured into a real PGlite
// database: one conversation (the second call continues the first by its messages) whose
// stored inputs are what the client sent the model (the stub's requests).

const store = useEmbeddedDatabase();
let stub: OpenAiStub;

beforeAll(async () => {
  stub = await startOpenAiStub({ chat: (body) => `re: ${body.messages.at(-1).content}` });
});
afterAll(async () => stub?.stop());

describe("the real @traceloop/instrumentation-openai", () => {
  it("an agent's two calls become one conversation of two turns with the messages the model received", async () => {
    const spans = new InMemorySpanExporter();
    const instrumentation = new OpenAIInstrumentation({ traceContent: true });
    instrumentation.setTracerProvider(new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": "real-traceloop" }), spanProcessors: [new SimpleSpanProcessor(spans)] }));
    instrumentation.enable();
    // Required (CommonJS) after the instrumentation is enabled, so its require hook patches the client.
    const { OpenAI } = createRequire(import.meta.url)("openai") as typeof import("openai");
    const client = new OpenAI({ baseURL: `${stub.url}/v1`, apiKey: "test" });
    const messages: { role: "system" | "user" | "assistant"; content: string }[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hello there" },
    ];
    const first = await client.chat.completions.create({ model: "gpt-4o-mini", messages });
    messages.push({ role: "assistant", content: first.choices[0].message.content ?? "" }, { role: "user", content: "And more?" });
    await client.chat.completions.create({ model: "gpt-4o-mini", messages });
    instrumentation.disable();
    expect(spans.getFinishedSpans()).toHaveLength(2);

    const r = await ingestTraces(projectSql(store.db.sql, DEFAULT_PROJECT_ID), decodeTracesProto(ProtobufTraceSerializer.serializeRequest(spans.getFinishedSpans())!));
    expect(r).toMatchObject({ turns_created: 2, rejected: [] });
    const rows = await withPrompts(store.db, await store.db.sql.query<{ message_id: string; trace_id: string; span_id: string; conversation_id: string; query: string; answer: string }>(
      `SELECT s.message_id, m.metadata->'otlp'->>'trace_id' AS trace_id, m.metadata->'otlp'->>'span_id' AS span_id, s.conversation_id, m.query, m.answer FROM captured_spans s
         JOIN conversations c ON c.project_id = s.project_id AND c.id = s.conversation_id
         JOIN messages m ON m.project_id = s.project_id AND m.id = s.message_id WHERE c.app_id = 'real-traceloop' ORDER BY s.started_at`,
    ));
    const sent = stub.requests.filter((q) => q.path === "/v1/chat/completions").map((q) => q.body.messages);
    expect(rows.map((row) => (row.input_messages as unknown as { role: string; parts: { content: string }[] }[]).map((m) => ({ role: m.role, content: m.parts.map((p) => p.content).join("") })))).toEqual(sent);
    expect(rows.map((row) => [row.query, row.answer])).toEqual([
      ["Hello there", "re: Hello there"],
      ["And more?", "re: And more?"],
    ]);
    expect(new Set(rows.map((row) => row.conversation_id)).size).toBe(1);
  });
});
