import "server-only";
import { createGunzip } from "node:zlib";
import { BadRequestError, DomainError, TooLargeError } from "../errors/domain-errors";
import { decodeTracesJson } from "./otlp-json";
import { decodeTracesProto, MessageBudgetExceeded, withMessageBudget } from "./otlp-proto";
import { decodeProtoOffThread, ProtoOffThreadError, ProtoOffThreadProblem } from "./otlp-proto-off-thread";
import { OtlpProblem, type OtlpTraces } from "./otlp-types";
import { StageTimes } from "./stage-times";
import { JsonOffThreadError, parseJsonOffThread } from "../streams/json-off-thread";

// The body of POST /api/v1/traces (and /logs, /metrics) as OTLP/HTTP sends it (opentelemetry-proto
// docs/specification.md, "OTLP/HTTP Request"): binary protobuf or JSON by Content-Type,
// optionally gzip-compressed (Content-Encoding: gzip). Both sizes are bounded while the
// body streams in: the bytes on the wire, and what they inflate to (a small gzip body can
// inflate to gigabytes), so neither is ever held past its limit. The SDKs' default batch
// (512 spans) of chat spans that repeat a ~16 KB system prompt is ~10 MB, hence the room.
// Over a limit: 413, which OTLP/HTTP exporters do not retry (only 429, 502, 503 and 504 are
// retryable), so a batch too large is dropped by the SDK, not sent forever.

/** Bytes on the wire. */
export const MAX_OTLP_BODY_BYTES = 32 * 1024 * 1024;
/** Bytes after decompression (the bytes decoded). */
export const MAX_OTLP_INFLATED_BYTES = 64 * 1024 * 1024;
/**
 * A gzip body past GZIP_RATIO_FREE_BYTES inflated may inflate at most this many times its wire
 * size: what a request can store is bounded by what it cost to send. The SDK's 512-span batch
 * of chat spans that repeat a 16 KB system prompt inflates 49-58 times (docs/benchmarks.md, section 21);
 * gzip's own ceiling is about 1 000.
 */
export const MAX_GZIP_RATIO = 200;
export const GZIP_RATIO_FREE_BYTES = 4 * 1024 * 1024;

export type OtlpEncoding = "protobuf" | "json";

export function encodingOf(req: Request): OtlpEncoding {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type === "application/x-protobuf" || type === "application/protobuf") return "protobuf";
  if (type === "application/json") return "json";
  throw new DomainError("unsupported_media_type", "unsupported_media_type", "Send OTLP as application/x-protobuf or application/json", [
    { field: "content-type", message: `got ${type || "none"}` },
  ]);
}

/** How one OTLP request type is decoded from each encoding (traces, logs, metrics); `kind` names it for the protobuf worker. */
export type OtlpDecoder<T> = { name: string; kind: "traces" | "logs" | "metrics"; protobuf: (bytes: Uint8Array) => T; json: (raw: unknown) => T };

export const TRACES: OtlpDecoder<OtlpTraces> = { name: "ExportTraceServiceRequest", kind: "traces", protobuf: decodeTracesProto, json: decodeTracesJson };

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
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_OTLP_BODY_BYTES) throw new TooLargeError(MAX_OTLP_BODY_BYTES);
  const body = await times.time("read", () => readStreamed(req, contentEncoding === "gzip"));
  return times.time("decode", () => decode(body, encoding, decoder));
}

/**
 * The body read as it arrives, inflated on the way when gzip: the wire bytes and the inflated
 * bytes are each counted chunk by chunk and the read stops at the first chunk over its limit.
 */
