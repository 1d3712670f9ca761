import { context, trace } from "@opentelemetry/api";
import { JsonMetricsSerializer, ProtobufLogsSerializer, ProtobufMetricsSerializer } from "@opentelemetry/otlp-transformer";
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { withPrompts } from "../helpers/captured-prompts";
import { chatCall, resource } from "../helpers/genai-log-calls";
import { countMetricsJson, countMetricsProto, decodeLogsJson, decodeLogsProto } from "@/lib/capture/otlp-logs";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import { OtlpProblem, type OtlpLogs } from "@/lib/capture/otlp-types";
import { ingestLogs, ingestTraces } from "@/lib/capture/store-captures";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { useEmbeddedDatabase } from "../helpers/embedded-database";

// GenAI message content sent as OTLP log records (issue 35), the way
// @opentelemetry/instrumentation-openai emits them (its instrumentation.ts: one record per
// input message at the span's start, with attribute event.name and a body {content,
// tool_calls, id}; one gen_ai.choice per choice at its end), built with the OpenTelemetry
// SDK's own logger and serializers, and joined to their chat span in a real PGlite database
// whichever arrives first.

const store = useEmbeddedDatabase();
const sql = () => projectSql(store.db.sql, DEFAULT_PROJECT_ID);

const EXPECTED_INPUT = (tag: string) => [
  { role: "system", parts: [{ type: "text", content: "You are terse." }] },
  { role: "user", parts: [{ type: "text", content: `${tag}: weather in Paris?` }] },
  { role: "assistant", parts: [{ type: "tool_call", id: "c1", name: "weather", arguments: '{"city":"Paris"}' }] },
  { role: "tool", parts: [{ type: "tool_call_response", id: "c1", response: "18°C, sunny" }] },
];

