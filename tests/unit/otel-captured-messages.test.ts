import { context, trace } from "@opentelemetry/api";
import { SeverityNumber } from "@opentelemetry/api-logs";
import { ProtobufLogsSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, describe, expect, it } from "vitest";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import { loadCapturedPrompts } from "@/lib/capture/prompt-store";
import { conversationIdOf, ingestLogs, ingestTraces, messageIdOf, STATEMENT_SIZES } from "@/lib/capture/store-captures";
import { decodeLogsProto } from "@/lib/capture/otlp-logs";
import { StageTimes } from "@/lib/capture/stage-times";
import { applyMigrations, readMigrations } from "@/lib/db/migrations";
import { openDatabase, type Database } from "@/lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { countUserRows } from "@/lib/privacy/user-tables";
import { LOADED_MACHINE_TIMEOUT_MS } from "../helpers/loaded-machine";
import { emptyClusterDir, freshDataDir } from "../helpers/fresh-data-dir";
import { createFreshDatabase, realPostgresUrl } from "../helpers/real-postgres";
import { suiteTempDirs } from "../helpers/temp-dir";

// Captured prompts stored once (issue 35, item 5): each exchange (a question and its answer)
// of a conversation's captured prompts is one row of captured_messages, so a 20-turn
// conversation whose every call resends the history so far stores each message once, in one
// row a call, and every span still reads back exactly what it sent. Migration 20261129060000_captured_messages moves the prompts stored before it into
// the same rows (its digests in SQL equal the code's: a later span finds them). Spans made by
// the OpenTelemetry SDK and its serializer; on PGlite, and on PostgreSQL when
// MEMSCOPE_TEST_POSTGRES_URL names one.

const MIGRATION = "20261129060000_captured_messages";
const fresh = suiteTempDirs(afterAll);
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const d of drops) await d();
});

async function open(kind: "pglite" | "postgres", migrate = true): Promise<Database> {
  // A copy of the run's migrated template (or, for the migration's own test, of the bare cluster):
  // an initdb and every migration from nothing cost 10-14 s a test on CI, against 1 s on PostgreSQL.
  if (kind === "pglite") {
    const dir = fresh("captured-messages");
    return openDatabase({ kind: "pglite", dataDir: migrate ? await freshDataDir(dir) : await emptyClusterDir(dir) }, { migrate });
  }
  const d = await createFreshDatabase(realPostgresUrl()!);
  drops.push(() => d.drop());
  return openDatabase({ kind: "postgres", url: d.url }, { migrate });
}

const KINDS = (["pglite", ...(realPostgresUrl() ? ["postgres"] : [])] as const).map((k) => k as "pglite" | "postgres");

type Msg = { role: string; parts: { type: string; content: string }[]; finish_reason?: string };
const user = (text: string): Msg => ({ role: "user", parts: [{ type: "text", content: text }] });
const assistant = (text: string): Msg => ({ role: "assistant", parts: [{ type: "text", content: text }] });
const SYSTEM = [{ type: "text", content: "You are a patient travel agent. ".repeat(20) }];

type Call = { system: unknown; input: Msg[]; output: Msg[] };

/** `turns` chat spans of one conversation, call i sending the whole history so far; `edit` rewrites a call's input. */
function conversation(key: string, turns: number, edit?: (i: number, input: Msg[]) => Msg[], finishReason?: string) {
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t");
  const t0 = Date.UTC(2026, 0, 1);
  const history: Msg[] = [];
  const calls: Call[] = [];
  for (let i = 0; i < turns; i++) {
    history.push(user(`${key} question ${i}: ${"where should I go next? ".repeat(4)}`));
    const input = edit ? edit(i, [...history]) : [...history];
    const answer = assistant(`${key} answer ${i}: ${"somewhere warm and quiet. ".repeat(6)}`);
    // As the instrumentations record an answer: with its finish_reason, which the next call's input does not repeat.
    const output = [finishReason ? { ...answer, finish_reason: finishReason } : answer];
    tracer
      .startSpan("chat gpt-4o-mini", {
        startTime: new Date(t0 + i * 1000),
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.conversation.id": key,
          "user.id": "traveller",
          "gen_ai.system_instructions": JSON.stringify(SYSTEM),
          "gen_ai.input.messages": JSON.stringify(input),
          "gen_ai.output.messages": JSON.stringify(output),
        },
      })
      .end(new Date(t0 + i * 1000 + 500));
    calls.push({ system: SYSTEM, input, output });
    history.push(answer);
  }
  const spans = memory.getFinishedSpans();
  return { calls, spans, ids: spans.map((s) => ({ traceId: s.spanContext().traceId, spanId: s.spanContext().spanId })) };
}