export async function readStreamed(req: Request, gzip: boolean): Promise<Buffer> {
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const out: Buffer[] = [];
  let wire = 0;
  let inflated = 0;
  let over: TooLargeError | null = null;
  const gunzip = gzip ? createGunzip() : null;
  const gunzipDone = gunzip
    ? new Promise<void>((resolve, reject) => {
        gunzip.on("data", (chunk: Buffer) => {
          inflated += chunk.length;
          if (inflated > MAX_OTLP_INFLATED_BYTES) {
            over ??= new TooLargeError(MAX_OTLP_INFLATED_BYTES, "body (decompressed)");
            gunzip.destroy();
            resolve();
            return;
          }
          out.push(chunk);
        });
        gunzip.on("end", resolve);
        gunzip.on("close", resolve);
        gunzip.on("error", () =>
          reject(new BadRequestError("invalid_otlp", "The body is not valid gzip (Content-Encoding: gzip)", [{ field: "content-encoding", message: "not valid gzip" }])),
        );
      })
    : null;
  // A rejection before the read loop ends is awaited below; keep it from counting as unhandled meanwhile.
  gunzipDone?.catch(() => {});
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      wire += value.byteLength;
      if (wire > MAX_OTLP_BODY_BYTES) throw new TooLargeError(MAX_OTLP_BODY_BYTES);
      if (over) throw over;
      if (!gunzip) {
        out.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
        continue;
      }
      if (gunzip.destroyed) break;
      // Backpressure: wait for the inflater to take the chunk before reading the next one.
      if (!gunzip.write(value)) await new Promise<void>((r) => (gunzip.destroyed ? r() : gunzip.once("drain", r).once("close", r)));
    }
    if (gunzip && !gunzip.destroyed) gunzip.end();
    if (gunzipDone) await gunzipDone;
    if (over) throw over;
    if (gzip && inflated > GZIP_RATIO_FREE_BYTES && inflated > MAX_GZIP_RATIO * wire) {
      throw new DomainError("too_large", "payload_too_large", `The gzip body inflates ${Math.round(inflated / wire)} times its size (at most ${MAX_GZIP_RATIO} beyond ${GZIP_RATIO_FREE_BYTES} bytes)`, [
        { field: "body (decompressed)", message: `${inflated} bytes from ${wire}: more than ${MAX_GZIP_RATIO} times` },
      ]);
    }
  } catch (e) {
    await reader.cancel().catch(() => {});
    gunzip?.destroy();
    throw e;
  }
  return Buffer.concat(out);
}

/**
 * OTLP/JSON bodies from this size up are parsed in a worker (lib/streams/json-off-thread.ts), under
 * a heap cap and a time limit, the value handed back a slice at a time; smaller ones by JSON.parse
 * here. The worker costs more than it saves below it: starting one takes 20-40 ms of this thread
 * and 0.3-0.7 s of wall time on a loaded machine, and the whole request several times the CPU of
 * an inline parse, for a stall that at 16 MiB is about 0.1-0.4 s (docs/benchmarks.md section 24,
 * `npm run bench:otlp-json`). The SDKs' default batch of 512 chat spans (9-12 MB, section 21) stays
 * here; the worker takes the rare larger bodies, up to MAX_OTLP_INFLATED_BYTES, whose parse would
 * stall every other request 0.4-1.7 s.
 */
export const OTLP_JSON_WORKER_FROM_BYTES = 16 * 1024 * 1024;
/** The worker's heap: a 64 MiB body of chat spans parses to about 150 MB. */
const OTLP_PARSE_HEAP_MB = 512;
const OTLP_PARSE_MS = 30_000;
/** JSON nesting a worker-parsed body may have: 32 levels of attribute values (otlp-json.ts) take about 130. */
const OTLP_JSON_DEPTH = 256;