async function captured(traceId: string) {
  return withPrompts(store.db, await store.db.sql.query<{ message_id: string; trace_id: string; span_id: string; message_form: string; input_tokens: number; query: string; answer: string }>(
    `SELECT c.message_id, m.metadata->'otlp'->>'trace_id' AS trace_id, m.metadata->'otlp'->>'span_id' AS span_id, c.message_form, c.input_tokens, m.query, m.answer
       FROM captured_spans c JOIN messages m ON m.project_id = c.project_id AND m.id = c.message_id WHERE m.metadata->'otlp'->>'trace_id' = $1`,
    [traceId],
  ));
}
const pendingOf = async (traceId: string) => (await store.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM otlp_pending WHERE trace_id = $1`, [traceId]))[0].n;

describe("OTLP logs decoding", () => {
  it("reads what the SDK's protobuf and JSON log serializers write, ids and event names included", () => {
    const call = chatCall("dec");
    for (const logs of [call.logs(), call.json()]) {
      expect(logs.recordCount).toBe(5);
      expect(logs.resourceLogs[0].resource["service.name"]).toBe("log-bot");
      const [first, , third, , choice] = logs.resourceLogs[0].records;
      expect(first).toMatchObject({ traceId: call.traceId, spanId: call.spanId, eventName: "gen_ai.system.message", body: { content: "You are terse." } });
      expect(third.body).toEqual({ tool_calls: [{ id: "c1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }] });
      expect(choice).toMatchObject({ eventName: "gen_ai.choice", body: { finish_reason: "stop", index: 0, message: { content: "dec: 18°C and sunny." } } });
      expect(first.timeUnixNano).toBeGreaterThan(0n);
      expect(first.path).toBe("resourceLogs[0].scopeLogs[0].logRecords[0]");
    }
  });

  it("names the field of a malformed logs request", () => {
    const field = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof OtlpProblem ? e.field : String(e);
      }
      return "accepted";
    };
    expect(field(() => decodeLogsJson({ resourceLogs: {} }))).toBe("resourceLogs");
    expect(field(() => decodeLogsJson({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ spanId: "12" }] }] }] }))).toBe("resourceLogs[0].scopeLogs[0].logRecords[0].spanId");
    expect(field(() => decodeLogsJson({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: "soon" }] }] }] }))).toBe("resourceLogs[0].scopeLogs[0].logRecords[0].timeUnixNano");
    expect(field(() => decodeLogsProto(Uint8Array.from([0x0a, 0x02, 0x12, 0x09])))).toBe("resourceLogs[0].scopeLogs[0]");
  });

  it("counts the data points of what the SDK's metric serializers write", async () => {
    class Reader extends MetricReader {
      protected async onForceFlush() {}
      protected async onShutdown() {}
    }
    const reader = new Reader();
    const meter = new MeterProvider({ resource, readers: [reader] }).getMeter("m");
    const counter = meter.createCounter("calls");
    counter.add(1, { model: "a" });
    counter.add(2, { model: "b" });
    meter.createHistogram("latency").record(0.5);
    const { resourceMetrics } = await reader.collect();
    expect(countMetricsProto(ProtobufMetricsSerializer.serializeRequest(resourceMetrics)!)).toEqual({ dataPoints: 3 });
    expect(countMetricsJson(JSON.parse(new TextDecoder().decode(JsonMetricsSerializer.serializeRequest(resourceMetrics)!)))).toEqual({ dataPoints: 3 });
  });
});

describe("GenAI log events joined to their span", () => {
  it("events first, then the span: the span's request writes the turn with the messages as sent, and no half is left", async () => {
    const call = chatCall("events-first");
    const first = await ingestLogs(sql(), call.logs());
    expect(first).toMatchObject({ log_records: 5, awaiting_span: 5, turns_created: 0, rejected: [] });
    expect(await captured(call.traceId)).toEqual([]);
    const second = await ingestTraces(sql(), call.traces());
    expect(second).toMatchObject({ spans: 1, turns_created: 1, awaiting_logs: 0, rejected: [] });
    const [row] = await captured(call.traceId);
    expect(row.message_form).toBe("logs");
    expect(row.input_messages).toEqual(EXPECTED_INPUT("events-first"));
    expect(row.output_messages).toEqual([{ role: "assistant", parts: [{ type: "text", content: "events-first: 18°C and sunny." }], finish_reason: "stop" }]);
    expect(row.input_tokens).toBe(40);
    expect(row.answer).toBe("events-first: 18°C and sunny.");
    expect(row.query).toBe("18°C, sunny");
    expect(await pendingOf(call.traceId)).toBe(0);
  });

  it("span first, events split over two requests: the turn is written when the answer arrives; resending anything adds nothing", async () => {
    const call = chatCall("span-first");
    expect(await ingestTraces(sql(), call.traces())).toMatchObject({ turns_created: 0, awaiting_logs: 1 });
    expect(await ingestLogs(sql(), call.logs(0, 2))).toMatchObject({ turns_created: 0, awaiting_span: 2 });
    expect(await captured(call.traceId)).toEqual([]);
    // A retry of the first log batch: the same two records are not kept twice.
    expect(await ingestLogs(sql(), call.logs(0, 2))).toMatchObject({ turns_created: 0, awaiting_span: 0, duplicates: 2 });
    expect(await ingestLogs(sql(), call.logs(2))).toMatchObject({ turns_created: 1, awaiting_span: 0 });
    const rows = await captured(call.traceId);
    expect(rows).toHaveLength(1);
    expect(rows[0].input_messages).toEqual(EXPECTED_INPUT("span-first"));
    expect(await pendingOf(call.traceId)).toBe(0);
    expect(await ingestLogs(sql(), call.logs())).toMatchObject({ turns_created: 0, duplicates: 5, awaiting_span: 0 });
    expect(await ingestTraces(sql(), call.traces())).toMatchObject({ turns_created: 0, duplicates: 1, awaiting_logs: 0 });
    expect(await captured(call.traceId)).toHaveLength(1);
    expect(await pendingOf(call.traceId)).toBe(0);
  });

  it("a GenAI event without span ids is rejected with its field; other records are ignored; nothing is stored for them", async () => {
    const logs: OtlpLogs = decodeLogsJson({
      resourceLogs: [
        {
          scopeLogs: [
            {
              logRecords: [
                { eventName: "gen_ai.user.message", body: { kvlistValue: { values: [{ key: "content", value: { stringValue: "orphan" } }] } } },
                { body: { stringValue: "GET / 200" } },
              ],
            },
          ],
        },
      ],
    });
    const r = await ingestLogs(sql(), logs);
    expect(r).toMatchObject({ log_records: 2, awaiting_span: 0, ignored: 1, ignored_by_kind: { "not a GenAI event": 1 } });
    expect(r.rejected).toEqual([{ field: "resourceLogs[0].scopeLogs[0].logRecords[0].spanId", message: "a gen_ai.user.message event without the trace and span ids of its chat span" }]);
  });

  it("the newer single event (gen_ai.client.inference.operation.details) with structured messages", async () => {
    const spans = new InMemorySpanExporter();
    const logs = new InMemoryLogRecordExporter();
    const tracer = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(spans)] }).getTracer("t");
    const logger = new LoggerProvider({ resource, processors: [new SimpleLogRecordProcessor({ exporter: logs })] }).getLogger("t");
    const span = tracer.startSpan("chat gpt-5", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai" } });
    const ctx = trace.setSpan(context.active(), span);
    const input = [{ role: "user", parts: [{ type: "text", content: "details?" }] }];
    const output = [{ role: "assistant", parts: [{ type: "text", content: "details." }], finish_reason: "stop" }];
    logger.emit({ context: ctx, eventName: "gen_ai.client.inference.operation.details", attributes: { "gen_ai.input.messages": input as never } });
    logger.emit({ context: ctx, eventName: "gen_ai.client.inference.operation.details", attributes: { "gen_ai.output.messages": output as never } });
    span.end();
    expect(await ingestTraces(sql(), decodeTracesProto(ProtobufTraceSerializer.serializeRequest(spans.getFinishedSpans())!))).toMatchObject({ awaiting_logs: 1 });
    expect(await ingestLogs(sql(), decodeLogsProto(ProtobufLogsSerializer.serializeRequest(logs.getFinishedLogRecords())!))).toMatchObject({ turns_created: 1 });
    const [row] = await captured(span.spanContext().traceId);
    expect(row.input_messages).toEqual(input);
    expect(row.output_messages).toEqual(output);
  });
});
