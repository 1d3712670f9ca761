import "server-only";
import { encodeTraceResponseProto } from "./otlp-proto";
import type { OtlpEncoding } from "./read-otlp-body";
import type { LogsExportResult, MetricsExportResult, TraceExportResult } from "./schemas";
import type { IngestResult, LogIngestResult } from "./store-captures";

// The ExportTraceServiceResponse, in the request's encoding (OTLP/HTTP requires the same
// Content-Type back). Ignored spans (not chat spans) and rejected chat spans are counted in
// partial_success.rejected_spans, with a message that says which and why.

/** `logEventsArrive`: the project sends GenAI log events (lib/capture/log-events-seen.ts), so spans waiting for theirs need no advice. */
export function partialSuccessOf(r: IngestResult, logEventsArrive = false): { rejectedSpans: number; errorMessage: string } | null {
  const rejected = r.ignored + r.rejected.length;
  // Spans kept for their log events are accepted, not rejected: a warning (0 rejected, a message), as OTLP allows.
  const waiting = r.awaiting_logs && !logEventsArrive
    ? `${r.awaiting_logs} chat span(s) without content kept for their GenAI log events (POST /v1/logs, an hour at most); if the instrumentation sends none, turn on its content capture`
    : null;
  if (!rejected) return waiting ? { rejectedSpans: 0, errorMessage: waiting } : null;
  const parts: string[] = [];
  if (r.ignored) {
    const kinds = Object.entries(r.ignored_by_kind)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => `${n} ${k}`)
      .join(", ");
    parts.push(`${r.ignored} span(s) ignored, not GenAI chat spans (${kinds})`);
  }
  if (r.rejected.length) {
    const first = r.rejected.slice(0, 5).map((x) => `${x.field}: ${x.message}`);
    parts.push(`${r.rejected.length} chat span(s) rejected: ${first.join("; ")}${r.rejected.length > 5 ? "; ..." : ""}`);
  }
  if (waiting) parts.push(waiting);
  return { rejectedSpans: rejected, errorMessage: parts.join(". ") };
}

export function logsPartialSuccessOf(r: LogIngestResult): { rejected: number; errorMessage: string } | null {
  const rejected = r.ignored + r.rejected.length;
  if (!rejected) return null;
  const parts: string[] = [];
  if (r.ignored) {
    const kinds = Object.entries(r.ignored_by_kind)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => `${n} ${k}`)
      .join(", ");
    parts.push(`${r.ignored} log record(s) ignored, not GenAI message events (${kinds})`);
  }
  if (r.rejected.length) {
    const first = r.rejected.slice(0, 5).map((x) => `${x.field}: ${x.message}`);
    parts.push(`${r.rejected.length} GenAI event(s) rejected: ${first.join("; ")}${r.rejected.length > 5 ? "; ..." : ""}`);
  }
  return { rejected, errorMessage: parts.join(". ") };
}

/** ExportLogsServiceResponse: partial_success {rejected_log_records = 1, error_message = 2}, the same wire shape as the traces'. */
export function logsExportAnswer(r: LogIngestResult, encoding: OtlpEncoding, serverTiming?: string): Response {
  const partial = logsPartialSuccessOf(r);
  const timing: Record<string, string> = serverTiming ? { "server-timing": serverTiming } : {};
  if (encoding === "protobuf") {
    const wire = partial ? { rejectedSpans: partial.rejected, errorMessage: partial.errorMessage } : null;
    return new Response(Buffer.from(encodeTraceResponseProto(wire)), { status: 200, headers: { "content-type": "application/x-protobuf", ...timing } });
  }
  const body: LogsExportResult = {
    ...(partial ? { partialSuccess: { rejectedLogRecords: String(partial.rejected), errorMessage: partial.errorMessage } } : {}),
    memscope: r,
  };
  return Response.json(body, { status: 200, headers: timing });
}

/** ExportMetricsServiceResponse: every data point rejected (rejected_data_points = 1), with why. */
export function metricsExportAnswer(dataPoints: number, encoding: OtlpEncoding): Response {
  const errorMessage = "Memscope keeps no metrics: it captures GenAI chat spans (/v1/traces) and their log events (/v1/logs)";
  if (encoding === "protobuf") {
    return new Response(Buffer.from(encodeTraceResponseProto({ rejectedSpans: dataPoints, errorMessage })), { status: 200, headers: { "content-type": "application/x-protobuf" } });
  }
  const body: MetricsExportResult = { partialSuccess: { rejectedDataPoints: String(dataPoints), errorMessage }, memscope: { data_points: dataPoints } };
  return Response.json(body, { status: 200 });
}

/** `serverTiming`: the request's stage durations (lib/capture/stage-times.ts), sent as Server-Timing. */
export function exportAnswer(r: IngestResult, encoding: OtlpEncoding, serverTiming?: string, logEventsArrive = false): Response {
  const partial = partialSuccessOf(r, logEventsArrive);
  const timing: Record<string, string> = serverTiming ? { "server-timing": serverTiming } : {};
  if (encoding === "protobuf") {
    return new Response(Buffer.from(encodeTraceResponseProto(partial)), { status: 200, headers: { "content-type": "application/x-protobuf", ...timing } });
  }
  const body: TraceExportResult = {
    ...(partial ? { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } } : {}),
    memscope: r,
  };
  return Response.json(body, { status: 200, headers: timing });
}
