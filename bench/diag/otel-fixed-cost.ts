// The fixed cost of one POST /api/v1/traces (Next.js, the proxy, the handler's frame) and of
// one GET /api/v1/ready, in server CPU milliseconds per request: a request with one non-chat
// span stores nothing, so what it costs is what every export request costs before its spans.
// The same with a ~350 KB body (bench:otel's request size) of non-chat spans, still ignored:
// what the body alone costs on its way (proxy, streams, read, decode) before any span is stored.
// Sequential requests to the production server (open mode, PGlite). Diagnostic for bench:otel.
//   tsx --conditions=react-server bench/diag/otel-fixed-cost.ts
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { makeTempDir, removeDir } from "../lib/common";
import { processCpuSeconds } from "../lib/otel-cpu";
import { startServer } from "../lib/serve-process";

const N = Number(process.env.BENCH_REQUESTS || 300);
const memory = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("diag");
const dir = makeTempDir("memscope-diag-otel-fixed-");
const server = await startServer({ MEMSCOPE_DATA_DIR: dir });
const nonChat = () => {
  memory.reset();
  tracer.startSpan("GET /x", { attributes: { "http.request.method": "GET" } }).end();
  return new Uint8Array(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!);
};
async function perRequest(label: string, send: () => Promise<Response>, n: number) {
  const c0 = processCpuSeconds(server.pid)!;
  for (let i = 0; i < n; i++) {
    const r = await send();
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${label}: ${r.status}`);
  }
  console.log(`  ${label}: ${(((processCpuSeconds(server.pid)! - c0) / n) * 1000).toFixed(1)} ms server CPU per request`);
}
const bigNonChat = () => {
  memory.reset();
  for (let i = 0; i < 100; i++) tracer.startSpan("GET /x", { attributes: { "http.request.method": "GET", "x.payload": "x".repeat(3500) } }).end();
  return new Uint8Array(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!);
};
const postBig = () => fetch(`${server.base}/api/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: bigNonChat() });
const post = () => fetch(`${server.base}/api/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: nonChat() });
const ready = () => fetch(`${server.base}/api/v1/ready`);
try {
  await perRequest("warm-up", post, 50);
  await perRequest("POST /traces, one non-chat span", post, N);
  await perRequest("POST /traces, 100 non-chat spans of 3.5 KB (~350 KB)", postBig, N);
  await perRequest("GET /ready", ready, N);
} finally {
  await server.stop();
  removeDir(dir);
}
process.exit(0);
