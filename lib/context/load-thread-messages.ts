import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { extractThread } from "../threads/extract-thread";
import { activeLeafBound, findAnchor, type Anchor } from "../threads/load-thread";
import { primeContentTokens, primeLongPiece } from "../strategies/message-tokens";
import { messageHasLongPiece } from "../tokens/message-long-piece";
import type { RoleMessage } from "../strategies/schemas";
import type { EncodingName } from "../tokens/registry";
import { isPlaceholder, turnContent } from "../window/token-buffer";
import { loadFileParts } from "../messages/load-file-parts";
import { IMAGE_PART_TOKENS, messageOverhead, REPLY_PRIMING_TOKENS, type ContentPart } from "../tokens/chat-formula";
import { MAX_MESSAGE_LIMIT } from "../window/get-history";

type ToolCallMeta = { id?: string; name?: string; arguments?: unknown; result?: unknown };

/**
 * Which turns' text a caller needs. A strategy that keeps only the newest turns never
 * sends older text, so those turns come with their cached token counts and empty text
 * (a 500-turn thread is ~250 KB of text; a 2 000-token window needs ~20 turns of it).
 * The scopes assume the smallest possible turn (user + answer, no tool calls), so they
 * always reach at least as far back as the strategy can keep.
 */
export type TextScope = { kind: "all" } | { kind: "newest_tokens"; tokens: number } | { kind: "newest_messages"; messages: number };

type Row = {
  id: string;
  parentMessageId: string | null;
  query: string;
  answer: string;
  answer_tokens: number;
  metadata: Record<string, unknown> | null;
  q: number;
  a: number;
  file_count: number;
};

/**
 * A conversation's current thread (the one ending at `leafId`, else at the active leaf its
 * source recorded, else at the newest row: lib/threads/load-thread.ts) as role messages,
 * oldest first: Dify's newest 500 rows and thread rule, in-flight placeholder left out.
 * Stored files become content parts of their side of the turn (images count 85 tokens).
 * A turn whose metadata carries `tool_calls` ([{id, name, arguments, result}]) becomes
 * user, assistant tool calls, tool results, then the assistant answer.
 */
export async function loadThreadMessages(
  sql: ProjectSql,
  conversationId: string,
  leafId: string | undefined,
  encoding: EncodingName,
  scope: TextScope = { kind: "all" },
  /** The leaf's position when the caller read it already (findAnchor's row: created_at as PostgreSQL's text). */
  knownAnchor?: Anchor,
): Promise<RoleMessage[]> {
  const suffix = encoding === "cl100k_base" ? "cl100k" : "o200k";
  const anchor = leafId ? (knownAnchor?.id === leafId ? knownAnchor : await findAnchor(sql, conversationId, leafId)) : null;
  const withText = scope.kind === "all";
  // One JSON text of arrays rather than 500 rows: PGlite decodes rows column by column
  // in JS, and arrays without keys are the smallest thing to build and parse. Without
  // text, the answer's emptiness is kept for the placeholder rule.
  const [{ rows: packed }] = await sql.query<{ rows: string | null }>(
    `SELECT json_agg(json_build_array(id, parent_message_id, ${withText ? "query, answer" : "'', CASE WHEN answer = '' THEN '' ELSE ' ' END"},
                                      answer_tokens, metadata, q, a, file_count)
                    ORDER BY created_at DESC, seq DESC)::text AS rows
       FROM (SELECT id, parent_message_id, ${withText ? "query, " : ""}answer, answer_tokens, metadata, file_count, created_at, seq,
                    query_tokens_${suffix} AS q, answer_tokens_${suffix} AS a
               FROM messages
              WHERE conversation_id = $1 AND project_id = $3 ${anchor ? "AND (created_at, seq) <= ($4::timestamptz, $5::int)" : activeLeafBound("$1", "$3")}
              ORDER BY created_at DESC, seq DESC
              LIMIT $2) newest`,
    anchor
      ? [conversationId, MAX_MESSAGE_LIMIT, sql.projectId, anchor.created_at, anchor.seq]
      : [conversationId, MAX_MESSAGE_LIMIT, sql.projectId],
  );
  type Packed = [string, string | null, string, string, number, Row["metadata"], number, number, number];
  const rows: Row[] = packed
    ? (JSON.parse(packed) as Packed[]).map(([id, parentMessageId, query, answer, answer_tokens, metadata, q, a, file_count]) => ({
        id,
        parentMessageId,
        query,
        answer,
        answer_tokens,
        metadata,
        q,
        a,
        file_count,
      }))
    : [];
  let thread = extractThread(rows);
  if (thread.length && isPlaceholder({ answer: thread[0].answer, answerTokens: thread[0].answer_tokens })) thread = thread.slice(1);
  if (!withText) await fillText(sql, thread, scope, encoding);
  // Images and other files ride with their turn, as content parts (files first, as Dify).
  const files = await loadFileParts(sql, thread.filter((t) => t.file_count > 0).map((t) => t.id));
  const imageTokens = (parts: ContentPart[]) => parts.filter((p) => p.type === "image").length * IMAGE_PART_TOKENS;
  const out: RoleMessage[] = [];
  for (const t of thread.reverse()) {
    const f = files.get(t.id) ?? { user: [], assistant: [] };
    // A turn captured over OTLP whose query was tool results is modelled as the tool messages the agent sent.
    const otlp = capturedToolTurn(t.metadata);
    // A stored turn without a long piece in its query or answer (known per message id, turns
    // are never edited): its two text messages need no scan (plain text only: files add parts).
    const plain = !withText || f.user.length || f.assistant.length ? false : !messageHasLongPiece(t.id, t.query, t.answer, encoding);
    if (otlp.results.length) {
      otlp.results.forEach((r, i) => out.push({ role: "tool", tool_call_id: r.id ?? `${t.id}-result-${i}`, content: r.content }));
    } else {
      const user = { role: "user", content: turnContent(t.query, f.user) } as RoleMessage;
      primeContentTokens(user, encoding, t.q + imageTokens(f.user));
      if (plain) primeLongPiece(user, encoding, false);
      out.push(user);
    }
    const calls = Array.isArray(t.metadata?.tool_calls) ? (t.metadata!.tool_calls as ToolCallMeta[]) : [];
    if (calls.length) {
      const withIds = calls.map((c, i) => ({ ...c, id: String(c.id ?? `${t.id}-call-${i}`) }));
      out.push({
        role: "assistant",
        content: "",
        tool_calls: withIds.map((c) => ({
          id: c.id,
          name: String(c.name ?? "tool"),
          arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
        })),
      });
      for (const c of withIds) {
        out.push({ role: "tool", tool_call_id: c.id, content: typeof c.result === "string" ? c.result : JSON.stringify(c.result ?? null) });
      }
    }
    const answer = { role: "assistant", content: turnContent(t.answer, f.assistant) } as RoleMessage;
    // A captured answer that asked for tools: one assistant message with its text and its calls, as the model sent it.
    if (otlp.calls.length) {
      answer.tool_calls = otlp.calls.map((c, i) => ({ id: c.id ?? `${t.id}-call-${i}`, name: c.name, arguments: c.arguments }));
    } else {
      primeContentTokens(answer, encoding, t.a + imageTokens(f.assistant));
      if (plain) primeLongPiece(answer, encoding, false);
    }
    out.push(answer);
  }
  return out;
}

