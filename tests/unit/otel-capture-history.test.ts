import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import { SpanHistories, spanHistories } from "@/lib/capture/span-history";
import { ingestTraces, MAX_CAPTURED_BYTES_PER_SPAN, type IngestResult } from "@/lib/capture/store-captures";
import { projectSql } from "@/lib/db/project-sql";
import { purgeProcessCaches } from "@/lib/privacy/purge-caches";
import { useEmbeddedDatabase } from "../helpers/embedded-database";
import { capturedRowsOf } from "../helpers/captured-prompts";

// The span histories (lib/capture/span-history.ts) read an input that continues a kept one
// from where that one ended. They must change nothing stored: the same recorded span set is
// ingested into two projects of one database, one with the histories and one reading every
// input whole, and every row of both is compared. The set has what the boundary between a
// kept input and the rest can get wrong: inputs that share only part of a kept input's text,
// edit an earlier message, resend the same list (with junk after it, or an empty tail "[A,]"),
// whitespace before the comma, a bad new message (NUL, no role), another app with the same
// texts (other continuation digests), a conversation id, and the per-span size limit hit
// exactly (the cached path measures only the new messages).

const store = useEmbeddedDatabase();
const RECEIVED = new Date(Date.UTC(2026, 10, 1));
const SYSTEM = { role: "system", parts: [{ type: "text", content: "You are the booking desk's agent. Keep answers short; name the booking reference." }] };
const user = (content: string) => ({ role: "user", parts: [{ type: "text", content }] });
const assistant = (content: string) => ({ role: "assistant", parts: [{ type: "text", content }] });
const toolCall = { role: "assistant", parts: [{ type: "tool_call", id: "call_1", name: "find_booking", arguments: { ref: "BK-1" } }] };
const toolResult = { role: "tool", parts: [{ type: "tool_call_response", id: "call_1", response: '{"ref":"BK-1","status":"ok"}' }] };

type Call = { input: string; output?: string; app?: string; conversation?: string };

