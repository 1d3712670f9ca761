import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, describe, expect, it } from "vitest";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import { loadCapturedPrompts, promptChain } from "@/lib/capture/prompt-store";
import { listCapturedTurns } from "@/lib/capture/sent-vs-modelled";
import { conversationIdOf, ingestTraces, messageIdOf } from "@/lib/capture/store-captures";
import type { ChatMessage } from "@/lib/capture/genai-span";
import { applyMigrations, readMigrations } from "@/lib/db/migrations";
import { openDatabase, type Database } from "@/lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { LOADED_MACHINE_TIMEOUT_MS } from "../helpers/loaded-machine";
import { emptyClusterDir, freshDataDir } from "../helpers/fresh-data-dir";
import { importUser } from "@/lib/privacy/import-user";
import { createFreshDatabase, realPostgresUrl } from "../helpers/real-postgres";
import { suiteTempDirs } from "../helpers/temp-dir";

// Migration 20261129210000_captured_span_compact (issue 35, bytes per captured span): captured
// spans keyed by their turn, their trace and span ids, operation, provider and models read from
// the turn's metadata.otlp, finish_reasons as JSON. An upgrade with data keeps every captured
// span as every reader read it (the list of captured turns, the prompts as sent with their
// finish_reason), a turn of an older version without those keys in its metadata included, and a
// span sent again afterwards is still recognised as a duplicate. On PGlite, and on PostgreSQL
// when MEMSCOPE_TEST_POSTGRES_URL names one.

const MIGRATION = "20261129210000_captured_span_compact";
const fresh = suiteTempDirs(afterAll);
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const d of drops) await d();
});

async function openBare(kind: "pglite" | "postgres"): Promise<Database> {
  if (kind === "pglite") return openDatabase({ kind: "pglite", dataDir: await emptyClusterDir(fresh("span-compact")) }, { migrate: false });
  const d = await createFreshDatabase(realPostgresUrl()!);
  drops.push(() => d.drop());
  return openDatabase({ kind: "postgres", url: d.url }, { migrate: false });
}

const KINDS = (["pglite", ...(realPostgresUrl() ? ["postgres"] : [])] as const).map((k) => k as "pglite" | "postgres");
const text = (role: string, content: string) => ({ role, parts: [{ type: "text", content }] }) as ChatMessage;
const SYSTEM = [{ type: "text", content: "You are terse." }];

/** `n` chat spans of conversation `key`, each resending the history; answers carry finish_reason "stop". */
function calls(key: string, n: number) {
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t");
  const history: ChatMessage[] = [];
  const out: { input: ChatMessage[]; output: ChatMessage[] }[] = [];
  for (let i = 0; i < n; i++) {
    history.push(text("user", `question ${i}`));
    const input = [...history];
    const output = [{ role: "assistant", finish_reason: "stop", parts: [{ type: "text", content: `answer ${i}` }] } as ChatMessage];
    tracer
      .startSpan("chat gpt-4o-mini", {
        startTime: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.conversation.id": key,
          "gen_ai.provider.name": "openai",
          "gen_ai.request.model": "gpt-4o-mini",
          "gen_ai.system_instructions": JSON.stringify(SYSTEM),
          "gen_ai.input.messages": JSON.stringify(input),
          "gen_ai.output.messages": JSON.stringify(output),
        },
      })
      .end(new Date(Date.UTC(2026, 0, 1, 0, 0, i, 500)));
    out.push({ input, output });
    history.push(text("assistant", `answer ${i}`));
  }
  const spans = memory.getFinishedSpans();
  return { spans, calls: out, ids: spans.map((s) => ({ traceId: s.spanContext().traceId, spanId: s.spanContext().spanId })) };
}
const traces = (spans: ReturnType<typeof calls>["spans"]) => decodeTracesProto(ProtobufTraceSerializer.serializeRequest(spans)!);