/** What a turn captured over OTLP (metadata.otlp, lib/capture/store-captures.ts) says of tools: its query's tool results and its answer's calls. */
function capturedToolTurn(metadata: Row["metadata"]): { results: { id: string | null; content: string }[]; calls: { id: string | null; name: string; arguments: string }[] } {
  const otlp = metadata && typeof metadata === "object" ? (metadata as Record<string, unknown>).otlp : null;
  if (!otlp || typeof otlp !== "object") return { results: [], calls: [] };
  const o = otlp as { query_role?: unknown; tool_results?: unknown; tool_calls?: unknown };
  const results = o.query_role === "tool" && Array.isArray(o.tool_results) ? (o.tool_results as { id: string | null; content: string }[]) : [];
  const calls = Array.isArray(o.tool_calls) ? (o.tool_calls as { id: string | null; name: string; arguments: string }[]) : [];
  return { results, calls };
}

/** Reads query and answer for the newest thread turns (newest first) the scope can reach. */
async function fillText(sql: ProjectSql, newestFirst: Row[], scope: Exclude<TextScope, { kind: "all" }>, encoding: EncodingName) {
  const userOverhead = messageOverhead("user", encoding);
  const assistantOverhead = messageOverhead("assistant", encoding);
  let tokens = REPLY_PRIMING_TOKENS;
  let messages = 0;
  let reach = 0;
  for (const t of newestFirst) {
    reach++;
    tokens += userOverhead + t.q + assistantOverhead + t.a;
    messages += 2;
    if (scope.kind === "newest_tokens" ? tokens > scope.tokens : messages >= scope.messages) break;
  }
  const ids = newestFirst.slice(0, reach).map((t) => t.id);
  if (!ids.length) return;
  const [{ rows }] = await sql.query<{ rows: string | null }>(
    `SELECT json_agg(json_build_array(id, query, answer))::text AS rows FROM messages WHERE id = ANY($1::uuid[]) AND project_id = $2`,
    [ids, sql.projectId],
  );
  const text = new Map((JSON.parse(rows ?? "[]") as [string, string, string][]).map(([id, query, answer]) => [id, { query, answer }]));
  for (const t of newestFirst.slice(0, reach)) {
    const found = text.get(t.id);
    if (found) Object.assign(t, found);
  }
}
