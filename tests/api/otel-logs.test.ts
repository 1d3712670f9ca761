import { gzipSync } from "node:zlib";
import { context, trace } from "@opentelemetry/api";
import { SeverityNumber } from "@opentelemetry/api-logs";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { JsonLogsSerializer, JsonMetricsSerializer, JsonTraceSerializer, ProtobufLogsSerializer, ProtobufMetricsSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import type { Owner } from "../helpers/owner";
import { DATABASE_KINDS } from "../helpers/test-database";

// POST /api/v1/logs and /api/v1/metrics (issue 35): a chat call recorded the way
// @opentelemetry/instrumentation-openai records it (a span without content, the messages as
// GenAI log events), exported with the OpenTelemetry SDK's own serializers to the started
// server: the turn is stored with the messages as sent, whichever signal arrives first. The
// metrics receiver keeps nothing and says so. Bad bodies are 4xx naming the field.

const resource = resourceFromAttributes({ "service.name": "contrib-bot" });

function contribCall(question: string, conversationId: string) {
  const spans = new InMemorySpanExporter();
  const logs = new InMemoryLogRecordExporter();
  const tracer = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(spans)] }).getTracer("@opentelemetry/instrumentation-openai");
  const logger = new LoggerProvider({ resource, processors: [new SimpleLogRecordProcessor({ exporter: logs })] }).getLogger("@opentelemetry/instrumentation-openai");
  const span = tracer.startSpan("chat gpt-4o-mini", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.system": "openai", "gen_ai.conversation.id": conversationId } });
  const ctx = trace.setSpan(context.active(), span);
  const emit = (name: string, body: Record<string, unknown>) => logger.emit({ context: ctx, severityNumber: SeverityNumber.INFO, attributes: { "event.name": name, "gen_ai.system": "openai" }, body: body as never });
  emit("gen_ai.system.message", { content: "Be brief." });
  emit("gen_ai.user.message", { content: question });
  emit("gen_ai.choice", { finish_reason: "stop", index: 0, message: { content: `re: ${question}` } });
  span.end();
  return { spans: spans.getFinishedSpans() as ReadableSpan[], records: logs.getFinishedLogRecords() };
}

