import "server-only";
import { checkJsonValue } from "../api/input-guard";
import type { ProjectSql } from "../db/project-sql";
import { DomainError } from "../errors/domain-errors";
import { stableUuid } from "../imports/stable-id";
import { planTurns, turnTotals, writeTurnRows } from "../messages/insert-turns";
import type { TurnInput } from "../messages/schemas";
import { countTextsAllEncodings, type TokenCounts } from "../tokens/count-tokens-parallel";
import { readGenAiSpan, type CapturedChat } from "./genai-span";
import type { OtlpTraces } from "./otlp-types";

// GenAI chat spans as turns. A span's turn has an id derived from its trace and span ids,
// so the same span sent twice (exporters retry) is one turn; its conversation is the
// span's gen_ai.conversation.id (used as is when it is a UUID, so an agent that already
// names Memscope conversations lands in them), else one conversation per trace. The turns
// of one request are written in one transaction: all of them or none.

const MAX_TEXT = 200_000;

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

/** Sorts a request's spans into chats to store, ignored spans (by kind) and rejected ones. */
export function classifySpans(traces: OtlpTraces, receivedAt: Date) {
  const chats = new Map<string, CapturedChat>();
  const ignored: Record<string, number> = {};
  const rejected: IngestResult["rejected"] = [];
  let repeated = 0;
  for (const rs of traces.resourceSpans) {
    for (const span of rs.spans) {
      const r = readGenAiSpan(span, rs.resource, receivedAt);
      if (r.kind === "ignored") ignored[r.what] = (ignored[r.what] ?? 0) + 1;
      else if (r.kind === "rejected") rejected.push({ field: r.field, message: r.problem });
      else {
        const problem = storable(r.chat);
        if (problem) rejected.push(problem);
        else if (chats.has(messageIdOf(r.chat))) repeated++;
        else chats.set(messageIdOf(r.chat), r.chat);
      }
    }
  }
  return { chats: [...chats.values()], ignored, rejected, repeated };
}

/** What the database cannot hold (NUL characters, lone surrogates) or the turn's size limit refuses. */
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
  return null;
}

