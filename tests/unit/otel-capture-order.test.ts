import fc from "fast-check";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import { loadCapturedPrompts } from "@/lib/capture/prompt-store";
import { ingestTraces, messageIdOf } from "@/lib/capture/store-captures";
import { stableUuid } from "@/lib/imports/stable-id";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { useEmbeddedDatabase } from "../helpers/embedded-database";

// Export order does not matter (issue 35, item 2): a BatchSpanProcessor keeps several exports
// in flight and a later batch can be stored before an earlier one. The same spans, in any
// order, split into any batches, some sent twice, give the same conversations and the same
// trees: each conversation one thread in call order, one leaf. fast-check draws the orders;
// each run writes a fresh copy of a recorded multi-conversation span set (its conversation
// ids suffixed by the run) into a real PGlite database.

const store = useEmbeddedDatabase();
const CONVERSATIONS = 3;
const TURNS = 4;

/** The recorded span set: CONVERSATIONS agent loops of TURNS calls, one trace per call, plus unrelated spans. */
function recorded(run: number): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": "order-bot" }), spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t");
  const t0 = Date.UTC(2026, 2, 1);
  for (let c = 0; c < CONVERSATIONS; c++) {
    const history: unknown[] = [];
    for (let i = 0; i < TURNS; i++) {
      history.push({ role: "user", parts: [{ type: "text", content: `c${c} q${i}` }] });
      const out = { role: "assistant", parts: [{ type: "text", content: `c${c} a${i}` }] };
      tracer
        .startSpan("chat", {
          startTime: new Date(t0 + c * 100 + i * 1000),
          attributes: {
            "gen_ai.operation.name": "chat",
            "gen_ai.conversation.id": `order-${run}-c${c}`,
            "gen_ai.input.messages": JSON.stringify(history),
            "gen_ai.output.messages": JSON.stringify([out]),
          },
        })
        .end(new Date(t0 + c * 100 + i * 1000 + 50));
      history.push(out);
    }
  }
  tracer.startSpan("GET /health").end();
  return memory.getFinishedSpans() as ReadableSpan[];
}

/** Each conversation of the run: its counters and every turn's query with its parent's query. */
async function trees(run: number) {
  const convs = await store.db.sql.query<{ id: string; name: string; turn_count: number; leaf_count: number }>(
    `SELECT id, name, turn_count, leaf_count FROM conversations WHERE name LIKE $1 ORDER BY name`,
    [`order-${run}-%`],
  );
  const out: Record<string, unknown> = {};
  for (const c of convs) {
    const edges = await store.db.sql.query<{ query: string; parent: string | null; tree_parent: string | null }>(
      `SELECT m.query, p.query AS parent, t.query AS tree_parent FROM messages m
         LEFT JOIN messages p ON p.project_id = m.project_id AND p.id = m.parent_message_id
         LEFT JOIN messages t ON t.project_id = m.project_id AND t.id = m.tree_parent_id
        WHERE m.conversation_id = $1 ORDER BY m.query`,
      [c.id],
    );
    out[c.name.replace(`order-${run}-`, "")] = { turns: c.turn_count, leaves: c.leaf_count, edges: edges.map((e) => [e.query, e.parent, e.tree_parent]) };
  }
  return out;
}

const EXPECTED = Object.fromEntries(
  Array.from({ length: CONVERSATIONS }, (_, c) => [
    `c${c}`,
    { turns: TURNS, leaves: 1, edges: Array.from({ length: TURNS }, (_, i) => [`c${c} q${i}`, i ? `c${c} q${i - 1}` : null, i ? `c${c} q${i - 1}` : null]) },
  ]),
);