describe.each(KINDS)(`migration ${MIGRATION}, on %s`, (kind) => {
  it("keeps every captured span as its readers read it, and a span sent again is a duplicate", { timeout: LOADED_MACHINE_TIMEOUT_MS }, async () => {
    const db = await openBare(kind);
    try {
      const all = readMigrations();
      expect(all.map((m) => m.name)).toContain(MIGRATION);
      await applyMigrations(db.sql, all.filter((m) => m.name < MIGRATION));
      const run = calls("upgraded", 4);
      const conv = conversationIdOf({ conversationKey: "upgraded", traceId: run.ids[0].traceId });
      await db.sql.query(`INSERT INTO conversations (id, project_id, app_id, end_user_id, name) VALUES ($1, 'default', 'app', 'traveller', 'upgraded')`, [conv]);
      // Three calls as the code before the migration stored them: turns with metadata.otlp (the
      // second as an older version wrote it, without otlp; the third without its model), captured
      // spans with their own ids and models, prompt nodes as JSON messages, finish_reasons as text[].
      const models = ["gpt-4o-mini", "gpt-4o-mini", "gpt-4o-mini"];
      for (let i = 0; i < 3; i++) {
        const id = messageIdOf(run.ids[i]);
        const otlp = { trace_id: run.ids[i].traceId, span_id: run.ids[i].spanId, operation: "chat", provider: "openai", ...(i === 2 ? {} : { request_model: models[i] }) };
        const metadata = i === 1 ? { source: "otlp" } : { source: "otlp", otlp };
        await db.sql.query(
          `INSERT INTO messages (id, project_id, conversation_id, query, answer, parent_message_id, created_at, metadata) VALUES ($1, 'default', $2, $3, $4, $5, $6, $7::jsonb)`,
          [id, conv, `question ${i}`, `answer ${i}`, i ? messageIdOf(run.ids[i - 1]) : null, new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), JSON.stringify(metadata)],
        );
        const output = run.calls[i].output.map(({ finish_reason: _f, ...m }) => m as ChatMessage);
        const chain = promptChain(conv, SYSTEM, run.calls[i].input, output);
        for (const n of [...chain.nodes, chain.system!]) {
          await db.sql.query(
            `INSERT INTO captured_messages (project_id, conversation_id, id, parent_id, position, body) VALUES ('default', $1, $2, $3, $4, $5::json) ON CONFLICT DO NOTHING`,
            [conv, n.id, n.parent, n.position, n.json],
          );
        }
        await db.sql.query(
          `INSERT INTO captured_spans (project_id, trace_id, span_id, conversation_id, message_id, conversation_key, operation, provider, request_model,
             response_model, message_form, prompt_node, system_node, input_count, output_count, input_tokens, started_at, ended_at, finish_reasons)
           VALUES ('default', $1, $2, $3, $4, 'upgraded', 'chat', 'openai', $5, NULL, 'attributes', $6, $7, $8, 1, $9, $10, $10, $11::text[])`,
          [run.ids[i].traceId, run.ids[i].spanId, conv, id, models[i], chain.promptNode, chain.system!.id, chain.inputCount, 10 + i, new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), ["1:stop"]],
        );
      }
      await applyMigrations(db.sql, all);
      const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);

      const [{ n }] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM captured_spans`);
      expect(n).toBe(3);
      const turns = await listCapturedTurns(sql, conv);
      expect(turns.map((t) => ({ ...t }))).toEqual(
        [0, 1, 2].map((i) => ({
          message_id: messageIdOf(run.ids[i]),
          trace_id: run.ids[i].traceId,
          span_id: run.ids[i].spanId,
          operation: "chat",
          provider: "openai",
          request_model: models[i],
          message_form: "attributes",
          input_message_count: 2 * i + 1,
          started_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        })),
      );
      // The prompts read back as sent, each answer's finish_reason in its place.
      const prompts = await loadCapturedPrompts(sql, [0, 1, 2].map((i) => messageIdOf(run.ids[i])));
      for (let i = 0; i < 3; i++) {
        const p = prompts.get(messageIdOf(run.ids[i]))!;
        expect(JSON.stringify(p.input_messages)).toBe(JSON.stringify(run.calls[i].input));
        expect(JSON.stringify(p.output_messages)).toBe(JSON.stringify(run.calls[i].output));
        expect(p.system_instructions).toEqual(SYSTEM);
      }
      const indexes = await db.sql.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename = 'captured_spans' ORDER BY 1`);
      expect(indexes.map((r) => r.indexname)).toEqual(["captured_spans_awaiting_pred_idx", "captured_spans_pkey", "captured_spans_project_id_state_key_idx"]);

      // A stored span sent again is a duplicate; the fourth call continues the conversation.
      expect(await ingestTraces(sql, traces([run.spans[0], run.spans[3]]))).toMatchObject({ turns_created: 1, duplicates: 1, rejected: [], conversation_ids: [conv] });
      const after = await listCapturedTurns(sql, conv);
      expect(after.map((t) => t.span_id)).toEqual(run.ids.map((x) => x.spanId));
      const fourth = (await loadCapturedPrompts(sql, [messageIdOf(run.ids[3])])).get(messageIdOf(run.ids[3]))!;
      expect(JSON.stringify(fourth.input_messages)).toBe(JSON.stringify(run.calls[3].input));
      expect(JSON.stringify(fourth.output_messages)).toBe(JSON.stringify(run.calls[3].output));
    } finally {
      await db.close();
    }
  });

  it("a user export made before it imports: its spans' ids, operation, provider and model go onto their turns", { timeout: LOADED_MACHINE_TIMEOUT_MS }, async () => {
    const db =
      kind === "pglite"
        ? await openDatabase({ kind: "pglite", dataDir: await freshDataDir(fresh("span-compact-import")) })
        : await (async () => {
            const d = await createFreshDatabase(realPostgresUrl()!);
            drops.push(() => d.drop());
            return openDatabase({ kind: "postgres", url: d.url });
          })();
    try {
      const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
      const run = calls("imported", 1);
      const conv = conversationIdOf({ conversationKey: "imported", traceId: run.ids[0].traceId });
      const id = messageIdOf(run.ids[0]);
      const at = "2026-01-01T00:00:00.000Z";
      // As version 2 exported it before the migration: the span with its own ids and model, the turn's metadata without them.
      const doc = {
        format: "memscope.user-export",
        version: 2,
        user_id: "traveller",
        exported_at: at,
        tables: {
          conversations: [{ id: conv, app_id: "app", end_user_id: "traveller", name: "imported", mode: "chat", created_at: at, updated_at: at }],
          messages: [{ id, conversation_id: conv, query: "question 0", answer: "answer 0", created_at: at, metadata: { source: "otlp" } }],
          captured_spans: [
            { trace_id: run.ids[0].traceId, span_id: run.ids[0].spanId, conversation_id: conv, message_id: id, operation: "chat", provider: "openai", request_model: "gpt-4o-mini", response_model: null, message_form: "attributes", input_count: 1, output_count: 1, started_at: at, ended_at: at, finish_reasons: ["1:stop"] },
          ],
        },
      };
      expect(await importUser(sql, doc)).toMatchObject({ captured_spans: 1, messages: 1 });
      expect((await listCapturedTurns(sql, conv)).map((t) => ({ ...t }))).toEqual([
        { message_id: id, trace_id: run.ids[0].traceId, span_id: run.ids[0].spanId, operation: "chat", provider: "openai", request_model: "gpt-4o-mini", message_form: "attributes", input_message_count: 1, started_at: at },
      ]);
      // The span sent again is a duplicate of the imported one.
      expect(await ingestTraces(sql, traces(run.spans))).toMatchObject({ turns_created: 0, duplicates: 1 });
    } finally {
      await db.close();
    }
  });
});
