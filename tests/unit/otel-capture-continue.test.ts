import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import { ingestTraces } from "@/lib/capture/store-captures";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { useEmbeddedDatabase } from "../helpers/embedded-database";

// Conversations without gen_ai.conversation.id (issue 35): neither the contrib nor the
// Traceloop instrumentation sets one, and each call is a trace of its own. A call whose input
// begins with an earlier call's input and answer (same service, same system instructions)
// continues that call's conversation; otherwise it starts one. Real PGlite database.

const store = useEmbeddedDatabase();
const sql = () => projectSql(store.db.sql, DEFAULT_PROJECT_ID);
type Msg = { role: string; parts: { type: string; content?: string; [k: string]: unknown }[] };
const text = (role: string, content: string): Msg => ({ role, parts: [{ type: "text", content }] });

/** An agent loop of `questions`, one trace per call (no parent span), as the instrumentations record it; each call's spans as its own request. */
function calls(service: string, system: string, questions: string[], t0: number) {
  const history: Msg[] = [];
  return questions.map((q, i) => {
    const memory = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": service }), spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t");
    history.push(text("user", q));
    const answer = { ...text("assistant", `${q}!`), finish_reason: "stop" };
    tracer
      .startSpan("chat", {
        startTime: new Date(t0 + i * 1000),
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: system }]),
          "gen_ai.input.messages": JSON.stringify(history),
          "gen_ai.output.messages": JSON.stringify([answer]),
        },
      })
      .end(new Date(t0 + i * 1000 + 200));
    history.push(text("assistant", `${q}!`));
    return decodeTracesProto(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!);
  });
}

const conversationsOf = async (service: string) =>
  store.db.sql.query<{ id: string; turn_count: number; queries: string[] }>(
    `SELECT c.id, c.turn_count, array_agg(m.query ORDER BY m.created_at) AS queries
       FROM conversations c JOIN messages m ON m.project_id = c.project_id AND m.conversation_id = c.id
      WHERE c.app_id = $1 GROUP BY c.id, c.turn_count ORDER BY min(m.created_at)`,
    [service],
  );

describe("conversations without an id", () => {
  it("each call continues the one whose input and answer its input begins with, request by request or all in one", async () => {
    for (const [service, merge] of [["cont-separate", false], ["cont-one-request", true]] as const) {
      const requests = calls(service, "Be brief.", ["a", "b", "c"], Date.UTC(2026, 1, 1));
      if (merge) await ingestTraces(sql(), { resourceSpans: requests.flatMap((r) => r.resourceSpans), spanCount: 3 });
      else for (const r of requests) await ingestTraces(sql(), r);
      const convs = await conversationsOf(service);
      expect(convs.map((c) => [c.turn_count, c.queries])).toEqual([[3, ["a", "b", "c"]]]);
      const turns = await store.db.sql.query<{ id: string; parent_message_id: string | null }>(
        `SELECT id, parent_message_id FROM messages WHERE conversation_id = $1 ORDER BY created_at`,
        [convs[0].id],
      );
      expect(turns.map((t) => t.parent_message_id)).toEqual([null, turns[0].id, turns[1].id]);
    }
  });

  it("another system prompt, another service or a different history starts a conversation of its own", async () => {
    const t0 = Date.UTC(2026, 1, 2);
    const [first] = calls("cont-bot", "Be brief.", ["x"], t0);
    await ingestTraces(sql(), first);
    // Same service, same messages, another system prompt.
    await ingestTraces(sql(), calls("cont-bot", "Be verbose.", ["x", "y"], t0 + 10_000)[1]);
    // Another service, the same system prompt and messages.
    await ingestTraces(sql(), calls("cont-other", "Be brief.", ["x", "y"], t0 + 20_000)[1]);
    // The same service and system prompt, but the answer it repeats is not the one given.
    const forked = calls("cont-bot", "Be brief.", ["x", "y"], t0 + 30_000)[1];
    const span = forked.resourceSpans[0].spans[0];
    span.attributes["gen_ai.input.messages"] = JSON.stringify([text("user", "x"), text("assistant", "something else"), text("user", "y")]);
    await ingestTraces(sql(), forked);
    // And one that does continue it.
    await ingestTraces(sql(), calls("cont-bot", "Be brief.", ["x", "z"], t0 + 40_000)[1]);
    expect((await conversationsOf("cont-bot")).map((c) => c.queries)).toEqual([["x", "z"], ["y"], ["y"]]);
    expect((await conversationsOf("cont-other")).map((c) => c.queries)).toEqual([["y"]]);
  });
});
