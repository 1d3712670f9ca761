import "server-only";
import { encodeTraceResponseProto } from "./otlp-proto";
import type { OtlpEncoding } from "./read-otlp-body";
import type { TraceExportResult } from "./schemas";
import type { IngestResult } from "./store-captures";

// The ExportTraceServiceResponse, in the request's encoding (OTLP/HTTP requires the same
// Content-Type back). Ignored spans (not chat spans) and rejected chat spans are counted in
// partial_success.rejected_spans, with a message that says which and why.

export function partialSuccessOf(r: IngestResult): { rejectedSpans: number; errorMessage: string } | null {
  const rejected = r.ignored + r.rejected.length;
  if (!rejected) return null;
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
  return { rejectedSpans: rejected, errorMessage: parts.join(". ") };
}

/** `serverTiming`: the request's stage durations (lib/capture/stage-times.ts), sent as Server-Timing. */
export function exportAnswer(r: IngestResult, encoding: OtlpEncoding, serverTiming?: string): Response {
  const partial = partialSuccessOf(r);
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
