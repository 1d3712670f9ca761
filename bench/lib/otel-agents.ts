// bench:otel's agents scenario (issue 35, "Numbers"): real agents as a user sets them up. The
// real @traceloop/instrumentation-openai around the real `openai` client, calling a local
// OpenAI-compatible stub; its spans go through the SDK's BatchSpanProcessor at its defaults
// (512 spans a batch, 2 048 queued, 5 s delay; the OTLP exporter's 10 s timeout) and the
// OTLP/HTTP protobuf exporter to POST /api/v1/traces with a project key. AGENTS conversations
// of TURNS calls each, every call resending the history so far (no conversation id: the
// instrumentation sets none, so Memscope joins the calls by their messages), all agents at
// once. Afterwards, from the database itself: conversations split (an agent's calls not one
// conversation of TURNS turns), spans stored, and bytes stored per captured span (the two
// capture tables with their indexes) beside the span's new messages.

import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { OpenAIInstrumentation } from "@traceloop/instrumentation-openai";
import { startOpenAiStub } from "../../tests/helpers/openai-stub";
import { openDatabase } from "../../lib/db/open-database";
import { makeTurnGenerator } from "./text";
import { readyProbe } from "./otel-replay";

export const AGENTS = Number(process.env.BENCH_AGENTS || 250);
export const AGENT_TURNS = Number(process.env.BENCH_AGENT_TURNS || 20);
const APP = "bench-agents";
/** A system prompt of ~1.2 KB, as agents carry (instructions, tools described in prose). */
const SYSTEM = "You are the travel desk's assistant. Answer in short paragraphs, cite the booking reference when there is one, never invent prices. ".repeat(10);

/** The exporter as the SDK has it, counting what it was given and what failed. */
class CountingExporter implements SpanExporter {
  handed = 0;
  failedSpans = 0;
  failedExports = 0;
  exports = 0;
  errors: string[] = [];
  constructor(private inner: SpanExporter) {}
  export(spans: ReadableSpan[], done: (r: ExportResult) => void) {
    this.handed += spans.length;
    this.exports++;
    this.inner.export(spans, (r) => {
      if (r.code !== ExportResultCode.SUCCESS) {
        this.failedSpans += spans.length;
        this.failedExports++;
        if (this.errors.length < 5) this.errors.push(String(r.error?.message ?? r.error));
      }
      done(r);
    });
  }
  shutdown() {
    return this.inner.shutdown();
  }
  forceFlush() {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** Counts the spans the instrumentation ended (before the batch processor may drop them). */
class Ended implements SpanProcessor {
  n = 0;
  onStart() {}
  onEnd() {
    this.n++;
  }
  async forceFlush() {}
  async shutdown() {}
}

/** One chat span of another app first (the route, the token workers and the planner warm, as on a running server). */
export async function warmUp(base: string, key: string) {
  const kv = (k: string, v: string) => ({ key: k, value: { stringValue: v } });
  const now = BigInt(Date.now()) * 1_000_000n;
  const r = await fetch(`${base}/api/v1/traces`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [kv("service.name", "bench-warm-up")] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: "1".repeat(32),
                  spanId: "1".repeat(16),
                  name: "chat",
                  startTimeUnixNano: String(now),
                  endTimeUnixNano: String(now + 1_000_000n),
                  attributes: [
                    kv("gen_ai.operation.name", "chat"),
                    kv("gen_ai.input.messages", JSON.stringify([{ role: "user", parts: [{ type: "text", content: "warm up" }] }])),
                    kv("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "warm" }] }])),
                  ],
                },
              ],
            },
          ],
        },
      ],
    }),
  });
  if (r.status !== 200) throw new Error(`warm-up export answered ${r.status}: ${await r.text()}`);
}

let instrumentation: OpenAIInstrumentation | undefined;

export type AgentsDb = { kind: "pglite"; dataDir: string } | { kind: "postgres"; url: string };

