import "server-only";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { readBodyLimited } from "../http/read-body";
import { BadRequestError, DomainError, TooLargeError } from "../errors/domain-errors";
import { decodeTracesJson } from "./otlp-json";
import { decodeTracesProto } from "./otlp-proto";
import { OtlpProblem, type OtlpTraces } from "./otlp-types";
import { StageTimes } from "./stage-times";

// The body of POST /api/v1/traces (and /logs, /metrics) as OTLP/HTTP sends it (opentelemetry-proto
// docs/specification.md, "OTLP/HTTP Request"): binary protobuf or JSON by Content-Type,
// optionally gzip-compressed (Content-Encoding: gzip). Both sizes are bounded: the bytes
// on the wire, and what they inflate to (a small gzip body can inflate to gigabytes).

/** Bytes on the wire. */
export const MAX_OTLP_BODY_BYTES = 8 * 1024 * 1024;
/** Bytes after decompression. */
export const MAX_OTLP_INFLATED_BYTES = 32 * 1024 * 1024;

const inflate = promisify(gunzip);

export type OtlpEncoding = "protobuf" | "json";

export function encodingOf(req: Request): OtlpEncoding {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type === "application/x-protobuf" || type === "application/protobuf") return "protobuf";
  if (type === "application/json") return "json";
  throw new DomainError("unsupported_media_type", "unsupported_media_type", "Send OTLP as application/x-protobuf or application/json", [
    { field: "content-type", message: `got ${type || "none"}` },
  ]);
}

/** How one OTLP request type is decoded from each encoding (traces, logs, metrics). */
export type OtlpDecoder<T> = { name: string; protobuf: (bytes: Uint8Array) => T; json: (raw: unknown) => T };

export const TRACES: OtlpDecoder<OtlpTraces> = { name: "ExportTraceServiceRequest", protobuf: decodeTracesProto, json: decodeTracesJson };

export async function readOtlpBody<T = OtlpTraces>(
  req: Request,
  encoding: OtlpEncoding,
  times = new StageTimes(),
  decoder: OtlpDecoder<T> = TRACES as unknown as OtlpDecoder<T>,
): Promise<T> {
  const contentEncoding = (req.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
  if (contentEncoding !== "gzip" && contentEncoding !== "identity") {
    throw new DomainError("unsupported_media_type", "unsupported_media_type", "Content-Encoding must be gzip or none", [
      { field: "content-encoding", message: `got ${contentEncoding}` },
    ]);
  }
  let bytes = await times.time("read", () => readLimited(req, MAX_OTLP_BODY_BYTES));
  if (contentEncoding === "gzip") {
    try {
      const wire = bytes;
      bytes = await times.time("inflate", () => inflate(wire, { maxOutputLength: MAX_OTLP_INFLATED_BYTES }));
    } catch (e) {
      if (e instanceof RangeError || (e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw new TooLargeError(MAX_OTLP_INFLATED_BYTES, "body (decompressed)");
      throw new BadRequestError("invalid_otlp", "The body is not valid gzip (Content-Encoding: gzip)", [{ field: "content-encoding", message: "not valid gzip" }]);
    }
  }
  const body = bytes;
  return times.time("decode", () => decode(body, encoding, decoder));
}

function decode<T>(bytes: Buffer, encoding: OtlpEncoding, decoder: OtlpDecoder<T>): T {
  try {
    if (encoding === "protobuf") return decoder.protobuf(bytes);
    let raw: unknown;
    try {
      raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    } catch {
      throw new BadRequestError("invalid_otlp", "The body is not valid JSON", [{ field: "body", message: "invalid JSON" }]);
    }
    return decoder.json(raw);
  } catch (e) {
    if (e instanceof OtlpProblem) {
      throw new BadRequestError("invalid_otlp", `Not a valid OTLP ${decoder.name}: ${e.field}: ${e.problem}`, [{ field: e.field, message: e.problem }]);
    }
    throw e;
  }
}

async function readLimited(req: Request, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new TooLargeError(maxBytes);
  return readBodyLimited(req, maxBytes);
}
