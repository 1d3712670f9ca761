import type { Tracer } from "@opentelemetry/api";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { makeTurnGenerator } from "./text";

// The in-process OTLP diagnostics' agents (bench/diag/otel-span-cost.ts, otel-agents-batch.ts):
// each call resends its agent's whole history so far, as the real instrumentations do.

/** One turn of every agent: a chat span each, its input the agent's history, then the answer appended to it. */
export function emitAgentTurn(
  tracer: Tracer,
  gen: ReturnType<typeof makeTurnGenerator>,
  histories: unknown[][],
  system: unknown,
  turn: number,
  t0: number,
): void {
  for (let a = 0; a < histories.length; a++) {
    const t = gen();
    histories[a].push({ role: "user", parts: [{ type: "text", content: t.query }] });
    const answer = { role: "assistant", parts: [{ type: "text", content: t.answer }] };
    tracer
      .startSpan("openai.chat", {
        startTime: new Date(t0 + turn * 10_000 + a),
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.system_instructions": JSON.stringify(system),
          "gen_ai.input.messages": JSON.stringify(histories[a]),
          "gen_ai.output.messages": JSON.stringify([{ ...answer, finish_reason: "stop" }]),
        },
      })
      .end(new Date(t0 + turn * 10_000 + a + 500));
    histories[a].push(answer);
  }
}

/** `agents` agents' `turns` calls as protobuf export bodies of two turns each (the SDK's 512-span batch at 256 agents). */
export function agentBatches(agents: number, turns: number, system: unknown, service: string): Buffer[] {
  const gen = makeTurnGenerator(1);
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": `${service}-${Date.now()}` }), spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t");
  const histories = Array.from({ length: agents }, () => [] as unknown[]);
  const t0 = Date.now() - 3_600_000;
  const out: Buffer[] = [];
  for (let turn = 0; turn < turns; turn++) {
    emitAgentTurn(tracer, gen, histories, system, turn, t0);
    if (turn % 2 === 1) {
      out.push(Buffer.from(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans() as ReadableSpan[])!));
      memory.reset();
    }
  }
  return out;
}