/** The calls: three agent loops interleaved, then the edge cases, in a few batches. */
function recordedCalls(): Call[][] {
  const loops: Call[][] = [[], [], [], [], [], []];
  const histories: unknown[][] = [0, 1, 2].map(() => [SYSTEM]);
  const texts: string[][] = [[], [], []];
  for (let turn = 0; turn < 6; turn++) {
    for (let c = 0; c < 3; c++) {
      const h = histories[c];
      if (c === 1 && turn === 2) {
        // A tool round: the call that asks for the tool, then the one with its result.
        h.push(user(`c${c} which booking is mine?`));
        loops[turn].push({ input: JSON.stringify(h), output: JSON.stringify([{ ...toolCall, finish_reason: "tool_calls" }]) });
        h.push(toolCall, toolResult);
      } else h.push(user(`c${c} question ${turn}: ${"where is my booking ".repeat(turn + 1)}`));
      const answer = assistant(`c${c} answer ${turn}`);
      const input = JSON.stringify(h);
      texts[c].push(input);
      loops[turn].push({ input, output: JSON.stringify([{ ...answer, finish_reason: "stop" }]) });
      h.push(answer);
    }
  }
  const [h0, h1, h2] = histories;
  const head = (text: string) => text.slice(0, text.lastIndexOf("]"));
  const out = (s: string) => JSON.stringify([assistant(s)]);
  const edges: Call[] = [
    // An earlier message edited: begins with the system message and the first exchange only.
    { input: JSON.stringify([...h0.slice(0, 3), user("c0 question 1, edited"), ...h0.slice(4), user("c0 after the edit")]), output: out("edited answer") },
    // A branch from turn 2 of c1 (a regenerated answer): shares part of the history.
    { input: JSON.stringify([...h1.slice(0, 5), assistant("c1 another answer"), user("c1 branch question")]), output: out("branch answer") },
    // The same list again, under another span (a resent call: a turn of its own).
    { input: texts[2][5], output: out("c2 again") },
    // The same list with junk after it, and a comma with no message after it: not JSON.
    { input: `${texts[2][5]} x`, output: out("never") },
    { input: `${head(texts[2][5])},]`, output: out("never") },
    // A character where the comma belongs: skipped, the rest would be valid JSON.
    { input: `${head(texts[2][5])}x${JSON.stringify(user("c2 junk"))}]`, output: out("never") },
    // Whitespace before the comma and inside the new message.
    { input: `${head(JSON.stringify(h2))} \n ,  ${JSON.stringify(user("c2 spaced question"), null, 2)} ]`, output: out("spaced answer") },
    // New messages a span may not store: a NUL, a message without a role.
    { input: JSON.stringify([...h0, user("nul \u0000 here")]), output: out("never") },
    { input: `${head(JSON.stringify(h0))},{"parts":[{"type":"text","content":"no role"}]}]`, output: out("never") },
    // Another app with the same texts: other continuation digests, its own conversations.
    { input: JSON.stringify([...h0, user("app b continues c0's text")]), output: out("app b answer"), app: "agent-b" },
    { input: texts[0][3], output: out("app b answer 3"), app: "agent-b" },
    { input: JSON.stringify([...h0.slice(0, 8), assistant("c0 answer 3"), user("app b next")]), output: out("app b next answer"), app: "agent-b" },
    // A conversation named by the span.
    { input: JSON.stringify([...h2, user("c2 with an id")]), output: out("named answer"), conversation: "named-conversation" },
  ];
  // The size limit (1 MiB of JSON a span; at most 200 000 characters of new input): a long
  // history kept, then its continuation with the last message filled to one byte past the limit
  // and to the limit (past it first: rejected, it is not kept, so both continue the same input).
  const long = [...h1, user("é".repeat(170_000)), assistant("c1 long a"), user("é".repeat(170_000))];
  const sizeOf = (filler: string) => Buffer.byteLength(JSON.stringify([...long, assistant("c1 long b"), user(filler)])) + Buffer.byteLength(out("long answer")) + Buffer.byteLength("null");
  const fill = MAX_CAPTURED_BYTES_PER_SPAN - sizeOf("");
  const sized = (n: number) => JSON.stringify([...long, assistant("c1 long b"), user("é".repeat(Math.floor(n / 2)) + "x".repeat(n % 2))]);
  const limit: Call[] = [
    { input: JSON.stringify(long), output: out("c1 long b") },
    { input: sized(fill + 1), output: out("long answer") },
    { input: sized(fill), output: out("long answer") },
  ];
  return [...loops.slice(0, 3), [...loops[3], ...loops[4]], loops[5], edges.slice(0, 7), edges.slice(7), limit];
}

function batch(calls: Call[], at: number): Uint8Array {
  const memory = new InMemorySpanExporter();
  const tracers = new Map<string, ReturnType<BasicTracerProvider["getTracer"]>>();
  const tracerOf = (app: string) => {
    if (!tracers.has(app)) {
      tracers.set(app, new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": app }), spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t"));
    }
    return tracers.get(app)!;
  };
  calls.forEach((c, i) => {
    tracerOf(c.app ?? "agent-a")
      .startSpan("chat", {
        startTime: new Date(at + i * 10),
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.input.messages": c.input,
          ...(c.output === undefined ? {} : { "gen_ai.output.messages": c.output }),
          ...(c.conversation ? { "gen_ai.conversation.id": c.conversation } : {}),
        },
      })
      .end(new Date(at + i * 10 + 5));
  });
  return ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans() as ReadableSpan[])!;
}


