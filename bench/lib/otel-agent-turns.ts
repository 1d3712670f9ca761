import type { Tracer } from "@opentelemetry/api";
import type { makeTurnGenerator } from "./text";

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
