import { randomBytes } from "node:crypto";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { makeTurnGenerator } from "./text";

// One OTLP export body (protobuf, the SDK's own serializer) for the ingest diagnostics: 10
// new conversations of 10 GenAI chat spans each, every span sending the conversation so far.

const memory = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("diag");
const gen = makeTurnGenerator(25);

export function otelRequestBody(): Uint8Array {
  memory.reset();
  for (let c = 0; c < 10; c++) {
    const conversation = randomBytes(8).toString("hex");
    const h: unknown[] = [];
    for (let i = 0; i < 10; i++) {
      const t = gen();
      h.push({ role: "user", parts: [{ type: "text", content: t.query }] });
      const out = [{ role: "assistant", parts: [{ type: "text", content: t.answer }] }];
      tracer
        .startSpan("chat", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.conversation.id": conversation, "gen_ai.input.messages": JSON.stringify(h), "gen_ai.output.messages": JSON.stringify(out) } })
        .end();
      h.push(out[0]);
    }
  }
  return ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!;
}