async function parseJson(bytes: Buffer): Promise<unknown> {
  const invalid = (message: string) => new BadRequestError("invalid_otlp", "The body is not valid JSON", [{ field: "body", message }]);
  if (bytes.length < OTLP_JSON_WORKER_FROM_BYTES) {
    try {
      return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    } catch {
      throw invalid("invalid JSON");
    }
  }
  try {
    const r = await parseJsonOffThread({ bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) }, { fatalUtf8: true, maxHeapMb: OTLP_PARSE_HEAP_MB, maxMs: OTLP_PARSE_MS, maxDepth: OTLP_JSON_DEPTH });
    return r.kind === "json" ? r.value : null;
  } catch (e) {
    if (!(e instanceof JsonOffThreadError)) throw e;
    if (e.kind === "memory" || e.kind === "time") {
      throw new DomainError("too_large", "payload_too_large", `The body is too large to parse: ${e.message}`, [{ field: "body", message: e.message }]);
    }
    if (e.kind === "depth") throw new BadRequestError("invalid_otlp", `The body is ${e.message}`, [{ field: "body", message: e.message }]);
    throw invalid("invalid JSON");
  }
}

/**
 * Protobuf bodies are decoded on the request thread when they are smaller than this and open at
 * most PROTO_INLINE_MESSAGES sub-messages; any other goes to a worker (otlp-proto-off-thread.ts).
 * A protobuf decode costs with its bytes (chat spans: ~15 ms a MB under load) and with its
 * messages (~1 µs each: a 1 MB body of 500 000 empty values took 0.4-0.7 s), so both bound what
 * the inline decode can block; past the budget the inline attempt is dropped (having cost at most
 * the budget) and the worker decodes from the start. docs/benchmarks.md section 35,
 * `npm run bench:otlp-proto`.
 */
export const OTLP_PROTO_WORKER_FROM_BYTES = 16 * 1024 * 1024;
export const PROTO_INLINE_MESSAGES = 32 * 1024;
/** Sub-messages one protobuf request may open in the worker: 10 000 spans of 100 attributes each fit. */
export const MAX_OTLP_PROTO_MESSAGES = 2_000_000;
/**
 * Values one span or log record may hold (the worker hands one back whole: a kvlist of 100 000 keys
 * took 0.4 s to deserialise). Above PROTO_INLINE_MESSAGES plus a span's own fields and its events'
 * (at most ~3 000), so no span past it can be decoded inline: every body holding one is refused alike.
 */
export const MAX_OTLP_VALUES_PER_SPAN = 50_000;
const OTLP_DECODE_HEAP_MB = 512;
const OTLP_DECODE_MS = 30_000;

async function decodeProtobuf<T>(bytes: Buffer, decoder: OtlpDecoder<T>): Promise<T> {
  if (bytes.length < OTLP_PROTO_WORKER_FROM_BYTES) {
    try {
      return withMessageBudget(PROTO_INLINE_MESSAGES, () => decoder.protobuf(bytes));
    } catch (e) {
      if (!(e instanceof MessageBudgetExceeded)) throw e;
    }
  }
  try {
    return await decodeProtoOffThread<T>(bytes, decoder.kind, { maxHeapMb: OTLP_DECODE_HEAP_MB, maxMs: OTLP_DECODE_MS, maxMessages: MAX_OTLP_PROTO_MESSAGES, maxItemWeight: MAX_OTLP_VALUES_PER_SPAN });
  } catch (e) {
    if (e instanceof ProtoOffThreadProblem) throw new OtlpProblem(e.field, e.problem);
    if (e instanceof ProtoOffThreadError) {
      throw new DomainError("too_large", "payload_too_large", `The body is too large to decode: ${e.message}`, [{ field: e.field, message: `${e.message} (limit ${e.limit})` }]);
    }
    throw e;
  }
}

async function decode<T>(bytes: Buffer, encoding: OtlpEncoding, decoder: OtlpDecoder<T>): Promise<T> {
  try {
    if (encoding === "protobuf") return await decodeProtobuf(bytes, decoder);
    return decoder.json(await parseJson(bytes));
  } catch (e) {
    if (e instanceof OtlpProblem) {
      throw new BadRequestError("invalid_otlp", `Not a valid OTLP ${decoder.name}: ${e.field}: ${e.problem}`, [{ field: e.field, message: e.problem }]);
    }
    throw e;
  }
}
