import "server-only";
import { setImmediate as nextTurn } from "node:timers/promises";
import { checkJsonValue } from "../api/input-guard";
import type { ProjectSql } from "../db/project-sql";
import { DomainError } from "../errors/domain-errors";
import { stableUuid } from "../imports/stable-id";
import { planTurns, turnTotals, writeTurnRows } from "../messages/insert-turns";
import type { TurnInput } from "../messages/schemas";
import { countsAt, countTextsAllEncodings, type TokenCounts } from "../tokens/count-tokens-parallel";
import { readGenAiSpan, type CapturedChat, type SpanReading } from "./genai-span";
import type { OtlpAttributes, OtlpSpan, OtlpTraces } from "./otlp-types";
import { StageTimes } from "./stage-times";

// GenAI chat spans as turns. A span's turn has an id derived from its trace and span ids,
// so the same span sent twice (exporters retry) is one turn; its conversation is the
// span's gen_ai.conversation.id (used as is when it is a UUID, so an agent that already
// names Memscope conversations lands in them), else one conversation per trace. The turns
// of one request are written in one transaction: all of them or none.

const MAX_TEXT = 200_000;
/**
 * Bytes of captured prompt (input, output and system messages as JSON) one span may store.
 * A gzip body inflates up to 64 MiB; without a bound per span a few highly compressible
 * spans stored hundreds of times their wire size. A 128k-token context is ~0.5 MB of text.
 */
export const MAX_CAPTURED_BYTES_PER_SPAN = 1024 * 1024;

/** How large one statement of an ingest may be: turns per messages insert, bytes of JSON per captured-prompts insert. */
export type StatementSizes = { turns: number; captureBytes: number };
/**
 * PostgreSQL runs the statements in another process: one statement each, the fewest round
 * trips (bench:otel, 60 s at load ~8: 1.18 -> 0.81 server and 0.57 -> 0.31 PostgreSQL CPU
 * seconds per 1 000 spans against ~128 KB captured-prompt statements). The embedded database
 * (PGlite) runs each statement on the request thread, so its captured prompts stay in
 * statements of ~128 KB with a turn of the event loop between them (see yielding); smaller
 * ones (20-turn messages inserts, 32 KB) cost ~15% more CPU per span there, without a better
 * GET /ready p99 in bench:otel, so they were not kept.
 */
export const STATEMENT_SIZES: Record<"embedded" | "server", StatementSizes> = {
  embedded: { turns: Number.POSITIVE_INFINITY, captureBytes: 128 * 1024 },
  server: { turns: Number.POSITIVE_INFINITY, captureBytes: Number.POSITIVE_INFINITY },
};

export type IngestResult = {
  spans: number;
  turns_created: number;
  duplicates: number;
  ignored: number;
  ignored_by_kind: Record<string, number>;
  rejected: { field: string; message: string }[];
  conversation_ids: string[];
};

export const conversationIdOf = (c: Pick<CapturedChat, "conversationKey" | "traceId">) =>
  c.conversationKey
    ? /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(c.conversationKey)
      ? c.conversationKey.toLowerCase()
      : stableUuid(`otlp-conversation:${c.conversationKey}`)
    : stableUuid(`otlp-trace:${c.traceId}`);

export const messageIdOf = (c: Pick<CapturedChat, "traceId" | "spanId">) => stableUuid(`otlp-span:${c.traceId}:${c.spanId}`);

/** A chat with its turn's id and its conversation's id, each hashed once per request. */
type Placed = { chat: CapturedChat; id: string; conversationId: string };

/** Sorts a request's spans into chats to store, ignored spans (by kind) and rejected ones. */
export function classifySpans(traces: OtlpTraces, receivedAt: Date) {
  const placed = new Map<string, Placed>();
  const ignored: Record<string, number> = {};
  const rejected: IngestResult["rejected"] = [];
  let repeated = 0;
  for (const rs of traces.resourceSpans) {
    for (const span of rs.spans) {
      const r = readSpan(span, rs.resource, receivedAt);
      if (r.kind === "ignored") ignored[r.what] = (ignored[r.what] ?? 0) + 1;
      else if (r.kind === "rejected") rejected.push({ field: r.field, message: r.problem });
      else {
        const problem = storable(r.chat);
        if (problem) {
          rejected.push(problem);
          continue;
        }
        const id = messageIdOf(r.chat);
        if (placed.has(id)) repeated++;
        else placed.set(id, { chat: r.chat, id, conversationId: conversationIdOf(r.chat) });
      }
    }
  }
  const all = [...placed.values()];
  return { chats: all.map((p) => p.chat), placed: all, ignored, rejected, repeated };
}

