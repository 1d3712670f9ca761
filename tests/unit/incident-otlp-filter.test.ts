import { randomUUID } from "node:crypto";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import { conversationIdOf, ingestTraces, messageIdOf, writtenTurnsOf } from "@/lib/capture/store-captures";
import { projectSql, type ProjectSql } from "@/lib/db/project-sql";
import { detectConversations } from "@/lib/incidents/detect";
import { capturedTurnsThatMayFire } from "@/lib/incidents/ingest-filter";
import { checkIncidentsSoon, incidentsIdle } from "@/lib/incidents/on-ingest";
import { ZProfileSettings } from "@/lib/profiles/schemas";
import { useEmbeddedDatabase } from "../helpers/embedded-database";

// Detection on OTLP ingest reads only the captured turns a rule may fire on (lib/incidents/
// ingest-filter.ts, capturedTurnsThatMayFire): for a user without memories, a back-reference
// phrase or input tokens over the window. The filter must never drop a turn the rules fire on:
// real spans through ingestTraces, queued as the traces route queues them, find exactly what
// the full check of every turn finds, and that includes each kind these turns can have.

const embedded = useEmbeddedDatabase();

type Turn = { q: string; a: string; history?: number; tokens?: number; model?: string };

/** One agent's calls as spans: each sends its last `history` exchanges (all by default) and the question. */
function spans(conversation: string, user: string, app: string, turns: Turn[], t0: number): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": app }), spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t");
  const past: unknown[][] = [];
  turns.forEach((t, i) => {
    const user1 = { role: "user", parts: [{ type: "text", content: t.q }] };
    const answer = { role: "assistant", parts: [{ type: "text", content: t.a }] };
    const sent = (t.history === undefined ? past : past.slice(past.length - t.history)).flat();
    tracer
      .startSpan("chat", {
        startTime: new Date(t0 + i * 60_000),
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.conversation.id": conversation,
          "user.id": user,
          "gen_ai.input.messages": JSON.stringify([...sent, user1]),
          "gen_ai.output.messages": JSON.stringify([answer]),
          ...(t.tokens !== undefined ? { "gen_ai.usage.input_tokens": t.tokens } : {}),
          ...(t.model ? { "gen_ai.request.model": t.model } : {}),
        },
      })
      .end(new Date(t0 + i * 60_000 + 500));
    past.push([user1, answer]);
  });
  return memory.getFinishedSpans() as ReadableSpan[];
}

const WITHOUT_MEMORIES: Turn[] = [
  { q: "I booked the Miramar hotel in Lisbon for May.", a: "Great choice, it is near the river.", tokens: 300 },
  { q: "What's the weather like there this week?", a: "Sunny, around 24 degrees.", tokens: 400 },
  // The window dropped the first exchange: the hotel it refers back to is not in the prompt sent.
  { q: "As I said, is breakfast included at the Miramar hotel?", a: "I'm not sure which hotel you mean.", history: 1, tokens: 350 },
  // gpt-4 holds 8 192 tokens less the 1 024 reserved by default (4 000 in the app's profile).
  { q: "Can you summarise the whole trip plan?", a: "Here is the plan.", tokens: 9_000, model: "gpt-4" },
  { q: "Thanks, that is all for today.", a: "Have a good trip!", tokens: 5_000, model: "gpt-4o" },
  // No request model: the profile's (gpt-4, 4 000 reserved: 4 192) decides.
  { q: "One more: list the museums near the hotel.", a: "The Gulbenkian and MAAT.", tokens: 5_000 },
];
const WITH_MEMORIES: Turn[] = [
  { q: "I'm making dinner for friends tonight.", a: "Fun! What are you cooking?", tokens: 200 },
  { q: "Are there peanuts in pad thai? Can I order it?", a: "Pad thai is often topped with crushed peanuts. Enjoy!", tokens: 250 },
];

async function setUp(sql: ProjectSql, tag: string) {
  const app = `otlp-filter-${tag}`;
  await sql.query(`INSERT INTO agent_profile_versions (project_id, app_id, version, effective_from, settings) VALUES ($1, $2, 1, $3, $4::jsonb)`, [
    sql.projectId,
    app,
    new Date("2020-01-01T00:00:00Z"),
    JSON.stringify(ZProfileSettings.parse({ model: "gpt-4", reserved_output_tokens: 4000, strategy: { type: "message_window" } })),
  ]);
  await sql.query(
    `INSERT INTO memories (project_id, id, user_id, memory_type, content, content_key, created_at) VALUES ($1, $2, $3, 'fact', 'Allergic to peanuts', 'allergic to peanuts', now() - interval '1 day')`,
    [sql.projectId, randomUUID(), `with-${tag}`],
  );
  const t0 = Date.now() - 3_600_000;
  const all = [...spans(`trip-${tag}`, `without-${tag}`, app, WITHOUT_MEMORIES, t0), ...spans(`dinner-${tag}`, `with-${tag}`, app, WITH_MEMORIES, t0)];
  const result = await ingestTraces(sql, decodeTracesProto(ProtobufTraceSerializer.serializeRequest(all)!));
  const id = (span: ReadableSpan) => messageIdOf({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId });
  return { result, ids: all.map(id), trip: conversationIdOf({ conversationKey: `trip-${tag}`, traceId: "" }), dinner: conversationIdOf({ conversationKey: `dinner-${tag}`, traceId: "" }) };
}

const found = async (sql: ProjectSql) =>
  (await sql.query<{ kind: string; message_id: string }>(`SELECT kind, message_id FROM incidents WHERE project_id = $1`, [sql.projectId])).map((f) => `${f.kind} ${f.message_id}`).sort();

describe("detection on OTLP ingest with the written turns", () => {
  it("finds through the route's queue what the full check of every turn finds", async () => {
    const sql = projectSql(embedded.db.sql, "otlp-filter-same");
    const { result, ids, trip, dinner } = await setUp(sql, "same");
    expect(result.turns_created).toBe(8);
    // As app/api/v1/traces/route.ts queues it.
    checkIncidentsSoon(sql, { conversationIds: result.conversation_ids, captured: writtenTurnsOf(result) });
    await incidentsIdle();
    const onIngest = await found(sql);
    await sql.query(`DELETE FROM incidents WHERE project_id = $1`, [sql.projectId]);
    await detectConversations(sql, [trip, dinner]);
    expect(onIngest).toEqual(await found(sql));
    expect(onIngest).toEqual(
      [`dropped_reference ${ids[2]}`, `over_context_window ${ids[3]}`, `over_context_window ${ids[5]}`, `missed_memory ${ids[7]}`].sort(),
    );
  }, 60_000);

  it("reads of a user without memories only the turns a rule may fire on, and every turn of a user with memories", async () => {
    const sql = projectSql(embedded.db.sql, "otlp-filter-read");
    const { result, ids, trip, dinner } = await setUp(sql, "read");
    const keep = await capturedTurnsThatMayFire(sql, writtenTurnsOf(result));
    expect(keep.get(trip)?.sort()).toEqual([ids[2], ids[3], ids[5]].sort());
    expect(keep.get(dinner)?.sort()).toEqual([ids[6], ids[7]].sort());
  });
});