const traces = (spans: ReturnType<typeof conversation>["spans"]) => decodeTracesProto(ProtobufTraceSerializer.serializeRequest(spans)!);
const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
/**
 * The JSON bytes of question-answer pairs stored as exchanges (`[q,a]` each, 3 bytes a pair), each message of
 * the usual shape (`{role, parts: [{type: "text", content}]}`, as this file's) stored as `[role, content]`.
 */
const exchangeBytes = (ms: { role: string; parts: { content?: unknown }[] }[]) => ms.reduce<number>((a, m) => a + bytes([m.role, m.parts[0].content]), 0) + (3 * ms.length) / 2;

async function prompts(db: Database, ids: { traceId: string; spanId: string }[]) {
  // A span's turn (its key) has the id the span's trace and span ids give.
  const got = await loadCapturedPrompts(projectSql(db.sql, DEFAULT_PROJECT_ID), ids.map((x) => messageIdOf(x)));
  return ids.map((x) => {
    const p = got.get(messageIdOf(x));
    return p ? { system: p.system_instructions, input: p.input_messages, output: p.output_messages } : null;
  });
}

async function nodes(db: Database, key: string) {
  const [r] = await db.sql.query<{ n: number; body_bytes: number }>(
    `SELECT count(*)::int AS n, coalesce(sum(octet_length(m.body::text)), 0)::int AS body_bytes
       FROM captured_messages m JOIN conversations c ON c.project_id = m.project_id AND c.id = m.conversation_id WHERE c.name = $1`,
    [key],
  );
  return r;
}

