// What POST /api/v1/traces reads out of an OTLP ExportTraceServiceRequest, the same for
// its two encodings (binary protobuf, lib/capture/otlp-proto.ts; JSON, otlp-json.ts).
// Only what capture uses is kept: resource attributes, and per span its ids, name, times,
// attributes and events. Field paths name places in the request the way OTLP/JSON spells
// them (lowerCamelCase), whichever encoding came in, so an error reads the same for both.

/** An attribute value (OTLP AnyValue) as plain data; bytes become base64 text. */
export type OtlpValue = string | number | boolean | null | OtlpValue[] | { [key: string]: OtlpValue };

export type OtlpAttributes = Record<string, OtlpValue>;

export type OtlpEvent = { name: string; timeUnixNano: bigint; attributes: OtlpAttributes };

export type OtlpSpan = {
  /** Where the span sits in the request: resourceSpans[0].scopeSpans[1].spans[2]. */
  path: string;
  /** Lowercase hex: 32 digits. */
  traceId: string;
  /** Lowercase hex: 16 digits. */
  spanId: string;
  name: string;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: OtlpAttributes;
  events: OtlpEvent[];
  /**
   * A defect of this span alone (more attributes or events than a span may carry): the span
   * is rejected in partialSuccess, the rest of the request is read. Its attributes or events
   * past the limit were skipped, not decoded.
   */
  problem?: { field: string; message: string };
};

export type OtlpResourceSpans = { resource: OtlpAttributes; spans: OtlpSpan[] };

export type OtlpTraces = { resourceSpans: OtlpResourceSpans[]; spanCount: number };

/** A defect of the request's structure, at a field path: the whole request is refused (400). */
export class OtlpProblem extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`);
  }
}

/** Most spans one request may carry (the JS exporters send batches of 512 by default). */
export const MAX_SPANS_PER_REQUEST = 10_000;
/** Most attributes one span (or one of its events, or a resource) may carry; the SDKs' default limit is 128. */
export const MAX_ATTRIBUTES_PER_SPAN = 1_000;
/** Most events one span may carry (the SDKs' default limit is 128). */
export const MAX_EVENTS_PER_SPAN = 1_000;
/** Latest span time accepted: the largest fixed64, in nanoseconds since 1970 (the year 2554). */
export const MAX_TIME_UNIX_NANO = 2n ** 64n - 1n;

export function checkIds(traceId: string, spanId: string, path: string) {
  if (!/^[0-9a-f]{32}$/.test(traceId) || /^0+$/.test(traceId)) throw new OtlpProblem(`${path}.traceId`, "must be 16 bytes, not all zero");
  if (!/^[0-9a-f]{16}$/.test(spanId) || /^0+$/.test(spanId)) throw new OtlpProblem(`${path}.spanId`, "must be 8 bytes, not all zero");
}

/**
 * A log record of an ExportLogsServiceRequest (opentelemetry/proto/logs/v1/logs.proto): what
 * POST /api/v1/logs keeps of it. GenAI instrumentations put message content in log records
 * ("events": event_name, or the older attribute event.name) tied to their span by trace and
 * span id. Ids are lowercase hex, "" when absent.
 */
export type OtlpLogRecord = {
  path: string;
  traceId: string;
  spanId: string;
  eventName: string;
  timeUnixNano: bigint;
  attributes: OtlpAttributes;
  body: OtlpValue;
};

export type OtlpResourceLogs = { resource: OtlpAttributes; records: OtlpLogRecord[] };

export type OtlpLogs = { resourceLogs: OtlpResourceLogs[]; recordCount: number };

/** Most log records one request may carry (one chat call emits one per input message and choice). */
export const MAX_LOG_RECORDS_PER_REQUEST = 50_000;