export async function ingestTraces(sql: ProjectSql, traces: OtlpTraces, receivedAt = new Date()): Promise<IngestResult> {
  const { chats, ignored, rejected, repeated } = classifySpans(traces, receivedAt);
  const byConversation = new Map<string, CapturedChat[]>();
  for (const c of chats) {
    const id = conversationIdOf(c);
    byConversation.set(id, [...(byConversation.get(id) ?? []), c]);
  }
  // Oldest first within a conversation: each turn follows the one sent before it.
  for (const list of byConversation.values()) list.sort((x, y) => x.startedAt.getTime() - y.startedAt.getTime() || x.spanId.localeCompare(y.spanId));
  // Conversations in id order, so two requests lock shared ones in the same order.
  const groups = [...byConversation.entries()].sort(([x], [y]) => x.localeCompare(y));
  const ordered = groups.flatMap(([, list]) => list);
  // CPU work before the transaction opens (as insertTurns does).
  const counts = await countTextsAllEncodings(ordered.flatMap((c) => [c.query, c.answer]));

  let created = 0;
  let duplicates = repeated;
  if (ordered.length) {
    await sql.transaction(async (tx) => {
      let offset = 0;
      for (const [conversationId, list] of groups) {
        const slice = pickCounts(counts, list.flatMap((_, k) => [2 * (offset + k), 2 * (offset + k) + 1]));
        offset += list.length;
        const stored = await storeConversationTurns(tx, conversationId, list, slice);
        if (stored === "deleted") {
          for (const c of list) rejected.push({ field: `${c.path}.attributes[gen_ai.conversation.id]`, message: "the conversation was deleted in Memscope" });
        } else {
          created += stored.created;
          duplicates += stored.duplicates;
        }
      }
    });
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

async function storeConversationTurns(
  tx: ProjectSql,
  conversationId: string,
  chats: CapturedChat[],
  counts: TokenCounts,
): Promise<{ created: number; duplicates: number } | "deleted"> {
  const first = chats[0];
  await tx.query(
    `INSERT INTO conversations (id, project_id, app_id, end_user_id, name, mode, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, 'chat', $6, $6) ON CONFLICT (project_id, id) DO NOTHING`,
    [conversationId, tx.projectId, first.appId, first.endUserId, first.conversationKey ?? `trace ${first.traceId}`, first.startedAt.toISOString()],
  );
  // Locks the conversation: a span retried while its first copy is being written waits here, then finds it.
  const [conv] = await tx.query<{ deleted: boolean }>(`SELECT deleted_at IS NOT NULL AS deleted FROM conversations WHERE id = $1 AND project_id = $2 FOR UPDATE`, [
    conversationId,
    tx.projectId,
  ]);
  if (conv.deleted) return "deleted";

  const ids = chats.map(messageIdOf);
  const existing = new Set(
    (await tx.query<{ id: string }>(`SELECT id FROM messages WHERE id = ANY($1::uuid[]) AND project_id = $2`, [ids, tx.projectId])).map((r) => r.id),
  );
  const keep = chats.map((c, i) => ({ c, i, id: ids[i] })).filter((x) => !existing.has(x.id));
  if (!keep.length) return { created: 0, duplicates: chats.length };

  // The first new turn follows the newest turn stored before it; the rest follow each other.
  const [before] = await tx.query<{ id: string }>(
    `SELECT id FROM messages WHERE conversation_id = $1 AND project_id = $2 AND created_at <= $3 ORDER BY created_at DESC, seq DESC LIMIT 1`,
    [conversationId, tx.projectId, keep[0].c.startedAt.toISOString()],
  );
  const turns: TurnInput[] = keep.map(({ c }, k) => ({
    id: ids[chats.indexOf(c)],
    parent_message_id: k === 0 ? (before?.id ?? null) : keep[k - 1].id,
    query: c.query,
    answer: c.answer,
    ...(c.outputTokens !== null ? { answer_tokens: c.outputTokens } : {}),
    created_at: c.startedAt.toISOString(),
    files: [],
    metadata: turnMetadata(c),
  }));
  const keptCounts = pickCounts(counts, keep.flatMap((x) => [2 * x.i, 2 * x.i + 1]));
  const prepared = planTurns(
    conversationId,
    turns,
    turns.map((t) => t.id!),
    keptCounts,
    { newest: null, stored: new Set(before ? [before.id] : []) },
    { fieldPrefix: "spans" },
  );
  const parents = [...new Set(prepared.map((p) => p.treeParent).filter((p): p is string => !!p))];
  const hasChildren = new Set(
    (
      await tx.query<{ tree_parent_id: string }>(
        `SELECT DISTINCT tree_parent_id FROM messages WHERE conversation_id = $1 AND project_id = $3 AND tree_parent_id = ANY($2::uuid[])`,
        [conversationId, parents, tx.projectId],
      )
    ).map((r) => r.tree_parent_id),
  );
  const { leafDelta, tokenDelta } = turnTotals(prepared, hasChildren);
  await writeTurnRows(tx, prepared, false);
  await tx.query(
    `UPDATE conversations SET turn_count = turn_count + $2, leaf_count = leaf_count + $3, token_count = token_count + $4,
            updated_at = GREATEST(updated_at, $5::timestamptz)
      WHERE id = $1 AND project_id = $6`,
    [conversationId, prepared.length, leafDelta, tokenDelta, keep[keep.length - 1].c.startedAt.toISOString(), tx.projectId],
  );
  const col = <T>(f: (c: CapturedChat) => T) => keep.map((x) => f(x.c));
  await tx.query(
    `INSERT INTO captured_spans (project_id, trace_id, span_id, conversation_id, message_id, conversation_key, operation, provider,
       request_model, response_model, message_form, system_instructions, input_messages, output_messages, input_tokens, output_tokens,
       started_at, ended_at)
     SELECT $1, u.trace_id, u.span_id, $2, u.message_id, u.conversation_key, u.operation, u.provider, u.request_model, u.response_model,
            u.message_form, u.system_instructions::jsonb, u.input_messages::jsonb, u.output_messages::jsonb, u.input_tokens, u.output_tokens,
            u.started_at, u.ended_at
       FROM unnest($3::text[], $4::text[], $5::uuid[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
                   $12::text[], $13::text[], $14::text[], $15::int[], $16::int[], $17::timestamptz[], $18::timestamptz[])
         AS u(trace_id, span_id, message_id, conversation_key, operation, provider, request_model, response_model, message_form,
              system_instructions, input_messages, output_messages, input_tokens, output_tokens, started_at, ended_at)`,
    [
      tx.projectId,
      conversationId,
      col((c) => c.traceId),
      col((c) => c.spanId),
      keep.map((x) => x.id),
      col((c) => c.conversationKey),
      col((c) => c.operation),
      col((c) => c.provider),
      col((c) => c.requestModel),
      col((c) => c.responseModel),
      col((c) => c.messageForm),
      col((c) => (c.systemInstructions ? JSON.stringify(c.systemInstructions) : null)),
      col((c) => JSON.stringify(c.inputMessages)),
      col((c) => JSON.stringify(c.outputMessages)),
      col((c) => c.inputTokens),
      col((c) => c.outputTokens),
      col((c) => c.startedAt.toISOString()),
      col((c) => c.endedAt.toISOString()),
    ],
  );
  return { created: keep.length, duplicates: chats.length - keep.length };
}

/** The counts of some of the texts, in the order given. */
function pickCounts(c: TokenCounts, at: number[]): TokenCounts {
  return {
    o200k_base: Int32Array.from(at, (k) => c.o200k_base[k]),
    cl100k_base: Int32Array.from(at, (k) => c.cl100k_base[k]),
    approximate: Uint8Array.from(at, (k) => c.approximate[k]),
    path: c.path,
  };
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
