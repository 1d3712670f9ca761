import { countMetricsJson, countMetricsProto, decodeLogsJson, decodeLogsProto, type OtlpMetricsCount } from "./otlp-logs";
import type { OtlpLogs } from "./otlp-types";
import type { OtlpDecoder } from "./read-otlp-body";

// The logs and metrics requests, for readOtlpBody (the traces' decoder is its default).

export const LOGS: OtlpDecoder<OtlpLogs> = { name: "ExportLogsServiceRequest", kind: "logs", protobuf: decodeLogsProto, json: decodeLogsJson };

export const METRICS: OtlpDecoder<OtlpMetricsCount> = { name: "ExportMetricsServiceRequest", kind: "metrics", protobuf: countMetricsProto, json: countMetricsJson };