/**
 * One span's reading; a value no check foresaw that still breaks it (a RangeError: a date or
 * a string out of range) rejects that span, not the request (an exporter retries a 5xx forever).
 */
function readSpan(span: OtlpSpan, resource: OtlpAttributes, receivedAt: Date): SpanReading {
  try {
    return readGenAiSpan(span, resource, receivedAt);
  } catch (e) {
    if (e instanceof RangeError) return { kind: "rejected", field: span.path, problem: `cannot be read: ${e.message}` };
    throw e;
  }
}

/** What the database cannot hold (NUL characters, lone surrogates) or the turn's size limits refuse. */
function storable(c: CapturedChat): { field: string; message: string } | null {
  try {
    checkJsonValue(c.inputMessages, `${c.path}.attributes[gen_ai.input.messages]`);
    checkJsonValue(c.outputMessages, `${c.path}.attributes[gen_ai.output.messages]`);
    checkJsonValue(c.systemInstructions, `${c.path}.attributes[gen_ai.system_instructions]`);
    checkJsonValue([c.appId, c.endUserId, c.conversationKey, c.requestModel, c.responseModel, c.provider], `${c.path}.attributes`);
  } catch (e) {
    if (e instanceof DomainError) return { field: String(e.details[0]?.field ?? c.path), message: e.details[0]?.message ?? e.message };
    throw e;
  }
  if (c.query.length > MAX_TEXT) return { field: `${c.path}.attributes[gen_ai.input.messages]`, message: `the new input is longer than ${MAX_TEXT} characters` };
  if (c.answer.length > MAX_TEXT) return { field: `${c.path}.attributes[gen_ai.output.messages]`, message: `the answer is longer than ${MAX_TEXT} characters` };
  const bytes = jsonBytes(c.inputMessages) + jsonBytes(c.outputMessages) + jsonBytes(c.systemInstructions);
  if (bytes > MAX_CAPTURED_BYTES_PER_SPAN) {
    return { field: `${c.path}.attributes[gen_ai.input.messages]`, message: `the span's messages are ${bytes} bytes of JSON, more than the ${MAX_CAPTURED_BYTES_PER_SPAN} a span may store` };
  }
  return null;
}

const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v) ?? "");

export async function ingestTraces(
  sql: ProjectSql,
  traces: OtlpTraces,
  receivedAt = new Date(),
  times = new StageTimes(),
  sizes: StatementSizes = STATEMENT_SIZES.embedded,
): Promise<IngestResult> {
  const { placed, ignored, rejected, repeated } = await times.time("classify", () => classifySpans(traces, receivedAt));
  const byConversation = new Map<string, Placed[]>();
  for (const p of placed) {
    const list = byConversation.get(p.conversationId);
    if (list) list.push(p);
    else byConversation.set(p.conversationId, [p]);
  }
  // Oldest first within a conversation: each turn follows the one sent before it.
  for (const list of byConversation.values()) list.sort(({ chat: x }, { chat: y }) => x.startedAt.getTime() - y.startedAt.getTime() || x.spanId.localeCompare(y.spanId));
  // Conversations in id order, so two requests lock shared ones in the same order.
  const groups = [...byConversation.entries()].sort(([x], [y]) => x.localeCompare(y));
  const ordered = groups.flatMap(([, list]) => list);
  // CPU work before the transaction opens (as insertTurns does).
  // Off the request thread whatever the batch's size: an exporter's steady stream of small
  // batches would otherwise tokenize on the thread that answers every other request.
  const counts = await times.time("tokens", () => countTextsAllEncodings(ordered.flatMap(({ chat }) => [chat.query, chat.answer]), { offThread: true }));

  let created = 0;
  let duplicates = repeated;
  if (ordered.length) {
    const stored = await times.time("db", () => sql.transaction((tx) => storeTurns(yielding(tx), groups, counts, sizes)));
    created = stored.created;
    duplicates += stored.duplicates;
    for (const id of stored.deleted) {
      for (const { chat: c } of byConversation.get(id)!) rejected.push({ field: `${c.path}.attributes[gen_ai.conversation.id]`, message: "the conversation was deleted in Memscope" });
    }
  }
  const ignoredCount = Object.values(ignored).reduce((a, b) => a + b, 0);
  return {
    spans: traces.spanCount,
    turns_created: created,
    duplicates,
    ignored: ignoredCount,
    ignored_by_kind: ignored,
    rejected,
    conversation_ids: groups.map(([id]) => id),
  };
}

/**
 * The transaction with a turn of the event loop before each statement. On the embedded
 * database (PGlite, on this thread) the statements of one transaction otherwise run back to
 * back without ever letting the server answer another request (GET /ready waited for whole
 * ingests); on PostgreSQL it costs microseconds.
 */