/** `exportUrl`: where the exporter posts (the server itself, or a recording proxy in front of it). */
export async function runAgents(base: string, exportUrl: string, key: string, db: AgentsDb, stopServer: () => Promise<void>) {
  await warmUp(base, key);
  const answerText = makeTurnGenerator(1);
  const stub = await startOpenAiStub({ chat: () => answerText().answer });
  const exporter = new CountingExporter(new OTLPTraceExporter({ url: `${exportUrl}/api/v1/traces`, headers: { authorization: `Bearer ${key}` } }));
  const ended = new Ended();
  // At the SDK's defaults: nothing passed but the exporter.
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": APP }), spanProcessors: [ended, new BatchSpanProcessor(exporter)] });
  // One instrumentation for the process: its require hook patches `openai` once (a second one would find the
  // module cached and patch nothing); each run gives it that run's provider.
  instrumentation ??= new OpenAIInstrumentation({ traceContent: true });
  instrumentation.setTracerProvider(provider);
  instrumentation.enable();
  // Required (CommonJS) after the instrumentation is enabled, so its require hook patches the client.
  const { OpenAI } = createRequire(import.meta.url)("openai") as typeof import("openai");
  const client = new OpenAI({ baseURL: `${stub.url}/v1`, apiKey: "bench", maxRetries: 0 });

  // GET /ready every 50 ms while the agents run and their spans are exported.
  const probe = readyProbe(base);

  const questions = makeTurnGenerator(2);
  let sentNewBytes = 0;
  let sentWholeBytes = 0;
  const asPart = (role: string, content: string) => JSON.stringify({ role, parts: [{ type: "text", content }] });
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: AGENTS }, async () => {
      const messages: { role: "system" | "user" | "assistant"; content: string }[] = [{ role: "system", content: SYSTEM }];
      for (let i = 0; i < AGENT_TURNS; i++) {
        const q = questions().query;
        messages.push({ role: "user", content: q });
        const r = await client.chat.completions.create({ model: "gpt-4o-mini", messages });
        const a = r.choices[0].message.content ?? "";
        // What the span adds (its question and answer) and what it carries (its whole prompt), as JSON messages.
        sentNewBytes += Buffer.byteLength(asPart("user", q)) + Buffer.byteLength(asPart("assistant", a));
        sentWholeBytes += messages.reduce((s, m) => s + Buffer.byteLength(asPart(m.role, m.content)), 0) + Buffer.byteLength(asPart("assistant", a));
        messages.push({ role: "assistant", content: a });
      }
    }),
  );
  const called = performance.now();
  // A failed export is counted by the exporter (forceFlush rejects with its error).
  await provider.forceFlush().catch(() => undefined);
  const flushed = performance.now();
  const ready = await probe.stop();
  await provider.shutdown();
  await stub.stop();
  await stopServer();

  const spansMade = AGENTS * AGENT_TURNS;
  const figures = await storedFigures(db, sentNewBytes / spansMade);
  return {
    ...figures,
    spansMade,
    ended: ended.n,
    dropped: ended.n - exporter.handed,
    exportErrors: exporter.failedExports,
    exports: exporter.exports,
    failedSpans: exporter.failedSpans,
    errors: exporter.errors,
    callsSeconds: (called - t0) / 1000,
    totalSeconds: (flushed - t0) / 1000,
    spansPerSecond: figures.stored / ((flushed - t0) / 1000),
    readyP50: ready.p50,
    readyP99: ready.p99,
    readyMax: ready.max,
    readyCount: ready.count,
    readyErrors: ready.errors,
    wholeBytesPerSpan: sentWholeBytes / spansMade,
  };
}

/** From the database once the server is gone (the embedded one has a single owner): spans, conversations, splits, bytes. */
export async function storedFigures(db: AgentsDb, newPerSpan: number) {
  const store = await openDatabase(db);
  try {
    const [c] = await store.sql.query<{ conversations: number; full: number; spans: number; span_bytes: string; message_bytes: string; bodies: string; rows: number }>(
      `SELECT (SELECT count(*)::int FROM conversations WHERE app_id = $1) AS conversations,
              (SELECT count(*)::int FROM conversations WHERE app_id = $1 AND turn_count = $2) AS full,
              (SELECT count(*)::int FROM captured_spans s JOIN conversations c ON c.project_id = s.project_id AND c.id = s.conversation_id WHERE c.app_id = $1) AS spans,
              pg_total_relation_size('captured_spans')::text AS span_bytes,
              pg_total_relation_size('captured_messages')::text AS message_bytes,
              (SELECT coalesce(sum(octet_length(body::text)), 0)::text FROM captured_messages) AS bodies,
              (SELECT count(*)::int FROM captured_messages) AS rows`,
      [APP, AGENT_TURNS],
    );
    const stored = Number(c.span_bytes) + Number(c.message_bytes);
    const perSpan = stored / Math.max(1, c.spans);
    return {
      stored: c.spans,
      messageRows: c.rows,
      conversations: c.conversations,
      split: AGENTS - c.full,
      bytesPerSpan: perSpan,
      spanRowBytesPerSpan: Number(c.span_bytes) / Math.max(1, c.spans),
      messageBytesPerSpan: Number(c.message_bytes) / Math.max(1, c.spans),
      bodyBytesPerSpan: Number(c.bodies) / Math.max(1, c.spans),
      newBytesPerSpan: newPerSpan,
      ratio: perSpan / newPerSpan,
    };
  } finally {
    await store.close();
  }
}