describe("export order does not matter", () => {
  it("any permutation, batching and duplication of a recorded span set gives the same trees", async () => {
    const sql = projectSql(store.db.sql, DEFAULT_PROJECT_ID);
    let run = 0;
    const n = CONVERSATIONS * TURNS + 1;
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
        fc.array(fc.integer({ min: 1, max: n - 1 }), { maxLength: 4 }),
        fc.array(fc.integer({ min: 0, max: n - 1 }), { maxLength: 3 }),
        async (order, cuts, resent) => {
          const spans = recorded(++run);
          // The permutation, cut into batches, then some spans exported again (an exporter's retry).
          const bounds = [...new Set([0, ...cuts, n])].sort((a, b) => a - b);
          const batches = bounds.slice(1).map((end, k) => order.slice(bounds[k], end).map((i) => spans[i]));
          batches.push(resent.map((i) => spans[i]));
          for (const b of batches.filter((x) => x.length)) await ingestTraces(sql, decodeTracesProto(ProtobufTraceSerializer.serializeRequest(b)!));
          expect(await trees(run)).toEqual(EXPECTED);
        },
      ),
      { numRuns: 25, seed: 35 },
    );
  });

  // Without gen_ai.conversation.id (the Traceloop and contrib instrumentations set none), the
  // calls are joined by their messages: call n+1's input begins with call n's input and answer.
  // A call stored before its predecessor starts a conversation of its own until the
  // predecessor arrives and takes it (and what followed it) over, in one transaction.
  it("without conversation ids too: the same conversations (the first call's trace), trees and captured prompts", async () => {
    const sql = projectSql(store.db.sql, DEFAULT_PROJECT_ID);
    let run = 0;
    const n = CONVERSATIONS * TURNS + 1;
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
        fc.array(fc.integer({ min: 1, max: n - 1 }), { maxLength: 4 }),
        fc.array(fc.integer({ min: 0, max: n - 1 }), { maxLength: 3 }),
        async (order, cuts, resent) => {
          const service = `joined-${++run}`;
          const { spans, firstTraces, sent } = recordedWithoutIds(service);
          const bounds = [...new Set([0, ...cuts, n])].sort((a, b) => a - b);
          const batches = bounds.slice(1).map((end, k) => order.slice(bounds[k], end).map((i) => spans[i]));
          batches.push(resent.map((i) => spans[i]));
          for (const b of batches.filter((x) => x.length)) await ingestTraces(sql, decodeTracesProto(ProtobufTraceSerializer.serializeRequest(b)!));
          expect(await joinedTrees(service)).toEqual(
            Object.fromEntries(firstTraces.map((t, c) => [stableUuid(`otlp-trace:${t}`), EXPECTED[`c${c}`]])),
          );
          // Each span's prompt reads back as sent, wherever its conversation's nodes were first stored.
          const prompts = await loadCapturedPrompts(sql, sent.map((x) => messageIdOf(x)));
          for (const x of sent) expect(prompts.get(messageIdOf(x))).toEqual(x.prompt);
        },
      ),
      { numRuns: 25, seed: 35 },
    );
  });
});

/** The same agent loops with no conversation id, a system prompt, and answers carrying finish_reason (as Traceloop records them). */
function recordedWithoutIds(service: string) {
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": service }), spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t");
  const t0 = Date.UTC(2026, 2, 1);
  const system = [{ type: "text", content: "Answer briefly." }];
  const sent: { traceId: string; spanId: string; prompt: unknown }[] = [];
  const firstTraces: string[] = [];
  for (let c = 0; c < CONVERSATIONS; c++) {
    const history: { role: string; parts: { type: string; content: string }[] }[] = [];
    for (let i = 0; i < TURNS; i++) {
      history.push({ role: "user", parts: [{ type: "text", content: `c${c} q${i}` }] });
      const answer = { role: "assistant", parts: [{ type: "text", content: `c${c} a${i}` }] };
      const out = [{ ...answer, finish_reason: "stop" }];
      const span = tracer.startSpan("chat", {
        startTime: new Date(t0 + c * 100 + i * 1000),
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.system_instructions": JSON.stringify(system),
          "gen_ai.input.messages": JSON.stringify(history),
          "gen_ai.output.messages": JSON.stringify(out),
        },
      });
      span.end(new Date(t0 + c * 100 + i * 1000 + 50));
      if (i === 0) firstTraces.push(span.spanContext().traceId);
      sent.push({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, prompt: { system_instructions: system, input_messages: [...history], output_messages: out } });
      history.push(answer);
    }
  }
  tracer.startSpan("GET /health").end();
  return { spans: memory.getFinishedSpans() as ReadableSpan[], firstTraces, sent };
}

/** The service's conversations by id: counters and every turn's query (its run prefix aside) with its parent's query. */
async function joinedTrees(service: string) {
  const convs = await store.db.sql.query<{ id: string; turn_count: number; leaf_count: number }>(
    `SELECT id, turn_count, leaf_count FROM conversations WHERE app_id = $1 ORDER BY id`,
    [service],
  );
  const out: Record<string, unknown> = {};
  for (const c of convs) {
    const edges = await store.db.sql.query<{ query: string; parent: string | null; tree_parent: string | null }>(
      `SELECT m.query, p.query AS parent, t.query AS tree_parent FROM messages m
         LEFT JOIN messages p ON p.project_id = m.project_id AND p.id = m.parent_message_id
         LEFT JOIN messages t ON t.project_id = m.project_id AND t.id = m.tree_parent_id
        WHERE m.conversation_id = $1 ORDER BY m.query`,
      [c.id],
    );
    out[c.id] = { turns: c.turn_count, leaves: c.leaf_count, edges: edges.map((e) => [e.query, e.parent, e.tree_parent]) };
  }
  return out;
}