function yielding(tx: ProjectSql): ProjectSql {
  return {
    ...tx,
    query: async <T>(text: string, params?: unknown[]) => {
      await nextTurn();
      return tx.query<T>(text, params);
    },
  } as ProjectSql;
}

/**
 * Writes the turns of every conversation of a request with one statement per step, whatever
 * the number of conversations (a batch exporter mixes many): create the conversations,
 * lock them (in id order), skip spans already stored, find where each conversation's new
 * turns attach, write turns, counters and captured prompts.
 */
async function storeTurns(tx: ProjectSql, groups: [string, Placed[]][], counts: TokenCounts, sizes: StatementSizes) {
  const convIds = groups.map(([id]) => id);
  const firstOf = groups.map(([, list]) => list[0].chat);
  await tx.query(
    `INSERT INTO conversations (id, project_id, app_id, end_user_id, name, mode, created_at, updated_at)
     SELECT u.id, $1, u.app_id, u.end_user_id, u.name, 'chat', u.at, u.at
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS u(id, app_id, end_user_id, name, at)
     ON CONFLICT (project_id, id) DO NOTHING`,
    [
      tx.projectId,
      convIds,
      firstOf.map((c) => c.appId),
      firstOf.map((c) => c.endUserId),
      firstOf.map((c) => c.conversationKey ?? `trace ${c.traceId}`),
      firstOf.map((c) => c.startedAt.toISOString()),
    ],
  );
  // Locks the conversations, in id order: a span retried while its first copy is being written waits here, then finds it.
  const locked = await tx.query<{ id: string; deleted: boolean }>(
    `SELECT id, deleted_at IS NOT NULL AS deleted FROM conversations WHERE project_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE`,
    [tx.projectId, convIds],
  );
  const deleted = new Set(locked.filter((c) => c.deleted).map((c) => c.id));

  // Every chat with its place among the counted texts; spans stored before are skipped.
  let offset = 0;
  const all = groups.flatMap(([conversationId, list]) => list.map(({ chat: c, id }) => ({ c, conversationId, i: offset++, id })));
  const live = all.filter((x) => !deleted.has(x.conversationId));
  const existing = new Set(
    (await tx.query<{ id: string }>(`SELECT id FROM messages WHERE project_id = $1 AND id = ANY($2::uuid[])`, [tx.projectId, live.map((x) => x.id)])).map((r) => r.id),
  );
  const fresh = live.filter((x) => !existing.has(x.id));
  const duplicates = live.length - fresh.length;
  if (!fresh.length) return { created: 0, duplicates, deleted };

  const byConversation = new Map<string, typeof fresh>();
  for (const x of fresh) {
    const list = byConversation.get(x.conversationId);
    if (list) list.push(x);
    else byConversation.set(x.conversationId, [x]);
  }
  const heads = [...byConversation.entries()];
  // The first new turn of a conversation follows its newest turn stored before it; the rest follow each other.
  const before = new Map(
    (
      await tx.query<{ cid: string; id: string }>(
        `SELECT u.cid, b.id FROM unnest($2::uuid[], $3::timestamptz[]) AS u(cid, at)
           CROSS JOIN LATERAL (SELECT m.id FROM messages m WHERE m.project_id = $1 AND m.conversation_id = u.cid AND m.created_at <= u.at
                                ORDER BY m.created_at DESC, m.seq DESC LIMIT 1) b`,
        [tx.projectId, heads.map(([cid]) => cid), heads.map(([, list]) => list[0].c.startedAt.toISOString())],
      )
    ).map((r) => [r.cid, r.id]),
  );
  const prepared = heads.flatMap(([cid, list]) => {
    const parent = before.get(cid) ?? null;
    const turns: TurnInput[] = list.map((x, k) => ({
      id: x.id,
      parent_message_id: k === 0 ? parent : list[k - 1].id,
      query: x.c.query,
      answer: x.c.answer,
      ...(x.c.outputTokens !== null ? { answer_tokens: x.c.outputTokens } : {}),
      created_at: x.c.startedAt.toISOString(),
      files: [],
      metadata: turnMetadata(x.c),
    }));
    const kept = countsAt(counts, list.flatMap((x) => [2 * x.i, 2 * x.i + 1]));
    return planTurns(cid, turns, turns.map((t) => t.id!), kept, { newest: null, stored: new Set(parent ? [parent] : []) }, { fieldPrefix: "spans" });
  });
  const parents = [...new Set(prepared.map((p) => p.treeParent).filter((p): p is string => !!p))];
  const hasChildren = new Set(
    (
      await tx.query<{ tree_parent_id: string }>(
        `SELECT DISTINCT tree_parent_id FROM messages WHERE project_id = $1 AND conversation_id = ANY($2::uuid[]) AND tree_parent_id = ANY($3::uuid[])`,
        [tx.projectId, heads.map(([cid]) => cid), parents],
      )
    ).map((r) => r.tree_parent_id),
  );
  const totals = heads.map(([cid, list]) => ({
    cid,
    turns: list.length,
    ...turnTotals(
      prepared.filter((p) => p.conversationId === cid),
      hasChildren,
    ),
    at: list[list.length - 1].c.startedAt.toISOString(),
  }));
  for (let k = 0; k < prepared.length; k += sizes.turns) await writeTurnRows(tx, prepared.slice(k, k + sizes.turns), false);
  await tx.query(
    `UPDATE conversations c SET turn_count = c.turn_count + u.turns, leaf_count = c.leaf_count + u.leaves, token_count = c.token_count + u.tokens,
            updated_at = GREATEST(c.updated_at, u.at)
       FROM unnest($2::uuid[], $3::int[], $4::int[], $5::int[], $6::timestamptz[]) AS u(id, turns, leaves, tokens, at)
      WHERE c.project_id = $1 AND c.id = u.id`,
    [tx.projectId, totals.map((t) => t.cid), totals.map((t) => t.turns), totals.map((t) => t.leafDelta), totals.map((t) => t.tokenDelta), totals.map((t) => t.at)],
  );
  // The rows as one JSON document rather than a text[] per column: the messages are JSON
  // themselves, and an array literal of them (every quote escaped) cost more than the rest.
  const rows = fresh.map((x) => ({
    trace_id: x.c.traceId,
    span_id: x.c.spanId,
    conversation_id: x.conversationId,
    message_id: x.id,
    conversation_key: x.c.conversationKey,
    operation: x.c.operation,
    provider: x.c.provider,
    request_model: x.c.requestModel,
    response_model: x.c.responseModel,
    message_form: x.c.messageForm,
    system_instructions: x.c.systemInstructions,
    input_messages: x.c.inputMessages,
    output_messages: x.c.outputMessages,
    input_tokens: x.c.inputTokens,
    output_tokens: x.c.outputTokens,
    started_at: x.c.startedAt.toISOString(),
    ended_at: x.c.endedAt.toISOString(),
  }));
  for (const chunk of byJsonSize(rows, sizes.captureBytes)) {
    await tx.query(
    `INSERT INTO captured_spans (project_id, trace_id, span_id, conversation_id, message_id, conversation_key, operation, provider,
       request_model, response_model, message_form, system_instructions, input_messages, output_messages, input_tokens, output_tokens,
       started_at, ended_at)
     SELECT $1, u.trace_id, u.span_id, u.conversation_id, u.message_id, u.conversation_key, u.operation, u.provider, u.request_model,
            u.response_model, u.message_form, NULLIF(u.system_instructions::text, 'null')::json, u.input_messages, u.output_messages,
            u.input_tokens, u.output_tokens, u.started_at, u.ended_at
       FROM json_to_recordset($2::json) AS u(trace_id text, span_id text, conversation_id uuid, message_id uuid, conversation_key text,
              operation text, provider text, request_model text, response_model text, message_form text, system_instructions json,
              input_messages json, output_messages json, input_tokens int, output_tokens int, started_at timestamptz, ended_at timestamptz)`,
    [tx.projectId, chunk],
    );
  }
  return { created: fresh.length, duplicates, deleted };
}

/** The rows as JSON arrays of about `bytes` each (a larger row is a chunk of its own). */
export function byJsonSize(rows: unknown[], bytes: number): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  let size = 0;
  for (const r of rows) {
    const j = JSON.stringify(r);
    if (cur.length && size + j.length > bytes) {
      out.push(`[${cur.join(",")}]`);
      cur = [];
      size = 0;
    }
    cur.push(j);
    size += j.length + 1;
  }
  if (cur.length) out.push(`[${cur.join(",")}]`);
  return out;
}

function turnMetadata(c: CapturedChat): Record<string, unknown> {
  return {
    source: "otlp",
    otlp: {
      trace_id: c.traceId,
      span_id: c.spanId,
      operation: c.operation,
      ...(c.provider ? { provider: c.provider } : {}),
      ...(c.requestModel ? { request_model: c.requestModel } : {}),
      ...(c.responseModel ? { response_model: c.responseModel } : {}),
      // The model's tool call requests; their results arrive as the next span's input.
      ...(c.toolCalls.length ? { tool_calls: c.toolCalls } : {}),
    },
    ...(c.inputTokens !== null || c.outputTokens !== null ? { usage: { prompt_tokens: c.inputTokens, completion_tokens: c.outputTokens } } : {}),
  };
}
