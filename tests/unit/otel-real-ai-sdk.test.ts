import { createOpenAI } from "@ai-sdk/openai";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { generateText, type ModelMessage } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withPrompts } from "../helpers/captured-prompts";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import { ingestTraces } from "@/lib/capture/store-captures";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { useEmbeddedDatabase } from "../helpers/embedded-database";
import { startOpenAiStub, type OpenAiStub } from "../helpers/openai-stub";

// The real Vercel AI SDK (npm `ai` 6 and `@ai-sdk/openai`, devDependencies) calling a local
// OpenAI-compatible stub with experimental_telemetry on, as the README's recipe says; its
// spans, serialized by the OpenTelemetry SDK as its exporter would, are captured into a real
// PGlite database. What is stored is what the SDK sent the model (the stub's requests).

const store = useEmbeddedDatabase();
let stub: OpenAiStub;

beforeAll(async () => {
  stub = await startOpenAiStub({ chat: (body) => `re: ${body.messages.at(-1).content}` });
});
afterAll(async () => stub?.stop());

describe("the real Vercel AI SDK", () => {
  it("two generateText calls of one conversation are captured with the messages the model received", async () => {
    const memory = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": "real-ai-sdk" }), spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("ai");
    const model = createOpenAI({ baseURL: `${stub.url}/v1`, apiKey: "test" }).chat("gpt-4o-mini");
    const telemetry = { isEnabled: true, tracer, metadata: { conversationId: "real-ai-sdk-1", userId: "bob" } };
    const messages: ModelMessage[] = [{ role: "user", content: "Hello there" }];
    const first = await generateText({ model, system: "Be brief.", messages, experimental_telemetry: telemetry });
    messages.push({ role: "assistant", content: first.text }, { role: "user", content: "And more?" });
    const second = await generateText({ model, system: "Be brief.", messages, experimental_telemetry: telemetry });
    expect(second.text).toBe("re: And more?");

    const r = await ingestTraces(projectSql(store.db.sql, DEFAULT_PROJECT_ID), decodeTracesProto(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!));
    expect(r).toMatchObject({ turns_created: 2, rejected: [] });
    const rows = await withPrompts(store.db, await store.db.sql.query<{ message_id: string; trace_id: string; span_id: string; end_user_id: string; query: string; answer: string }>(
      `SELECT s.message_id, m.metadata->'otlp'->>'trace_id' AS trace_id, m.metadata->'otlp'->>'span_id' AS span_id, c.end_user_id, m.query, m.answer FROM captured_spans s
         JOIN conversations c ON c.project_id = s.project_id AND c.id = s.conversation_id
         JOIN messages m ON m.project_id = s.project_id AND m.id = s.message_id
        WHERE c.name = 'real-ai-sdk-1' ORDER BY s.started_at`,
    ));
    const sent = stub.requests.filter((q) => q.path === "/v1/chat/completions").map((q) => q.body.messages as { role: string; content: string }[]);
    expect(rows.map((row) => (row.input_messages as unknown as { role: string; parts: { content: string }[] }[]).map((m) => ({ role: m.role, content: m.parts.map((p) => p.content).join("") })))).toEqual(sent);
    expect(rows.map((row) => [row.end_user_id, row.query, row.answer])).toEqual([
      ["bob", "Hello there", "re: Hello there"],
      ["bob", "And more?", "re: And more?"],
    ]);
  });
});
