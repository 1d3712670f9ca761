import { createRequire } from "node:module";
import { OpenAIInstrumentation } from "@opentelemetry/instrumentation-openai";
import { ProtobufLogsSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withPrompts } from "../helpers/captured-prompts";
import { decodeLogsProto } from "@/lib/capture/otlp-logs";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import { ingestLogs, ingestTraces } from "@/lib/capture/store-captures";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { useEmbeddedDatabase } from "../helpers/embedded-database";
import { startOpenAiStub, type OpenAiStub } from "../helpers/openai-stub";

// The real OpenTelemetry contrib instrumentation (npm @opentelemetry/instrumentation-openai
// 0.21, devDependency) around the real `openai` client calling a local OpenAI-compatible
// stub, content capture on as the README says (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true).
// It sends spans without content and the messages as log records; both, serialized by the
// OpenTelemetry SDK as its exporters would, are captured into a real PGlite database, logs
// first: what is stored is what the client sent the model (the stub's requests).

const store = useEmbeddedDatabase();
let stub: OpenAiStub;

beforeAll(async () => {
  stub = await startOpenAiStub({ chat: (body) => `re: ${body.messages.at(-1).content}` });
});
afterAll(async () => stub?.stop());

describe("the real @opentelemetry/instrumentation-openai", () => {
  it("a chat call's log events and span become one turn with the messages the model received", async () => {
    const resource = resourceFromAttributes({ "service.name": "real-contrib" });
    const spans = new InMemorySpanExporter();
    const logs = new InMemoryLogRecordExporter();
    process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = "true";
    const instrumentation = new OpenAIInstrumentation();
    delete process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;
    instrumentation.setTracerProvider(new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(spans)] }));
    instrumentation.setLoggerProvider(new LoggerProvider({ resource, processors: [new SimpleLogRecordProcessor({ exporter: logs })] }));
    instrumentation.enable();
    // Required (CommonJS) after the instrumentation is enabled, so its require hook patches the client.
    const { OpenAI } = createRequire(import.meta.url)("openai") as typeof import("openai");
    const client = new OpenAI({ baseURL: `${stub.url}/v1`, apiKey: "test" });
    const reply = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "What is OTLP?" },
      ],
    });
    instrumentation.disable();
    expect(reply.choices[0].message.content).toBe("re: What is OTLP?");
    expect(spans.getFinishedSpans()).toHaveLength(1);
    expect(logs.getFinishedLogRecords().length).toBe(3);

    const sql = projectSql(store.db.sql, DEFAULT_PROJECT_ID);
    expect(await ingestLogs(sql, decodeLogsProto(ProtobufLogsSerializer.serializeRequest(logs.getFinishedLogRecords())!))).toMatchObject({ awaiting_span: 3, rejected: [] });
    expect(await ingestTraces(sql, decodeTracesProto(ProtobufTraceSerializer.serializeRequest(spans.getFinishedSpans())!))).toMatchObject({ turns_created: 1, rejected: [] });
    const traceId = spans.getFinishedSpans()[0].spanContext().traceId;
    const [row] = await withPrompts(store.db, await store.db.sql.query<{ message_id: string; trace_id: string; span_id: string; message_form: string; app_id: string; query: string; answer: string }>(
      `SELECT s.message_id, m.metadata->'otlp'->>'trace_id' AS trace_id, m.metadata->'otlp'->>'span_id' AS span_id, s.message_form, c.app_id, m.query, m.answer FROM captured_spans s
         JOIN conversations c ON c.project_id = s.project_id AND c.id = s.conversation_id
         JOIN messages m ON m.project_id = s.project_id AND m.id = s.message_id WHERE m.metadata->'otlp'->>'trace_id' = $1`,
      [traceId],
    ));
    const sent = stub.requests.filter((q) => q.path === "/v1/chat/completions").at(-1)!.body.messages;
    expect((row.input_messages as unknown as { role: string; parts: { content: string }[] }[]).map((m) => ({ role: m.role, content: m.parts.map((p) => p.content).join("") }))).toEqual(sent);
    expect(row).toMatchObject({ message_form: "logs", app_id: "real-contrib", query: "What is OTLP?", answer: "re: What is OTLP?" });
  });
});