describe.each(KINDS)("captured prompts stored once, on %s", (kind) => {
  it("a 20-turn conversation stores each message once, and every span reads back exactly what it sent", { timeout: LOADED_MACHINE_TIMEOUT_MS }, async () => {
    const db = await open(kind);
    try {
      const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
      const run = conversation("twenty", 20);
      // Exported in two batches, the later one first (each batch still finds what the other stored).
      const sizes = kind === "postgres" ? STATEMENT_SIZES.server : STATEMENT_SIZES.embedded;
      expect(await ingestTraces(sql, traces(run.spans.slice(10)), new Date(), new StageTimes(), sizes)).toMatchObject({ turns_created: 10, rejected: [] });
      expect(await ingestTraces(sql, traces(run.spans.slice(0, 10)), new Date(), new StageTimes(), sizes)).toMatchObject({ turns_created: 10, rejected: [] });
      expect(await prompts(db, run.ids)).toEqual(run.calls);
      // 20 questions with their answers (one row each), one system instructions: each once.
      const distinct = run.calls.at(-1)!.input.concat(run.calls.at(-1)!.output);
      const stored = await nodes(db, "twenty");
      expect(stored.n).toBe(21);
      expect(stored.body_bytes).toBe(exchangeBytes(distinct) + bytes(SYSTEM));
      // What the spans sent is ~10 times that.
      const sent = run.calls.reduce((a, c) => a + bytes(c.input) + bytes(c.output), 0);
      expect(sent).toBeGreaterThan(9 * stored.body_bytes);
      // The same spans again (an exporter's retry) add nothing.
      expect(await ingestTraces(sql, traces(run.spans), new Date(), new StageTimes(), sizes)).toMatchObject({ turns_created: 0, duplicates: 20 });
      expect((await nodes(db, "twenty")).n).toBe(21);

      // A call that rewrote an earlier message branches from there: both histories read back as sent.
      const edited = conversation("twenty", 3, (i, input) => (i === 2 ? [input[0], assistant("a different first answer"), ...input.slice(2)] : input));
      const later = { ...edited, spans: edited.spans.slice(2), ids: edited.ids.slice(2), calls: edited.calls.slice(2) };
      expect(await ingestTraces(sql, traces(later.spans), new Date(), new StageTimes(), sizes)).toMatchObject({ turns_created: 1, rejected: [] });
      expect(await prompts(db, [...run.ids, ...later.ids])).toEqual([...run.calls, ...later.calls]);
      // From the changed exchange on, that prompt's chain is new: its 3 exchanges (the first one changed).
      expect((await nodes(db, "twenty")).n).toBe(21 + 3);
    } finally {
      await db.close();
    }
  });

  it("answers sent with finish_reason and resent without it are stored once: 1 row a span, read back as sent", { timeout: LOADED_MACHINE_TIMEOUT_MS }, async () => {
    const db = await open(kind);
    try {
      const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
      const run = conversation("finished", 20, undefined, "stop");
      const sizes = kind === "postgres" ? STATEMENT_SIZES.server : STATEMENT_SIZES.embedded;
      expect(await ingestTraces(sql, traces(run.spans), new Date(), new StageTimes(), sizes)).toMatchObject({ turns_created: 20, rejected: [] });
      expect(await prompts(db, run.ids)).toEqual(run.calls);
      expect(run.calls[19].output[0].finish_reason).toBe("stop");
      // 20 questions with their answers (as resent: without finish_reason), the system instructions.
      const stored = await nodes(db, "finished");
      expect(stored.n).toBe(21);
      const last = run.calls.at(-1)!;
      const distinct = last.input.concat(last.output.map(({ finish_reason: _f, ...m }) => m));
      expect(stored.body_bytes).toBe(exchangeBytes(distinct) + bytes(SYSTEM));
      // finish_reason where Traceloop puts it (between role and parts): it reads back in its place, and the
      // answer resent by the next call is the same row.
      const odd = conversation("finished-odd", 2);
      const first = traces([odd.spans[0]]);
      const sentOutput = `[{"role":"assistant","finish_reason":"length","parts":[{"type":"text","content":"cut"}]}]`;
      first.resourceSpans[0].spans[0].attributes["gen_ai.output.messages"] = sentOutput;
      const second = traces([odd.spans[1]]);
      const resent = [...odd.calls[1].input.slice(0, 1), { role: "assistant", parts: [{ type: "text", content: "cut" }] }, odd.calls[1].input[2]];
      second.resourceSpans[0].spans[0].attributes["gen_ai.input.messages"] = JSON.stringify(resent);
      expect(await ingestTraces(sql, first)).toMatchObject({ turns_created: 1, rejected: [] });
      expect(await ingestTraces(sql, second)).toMatchObject({ turns_created: 1, rejected: [] });
      const [back] = await prompts(db, odd.ids);
      expect(JSON.stringify(back!.output)).toBe(sentOutput);
      // The system instructions, 2 questions with their answers.
      expect((await nodes(db, "finished-odd")).n).toBe(3);
    } finally {
      await db.close();
    }
  });

  it("a message of the usual shape is stored as [role, content], any other as sent; all read back byte for byte", { timeout: LOADED_MACHINE_TIMEOUT_MS }, async () => {
    const db = await open(kind);
    try {
      const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
      const run = conversation("shapes", 1);
      const batch = traces(run.spans);
      // Key orders, extra keys, several parts, tool calls and results: none is the usual shape but the last.
      const sentInput =
        `[{"parts":[{"type":"text","content":"parts first"}],"role":"user"},{"role":"user","parts":[{"content":"content first","type":"text"}]},` +
        `{"role":"user","name":"ann","parts":[{"type":"text","content":"named"}]},{"role":"assistant","parts":[{"type":"text","content":"two"},{"type":"text","content":"parts"}]},` +
        `{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"weather","arguments":{"city":"Paris"}}]},{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"18C"}]},` +
        `{"role":"user","parts":[{"type":"text","content":"plain \\u00e9 \\"quoted\\""}]}]`;
      batch.resourceSpans[0].spans[0].attributes["gen_ai.input.messages"] = sentInput;
      expect(await ingestTraces(sql, batch)).toMatchObject({ turns_created: 1, rejected: [] });
      const [back] = await prompts(db, run.ids);
      expect(JSON.stringify(back!.input)).toBe(JSON.stringify(JSON.parse(sentInput)));
      expect(JSON.stringify(back!.output)).toBe(JSON.stringify(run.calls[0].output));
      const bodies = (
        await db.sql.query<{ body: string }>(
          `SELECT m.body::text AS body FROM captured_messages m JOIN conversations c ON c.project_id = m.project_id AND c.id = m.conversation_id WHERE c.name = 'shapes' ORDER BY m.position`,
        )
      ).map((r) => r.body);
      const stored = bodies.join("\n");
      expect(stored).toContain(`{"parts":[{"type":"text","content":"parts first"}],"role":"user"}`);
      expect(stored).toContain(`{"role":"user","parts":[{"content":"content first","type":"text"}]}`);
      expect(stored).toContain(`{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"18C"}]}`);
      expect(stored).toContain(`["user","plain \\u00e9 \\"quoted\\""]`.replace("\\u00e9", "\u00e9"));
      expect(stored).toContain(JSON.stringify([run.calls[0].output[0].role, run.calls[0].output[0].parts[0].content]));
    } finally {
      await db.close();
    }
  });

  it("the conversation's captured messages go with it; they and the waiting halves of a call count as its end user's rows", { timeout: LOADED_MACHINE_TIMEOUT_MS }, async () => {
    const db = await open(kind);
    try {
      const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
      const run = conversation("erased", 4);
      await ingestTraces(sql, traces(run.spans));
      expect((await nodes(db, "erased")).n).toBe(5);
      expect((await countUserRows(sql, "traveller")).captured_messages).toBe(5);
      // A call whose halves wait (otlp_pending): its user message as a log event naming no one, then its
      // content-less span naming the user; the answer's event never comes. Both halves are the user's rows.
      const spans = new InMemorySpanExporter();
      const logs = new InMemoryLogRecordExporter();
      const span = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] })
        .getTracer("@opentelemetry/instrumentation-openai")
        .startSpan("chat gpt-4o-mini", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "user.id": "traveller" } });
      new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: logs })] })
        .getLogger("@opentelemetry/instrumentation-openai")
        .emit({ context: trace.setSpan(context.active(), span), severityNumber: SeverityNumber.INFO, attributes: { "event.name": "gen_ai.user.message" }, body: { content: "my passport number is X123" } });
      span.end();
      expect(await ingestLogs(sql, decodeLogsProto(ProtobufLogsSerializer.serializeRequest(logs.getFinishedLogRecords())!))).toMatchObject({ awaiting_span: 1 });
      expect((await countUserRows(sql, "traveller")).otlp_pending).toBe(0);
      expect(await ingestTraces(sql, traces(spans.getFinishedSpans()))).toMatchObject({ awaiting_logs: 1, turns_created: 0 });
      expect((await countUserRows(sql, "traveller")).otlp_pending).toBe(2);
      const [conv] = await db.sql.query<{ id: string }>(`SELECT id FROM conversations WHERE name = 'erased'`);
      // A conversation deleted (retention, erasure) takes its messages with it.
      await db.sql.query(`DELETE FROM captured_spans WHERE conversation_id = $1`, [conv.id]);
      await db.sql.query(`DELETE FROM messages WHERE conversation_id = $1`, [conv.id]);
      await db.sql.query(`DELETE FROM conversations WHERE id = $1`, [conv.id]);
      expect((await nodes(db, "erased")).n).toBe(0);
      expect((await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM captured_messages WHERE conversation_id = $1`, [conv.id]))[0].n).toBe(0);
    } finally {
      await db.close();
    }
  });

  it(`migration ${MIGRATION} moves the prompts stored before it, and later spans find them`, { timeout: LOADED_MACHINE_TIMEOUT_MS }, async () => {
    const db = await open(kind, false);
    try {
      const all = readMigrations();
      expect(all.map((m) => m.name)).toContain(MIGRATION);
      await applyMigrations(db.sql, all.filter((m) => m.name < MIGRATION));
      // Three calls of one conversation as the code before the migration stored them.
      const run = conversation("migrated", 4);
      const old = run.calls.slice(0, 3);
      // The conversation the code names for this key (its spans land in it).
      const conv = conversationIdOf({ conversationKey: "migrated", traceId: run.ids[0].traceId });
      await db.sql.query(`INSERT INTO conversations (id, project_id, app_id, end_user_id, name) VALUES ($1, 'default', 'app', 'traveller', 'migrated')`, [conv]);
      for (const [i, c] of old.entries()) {
        const msg = messageIdOf(run.ids[i]);
        await db.sql.query(`INSERT INTO messages (id, project_id, conversation_id, query) VALUES ($1, 'default', $2, $3)`, [msg, conv, `q${i}`]);
        await db.sql.query(
          `INSERT INTO captured_spans (project_id, trace_id, span_id, conversation_id, message_id, conversation_key, operation, message_form,
             system_instructions, input_messages, output_messages, started_at, ended_at)
           VALUES ('default', $1, $2, $3, $4, 'migrated', 'chat', 'attributes', $5::json, $6::json, $7::json, $8, $8)`,
          [run.ids[i].traceId, run.ids[i].spanId, conv, msg, i === 1 ? null : JSON.stringify(c.system), JSON.stringify(c.input), JSON.stringify(c.output), new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString()],
        );
      }
      await applyMigrations(db.sql, all);
      expect(await prompts(db, run.ids.slice(0, 3))).toEqual(old.map((c, i) => (i === 1 ? { ...c, system: null } : c)));
      const cols = await db.sql.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_name = 'captured_spans' AND column_name LIKE '%messages'`);
      expect(cols).toEqual([]);
      // 3 questions, 3 answers, the system instructions.
      expect((await nodes(db, "migrated")).n).toBe(7);
      // The fourth call, captured by the code: the code stores exchanges (a row each), which the
      // migrated rows (a message each) are not, so its chain is stored whole once: 4 rows more.
      // Both kinds read back as sent.
      const r = await ingestTraces(projectSql(db.sql, DEFAULT_PROJECT_ID), traces([run.spans[3]]));
      expect(r).toMatchObject({ turns_created: 1, rejected: [], conversation_ids: [conv] });
      expect((await nodes(db, "migrated")).n).toBe(11);
      expect(await prompts(db, run.ids)).toEqual(run.calls.map((c, i) => (i === 1 ? { ...c, system: null } : c)));
    } finally {
      await db.close();
    }
  });
});