describe("span histories", () => {
  it("store the same rows as reading every input whole, over a recorded span set with partial, edited and broken continuations", async () => {
    for (const p of ["hist-on", "hist-off"]) {
      await store.db.sql.query(`INSERT INTO projects (id, name, slug, created_at) VALUES ($1, $1, $1, now())`, [p]);
    }
    const histories = new SpanHistories();
    const results: Record<string, IngestResult[]> = { "hist-on": [], "hist-off": [] };
    const batches = recordedCalls();
    const t0 = Date.UTC(2026, 9, 1);
    for (const [b, calls] of batches.entries()) {
      const body = batch(calls, t0 + b * 60_000);
      // Spans have fresh ids each time they are recorded: both projects get the same bytes.
      results["hist-on"].push(await ingestTraces(projectSql(store.db.sql, "hist-on"), decodeTracesProto(body), RECEIVED, undefined, undefined, histories));
      results["hist-off"].push(await ingestTraces(projectSql(store.db.sql, "hist-off"), decodeTracesProto(body), RECEIVED, undefined, undefined, null));
    }
    // The histories were used, and the edge cases read whole where they must.
    expect(histories.hits).toBeGreaterThanOrEqual(20);
    expect(histories.misses).toBeGreaterThanOrEqual(5);
    expect(results["hist-on"]).toEqual(results["hist-off"]);
    const rejected = results["hist-off"].flatMap((r) => r.rejected.map((x) => x.message));
    expect(rejected.filter((m) => m === "not valid JSON")).toHaveLength(3);
    expect(rejected.some((m) => m.includes("more than the 1048576"))).toBe(true);
    expect(rejected.some((m) => m.includes("non-empty string"))).toBe(true);
    expect(rejected).toHaveLength(6);
    const on = await capturedRowsOf(store.db, "hist-on");
    const off = await capturedRowsOf(store.db, "hist-off");
    expect(on.captured_spans.length).toBe(batches.flat().length - 6);
    expect(on).toEqual(off);
  }, 120_000);

  it("are dropped with the other caches after an erasure: the process keeps no input text", async () => {
    await store.db.sql.query(`INSERT INTO projects (id, name, slug, created_at) VALUES ('hist-purge', 'hist-purge', 'hist-purge', now())`);
    spanHistories.clear();
    const body = batch(recordedCalls()[0], Date.UTC(2026, 9, 2));
    await ingestTraces(projectSql(store.db.sql, "hist-purge"), decodeTracesProto(body), RECEIVED);
    expect(spanHistories.size).toBeGreaterThan(0);
    purgeProcessCaches();
    expect(spanHistories.size).toBe(0);
  });
});

describe("span histories' lookup", () => {
  // Conversations that share a system prompt share its first kilobytes: each must still find its
  // own last input (the longest kept head the text begins with), at every length of the prompt
  // and history, and an edited history none.
  it("finds each conversation's own last input among many that share a long system prompt", () => {
    for (const promptChars of [200, 3_000, 20_000]) {
      const histories = new SpanHistories();
      const system = JSON.stringify({ role: "system", parts: [{ type: "text", content: "p".repeat(promptChars) }] });
      const convs = Array.from({ length: 40 }, () => [system]);
      for (let turn = 0; turn < 12; turn++) {
        convs.forEach((msgs, a) => {
          msgs.push(JSON.stringify({ role: "user", parts: [{ type: "text", content: `agent ${a} turn ${turn} ${"w".repeat(turn * 40)}` }] }));
          const text = `[${msgs.join(",")}]`;
          const hit = histories.find("scope", text);
          if (turn === 0) expect(hit).toBeNull();
          else {
            // The head kept a turn ago is this text's beginning, the whole of it except the new messages.
            expect(hit?.entry.head).toBe(`[${msgs.slice(0, -2).join(",")}`);
            expect(hit?.same).toBe(false);
          }
          // The same list again: found, and "the same".
          const head = text.slice(0, -1);
          histories.remember({ own: { scope: "scope", head, messages: [{ role: "user", parts: [] }] }, base: hit?.entry ?? null });
          expect(histories.find("scope", text)?.same).toBe(true);
          expect(histories.find("other scope", text)).toBeNull();
          msgs.push(JSON.stringify({ role: "assistant", parts: [{ type: "text", content: `answer ${a}.${turn}` }] }));
        });
      }
      // An edited history (its first user message changed) continues none.
      const edited = [...convs[0]];
      edited[1] = JSON.stringify({ role: "user", parts: [{ type: "text", content: "edited" }] });
      expect(histories.find("scope", `[${edited.join(",")}]`)).toBeNull();
    }
  });
});