describe.each(DATABASE_KINDS)("OTLP logs and metrics on %s", (kind) => {
  let server: SharedProject;
  let owner: Owner;
  let n = 0;
  const project = async (scopes = ["read", "write", "admin"]) => {
    const p = await owner.post("/projects", { name: `otel-logs ${++n}` });
    const key = await owner.key(`k${n}`, scopes, p.id);
    return { key, api: apiClient(server.url, { authorization: `Bearer ${key}` }) };
  };
  const post = (path: string, key: string | null, body: BodyInit, headers: Record<string, string>) =>
    fetch(`${server.url}/api/v1/${path}`, { method: "POST", headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers }, body }).then(async (r) => ({
      status: r.status,
      type: r.headers.get("content-type"),
      body: r.headers.get("content-type")?.includes("json") ? await r.json() : new Uint8Array(await r.arrayBuffer()),
    }));
  const JSON_TYPE = { "content-type": "application/json" };
  const PROTO_TYPE = { "content-type": "application/x-protobuf" };

  beforeAll(async () => {
    server = await sharedProject(kind, "otel-logs");
    owner = server.owner;
  }, 240_000);
  afterAll(async () => server?.stop());

  it("log events first (JSON), then the span (the SDK's protobuf exporter): one turn with the messages as sent; another project's span does not complete it", async () => {
    const { key, api } = await project();
    const other = await project();
    const call = contribCall("What is OTLP?", "conv-logs");
    // The other project receives the span: it waits there, and never meets this project's events.
    const otherExporter = new ProtoExporter({ url: `${server.url}/api/v1/traces`, headers: { authorization: `Bearer ${other.key}` }, timeoutMillis: 60_000 });
    expect((await new Promise<{ code: number }>((resolve) => otherExporter.export(call.spans, resolve))).code).toBe(0);

    const logs = await post("logs", key, Buffer.from(JsonLogsSerializer.serializeRequest(call.records)!), JSON_TYPE);
    expect(logs.status).toBe(200);
    expect(logs.body.memscope).toMatchObject({ log_records: 3, awaiting_span: 3, turns_created: 0, rejected: [] });
    expect(logs.body.partialSuccess).toBeUndefined();

    const exporter = new ProtoExporter({ url: `${server.url}/api/v1/traces`, headers: { authorization: `Bearer ${key}` }, compression: "gzip" as never, timeoutMillis: 60_000 });
    expect((await new Promise<{ code: number }>((resolve) => exporter.export(call.spans, resolve))).code).toBe(0);

    const list = (await api.get(`/conversations?q=conv-logs`)).body.data as { id: string; name: string; app_id: string; turn_count: number }[];
    expect(list.map((c) => [c.name, c.app_id, c.turn_count])).toEqual([["conv-logs", "contrib-bot", 1]]);
    const captures = await api.get(`/conversations/${list[0].id}/captures`);
    expect(captures.body.data).toMatchObject([{ message_form: "logs", input_message_count: 2, request_model: "gpt-4o-mini" }]);
    const svm = await api.get(`/conversations/${list[0].id}/captures/${captures.body.data[0].message_id}`);
    expect(svm.status).toBe(200);
    expect(svm.body.captured.input_messages).toEqual([
      { role: "system", parts: [{ type: "text", content: "Be brief." }] },
      { role: "user", parts: [{ type: "text", content: "What is OTLP?" }] },
    ]);
    expect(svm.body.captured.output_messages).toEqual([{ role: "assistant", parts: [{ type: "text", content: "re: What is OTLP?" }], finish_reason: "stop" }]);
    // The other project holds only its waiting span: no conversation.
    expect((await other.api.get(`/conversations?q=conv-logs`)).body.data).toEqual([]);
    // The events again, as protobuf and gzip (an exporter's retry): duplicates, nothing new.
    const again = await post("logs", key, gzipSync(ProtobufLogsSerializer.serializeRequest(call.records)!), { ...PROTO_TYPE, "content-encoding": "gzip" });
    expect(again).toMatchObject({ status: 200, type: "application/x-protobuf" });
    expect([...(again.body as Uint8Array)]).toEqual([]);
    expect((await api.get(`/conversations/${list[0].id}/captures`)).body.data).toHaveLength(1);
  });

  it("a span waiting for its log events carries the advice to turn on content capture only while the project sends none", async () => {
    const { key } = await project();
    const first = contribCall("Where is my order?", "conv-warn-1");
    const spans = (c: ReturnType<typeof contribCall>) => post("traces", key, Buffer.from(JsonTraceSerializer.serializeRequest(c.spans)!), JSON_TYPE);
    // No log events from this project yet: accepted (0 rejected) with the advice.
    const waiting = await spans(first);
    expect(waiting.status).toBe(200);
    expect(waiting.body.memscope).toMatchObject({ awaiting_logs: 1, turns_created: 0 });
    expect(waiting.body.partialSuccess).toMatchObject({ rejectedSpans: "0", errorMessage: expect.stringContaining("turn on its content capture") });
    // Its events arrive (capture is on): the turn is stored, and a later span waiting for its own events is accepted without advice.
    const logs = await post("logs", key, Buffer.from(JsonLogsSerializer.serializeRequest(first.records)!), JSON_TYPE);
    expect(logs.body.memscope).toMatchObject({ turns_created: 1 });
    const next = await spans(contribCall("And when will it arrive?", "conv-warn-1"));
    expect(next.body.memscope).toMatchObject({ awaiting_logs: 1, turns_created: 0 });
    expect(next.body.partialSuccess).toBeUndefined();
  });

  it("bad logs: 400 naming the field, 413, 415, 401, 403; other records and span-less events counted in partialSuccess", async () => {
    const { key } = await project();
    const reader = await project(["read"]);
    expect((await post("logs", null, "{}", JSON_TYPE)).status).toBe(401);
    expect((await post("logs", reader.key, "{}", JSON_TYPE)).status).toBe(403);
    expect((await post("logs", key, "{}", { "content-type": "text/plain" })).status).toBe(415);
    expect((await post("logs", key, new Uint8Array(33 * 1024 * 1024), PROTO_TYPE)).status).toBe(413);
    const badId = await post("logs", key, JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ traceId: "xyz" }] }] }] }), JSON_TYPE);
    expect(badId.status).toBe(400);
    expect(badId.body.error).toMatchObject({ code: "invalid_otlp", details: [{ field: "resourceLogs[0].scopeLogs[0].logRecords[0].traceId" }] });
    const cut = await post("logs", key, Uint8Array.from([0x0a, 0x0a, 0x12]), PROTO_TYPE);
    expect(cut.status).toBe(400);
    expect(cut.body.error.details[0].field).toBe("resourceLogs[0]");

    const mixed = await post(
      "logs",
      key,
      JSON.stringify({
        resourceLogs: [
          {
            scopeLogs: [
              {
                logRecords: [
                  { body: { stringValue: "GET / 200" } },
                  { attributes: [{ key: "event.name", value: { stringValue: "gen_ai.user.message" } }], body: { kvlistValue: { values: [{ key: "content", value: { stringValue: "lost" } }] } } },
                ],
              },
            ],
          },
        ],
      }),
      JSON_TYPE,
    );
    expect(mixed.status).toBe(200);
    expect(mixed.body.partialSuccess.rejectedLogRecords).toBe("2");
    expect(mixed.body.partialSuccess.errorMessage).toContain("resourceLogs[0].scopeLogs[0].logRecords[1].spanId: a gen_ai.user.message event without the trace and span ids of its chat span");
    expect(mixed.body.memscope).toMatchObject({ log_records: 2, ignored: 1, awaiting_span: 0 });
  });

  it("metrics: 200 with every data point counted as rejected, in both encodings; 400, 413, 415, 401, 403", async () => {
    const { key } = await project();
    const reader = await project(["read"]);
    class Reader extends MetricReader {
      protected async onForceFlush() {}
      protected async onShutdown() {}
    }
    const r = new Reader();
    const meter = new MeterProvider({ resource, readers: [r] }).getMeter("gen_ai");
    meter.createHistogram("gen_ai.client.token.usage").record(12, { "gen_ai.token.type": "input" });
    meter.createHistogram("gen_ai.client.operation.duration").record(0.4);
    const { resourceMetrics } = await r.collect();
    const json = await post("metrics", key, Buffer.from(JsonMetricsSerializer.serializeRequest(resourceMetrics)!), JSON_TYPE);
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ partialSuccess: { rejectedDataPoints: "2", errorMessage: expect.stringContaining("keeps no metrics") }, memscope: { data_points: 2 } });
    const proto = await post("metrics", key, gzipSync(ProtobufMetricsSerializer.serializeRequest(resourceMetrics)!), { ...PROTO_TYPE, "content-encoding": "gzip" });
    expect(proto).toMatchObject({ status: 200, type: "application/x-protobuf" });
    // partial_success {rejected_data_points: 2, error_message}.
    expect([...(proto.body as Uint8Array).slice(0, 4)]).toEqual([0x0a, (proto.body as Uint8Array).length - 2, 0x08, 0x02]);
    expect((await post("metrics", key, "[", JSON_TYPE)).status).toBe(400);
    expect((await post("metrics", key, "{}", { "content-type": "text/csv" })).status).toBe(415);
    expect((await post("metrics", key, new Uint8Array(33 * 1024 * 1024), PROTO_TYPE)).status).toBe(413);
    expect((await post("metrics", null, "{}", JSON_TYPE)).status).toBe(401);
    expect((await post("metrics", reader.key, "{}", JSON_TYPE)).status).toBe(403);
  });
});
