import { context, trace } from "@opentelemetry/api";
import { SeverityNumber } from "@opentelemetry/api-logs";
import { JsonLogsSerializer, ProtobufLogsSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { decodeLogsJson, decodeLogsProto } from "@/lib/capture/otlp-logs";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import type { OtlpLogs } from "@/lib/capture/otlp-types";

// A chat call as @opentelemetry/instrumentation-openai records it (its instrumentation.ts: a span
// without content, one log record per input message at the span's start with attribute
// event.name and a body {content, tool_calls, id}, one gen_ai.choice per choice at its end), made
// with the OpenTelemetry SDK's own tracer, logger and serializers.

export const resource = resourceFromAttributes({ "service.name": "log-bot" });

/** One chat call as the contrib instrumentation records it: a content-less span and its log events. */
export function chatCall(tag: string) {
  const spans = new InMemorySpanExporter();
  const logs = new InMemoryLogRecordExporter();
  const tracer = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(spans)] }).getTracer("@opentelemetry/instrumentation-openai");
  const logger = new LoggerProvider({ resource, processors: [new SimpleLogRecordProcessor({ exporter: logs })] }).getLogger("@opentelemetry/instrumentation-openai");
  const span = tracer.startSpan("chat gpt-4o-mini", {
    attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.system": "openai" },
    startTime: new Date(Date.UTC(2026, 0, 1)),
  });
  const ctx = trace.setSpan(context.active(), span);
  const emit = (name: string, body: Record<string, unknown>) =>
    logger.emit({ context: ctx, severityNumber: SeverityNumber.INFO, attributes: { "event.name": name, "gen_ai.system": "openai" }, body: body as never });
  emit("gen_ai.system.message", { content: "You are terse." });
  emit("gen_ai.user.message", { content: `${tag}: weather in Paris?` });
  emit("gen_ai.assistant.message", { tool_calls: [{ id: "c1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }] });
  emit("gen_ai.tool.message", { id: "c1", content: "18°C, sunny" });
  emit("gen_ai.choice", { finish_reason: "stop", index: 0, message: { content: `${tag}: 18°C and sunny.` } });
  span.setAttributes({ "gen_ai.usage.input_tokens": 40, "gen_ai.usage.output_tokens": 6, "gen_ai.response.model": "gpt-4o-mini-2024" });
  span.end(new Date(Date.UTC(2026, 0, 1, 0, 0, 1)));
  const records = logs.getFinishedLogRecords();
  return {
    traces: () => decodeTracesProto(ProtobufTraceSerializer.serializeRequest(spans.getFinishedSpans())!),
    logs: (from = 0, to = records.length): OtlpLogs => decodeLogsProto(ProtobufLogsSerializer.serializeRequest(records.slice(from, to))!),
    json: () => decodeLogsJson(JSON.parse(new TextDecoder().decode(JsonLogsSerializer.serializeRequest(records)!))),
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
  };
}

