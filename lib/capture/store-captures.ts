import "server-only";
import { setImmediate as nextTurn } from "node:timers/promises";
import { checkJsonValue } from "../http/input-guard";
import { noteRowUpdates } from "../db/embedded-vacuum";
import type { ProjectSql } from "../db/project-sql";
import { DomainError } from "../errors/domain-errors";
import { stableUuid } from "../imports/stable-id";
import { planTurns, turnTotals, writeTurnRows } from "../messages/insert-turns";
import type { TurnInput } from "../messages/schemas";
import { settleOnError, writeBehind, writeThrough } from "../db/write-behind";
import { countsAt, countTextsAllEncodings, type TokenCounts } from "../tokens/count-tokens-parallel";
import { sha256Hex } from "./digest";
import { isGenAiLogEvent, logEventsComplete, logRecordAsEvent, messageText, readGenAiSpan, type CapturedChat, type SpanReading } from "./genai-span";
import type { OtlpAttributes, OtlpEvent, OtlpLogs, OtlpSpan, OtlpTraces, OtlpValue } from "./otlp-types";
import { promptChainFrom, storePromptNodes } from "./prompt-store";
import { historyLinkOf, spanHistories, type HistoryScope, type SpanHistories } from "./span-history";
import { StageTimes } from "./stage-times";
import { timeSlicer } from "./time-slice";
import { checkSystemOnce, systemJsonBytes, systemSeedOf } from "./system-instructions";

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

/**
 * How large one statement of an ingest may be: turns per messages insert, bytes of JSON per
 * captured-prompts insert; and whether the conversations are vacuumed as their rows' old
 * versions pile up (the embedded database, which runs no autovacuum: lib/db/embedded-vacuum.ts).
 */
export type StatementSizes = { turns: number; captureBytes: number; vacuum?: boolean; writeBehind?: boolean };
/**
 * PostgreSQL runs the statements in another process: one statement each, the fewest round
 * trips (bench:otel, 60 s at load ~8: 1.18 -> 0.81 server and 0.57 -> 0.31 PostgreSQL CPU
 * seconds per 1 000 spans against ~128 KB captured-prompt statements). The embedded database
 * (PGlite) runs each statement on the request thread start to end, so there a 512-span batch
 * (the SDK's default) is written in 64-turn and ~48 KB statements with a turn of the event
 * loop between them (see yielding): one 512-turn messages insert held the thread ~290 ms and a
 * ~128 KB captured-prompt statement ~100 ms, what a GET /ready waited behind (section 52).
 * `writeBehind`: the writes whose results are not read are sent without waiting for them
 * (lib/db/write-behind.ts), on PostgreSQL only: there the server runs them while this thread
 * prepares the next; PGlite would run them back to back on this thread, with no turn between.
 */
export const STATEMENT_SIZES: Record<"embedded" | "server", StatementSizes> = {
  embedded: { turns: 64, captureBytes: 48 * 1024, vacuum: true },
  server: { turns: Number.POSITIVE_INFINITY, captureBytes: Number.POSITIVE_INFINITY, writeBehind: true },
};

/** What an ingest of traces or of logs did, beside its own counts. */
type IngestOutcome = {
  turns_created: number;
  duplicates: number;
  ignored: number;
  ignored_by_kind: Record<string, number>;
  rejected: { field: string; message: string }[];
  conversation_ids: string[];
};

export type IngestResult = IngestOutcome & {
  spans: number;
  /** Chat spans without content, kept until their GenAI log events arrive (POST /logs). */
  awaiting_logs: number;
};

export const conversationIdOf = (c: Pick<CapturedChat, "conversationKey" | "traceId">) =>
  c.conversationKey
    ? /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(c.conversationKey)
      ? c.conversationKey.toLowerCase()
      : stableUuid(`otlp-conversation:${c.conversationKey}`)
    : stableUuid(`otlp-trace:${c.traceId}`);

export const messageIdOf = (c: Pick<CapturedChat, "traceId" | "spanId">) => stableUuid(`otlp-span:${c.traceId}:${c.spanId}`);

/** A chat with its turn's id, its conversation's id (each hashed once per request) and its place `k` among the counted texts (2k, 2k+1). */
type Placed = { chat: CapturedChat; id: string; conversationId: string; k: number };

/** A chat span whose content comes as log events: the span and its resource, as the pending row keeps them. */
type AwaitingSpan = { span: OtlpSpan; resource: OtlpAttributes };

/** Sorts a request's spans into chats to store, ignored spans (by kind) and rejected ones. */
export function classifySpans(traces: OtlpTraces, receivedAt: Date, history?: HistoryScope) {
  const c = spanClassifier(receivedAt, history);
  for (const rs of traces.resourceSpans) for (const span of rs.spans) c.add(span, rs.resource);
  return c.result();
}

/** classifySpans with a turn of the event loop every ~15 ms (reading a span parses its messages and checks them). */
async function classifySpansSliced(traces: OtlpTraces, receivedAt: Date, history?: HistoryScope) {
  const c = spanClassifier(receivedAt, history);
  const slice = timeSlicer();
  for (const rs of traces.resourceSpans) {
    for (const span of rs.spans) {
      await slice();
      c.add(span, rs.resource);
    }
  }
  return c.result();
}

function spanClassifier(receivedAt: Date, history?: HistoryScope) {
  const placed = new Map<string, Placed>();
  const awaiting = new Map<string, AwaitingSpan>();
  const ignored: Record<string, number> = {};
  const rejected: IngestResult["rejected"] = [];
  let repeated = 0;
  return {
    add(span: OtlpSpan, resource: OtlpAttributes) {
      const r = readSpan(span, resource, receivedAt, history);
      if (r.kind === "ignored") ignored[r.what] = (ignored[r.what] ?? 0) + 1;
      else if (r.kind === "awaiting_logs") {
        if (awaiting.has(spanKey(span))) repeated++;
        else awaiting.set(spanKey(span), { span, resource });
      } else if (r.kind === "rejected") rejected.push({ field: r.field, message: r.problem });
      else {
        const problem = storable(r.chat);
        if (problem) {
          rejected.push(problem);
          return;
        }
        // Its input passed the checks: the next call of its history may begin with it.
        const link = history && historyLinkOf(r.chat.inputMessages);
        if (link) history.histories.remember(link);
        const id = messageIdOf(r.chat);
        if (placed.has(id)) repeated++;
        else placed.set(id, { chat: r.chat, id, conversationId: conversationIdOf(r.chat), k: placed.size });
      }
    },
    result() {
      const all = [...placed.values()];
      return { chats: all.map((p) => p.chat), placed: all, awaiting: [...awaiting.values()], ignored, rejected, repeated };
    },
  };
}

/**
 * One span's reading; a value no check foresaw that still breaks it (a RangeError: a date or
 * a string out of range) rejects that span, not the request (an exporter retries a 5xx forever).
 */
function readSpan(span: OtlpSpan, resource: OtlpAttributes, receivedAt: Date, history?: HistoryScope): SpanReading {
  try {
    return readGenAiSpan(span, resource, receivedAt, undefined, history);
  } catch (e) {
    if (e instanceof RangeError) return { kind: "rejected", field: span.path, problem: `cannot be read: ${e.message}` };
    throw e;
  }
}

/**
 * What the database cannot hold (NUL characters, lone surrogates) or the turn's size limits
 * refuse. An input that continues a kept one (span-history.ts: kept only once it passed here)
 * has only its messages after it checked and measured; a problem among them is reported by
 * the check of the whole list, as without the histories.
 */
function storable(c: CapturedChat): { field: string; message: string } | null {
  const link = historyLinkOf(c.inputMessages);
  const known = link?.base?.bytes !== undefined ? link.base : null;
  const from = known ? known.messages.length : 0;
  try {
    const inputField = `${c.path}.attributes[gen_ai.input.messages]`;
    if (known) {
      try {
        checkJsonValue(c.inputMessages.slice(from), inputField);
      } catch {
        checkJsonValue(c.inputMessages, inputField);
      }
    } else checkJsonValue(c.inputMessages, inputField);
    checkJsonValue(c.outputMessages, `${c.path}.attributes[gen_ai.output.messages]`);
    const system = c.systemInstructions;
    if (system) checkSystemOnce(system, () => checkJsonValue(system, `${c.path}.attributes[gen_ai.system_instructions]`));
    checkJsonValue([c.appId, c.endUserId, c.conversationKey, c.requestModel, c.responseModel, c.provider], `${c.path}.attributes`);
  } catch (e) {
    if (e instanceof DomainError) return { field: String(e.details[0]?.field ?? c.path), message: e.details[0]?.message ?? e.message };
    throw e;
  }
  if (c.query.length > MAX_TEXT) return { field: `${c.path}.attributes[gen_ai.input.messages]`, message: `the new input is longer than ${MAX_TEXT} characters` };
  if (c.answer.length > MAX_TEXT) return { field: `${c.path}.attributes[gen_ai.output.messages]`, message: `the answer is longer than ${MAX_TEXT} characters` };
  // JSON.stringify of a list is its items' texts, comma-separated, in brackets.
  let inputBytes = known?.bytes ?? 0;
  for (let i = from; i < c.inputMessages.length; i++) inputBytes += jsonBytes(c.inputMessages[i]);
  const bytes = inputBytes + 2 + Math.max(0, c.inputMessages.length - 1) + jsonBytes(c.outputMessages) + (c.systemInstructions ? systemJsonBytes(c.systemInstructions) : jsonBytes(null));
  if (bytes > MAX_CAPTURED_BYTES_PER_SPAN) {
    return { field: `${c.path}.attributes[gen_ai.input.messages]`, message: `the span's messages are ${bytes} bytes of JSON, more than the ${MAX_CAPTURED_BYTES_PER_SPAN} a span may store` };
  }
  if (link) link.own.bytes ??= inputBytes;
  return null;
}

const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v) ?? "");

export async function ingestTraces(
  sql: ProjectSql,
  traces: OtlpTraces,
  receivedAt = new Date(),
  times = new StageTimes(),
  sizes: StatementSizes = STATEMENT_SIZES.embedded,
  /** Null: every input read whole (what the histories must not change: tests compare both). */
  histories: SpanHistories | null = spanHistories,
): Promise<IngestResult> {
  const history = histories ? { histories, scope: sql.projectId } : undefined;
  const { placed, awaiting, ignored, rejected, repeated } = await times.time("classify", () => classifySpansSliced(traces, receivedAt, history));
  const stored = await ingestChats(sql, placed, { spans: awaiting, events: new Map() }, receivedAt, times, sizes, rejected);
  const ignoredCount = Object.values(ignored).reduce((a, b) => a + b, 0);
  return noteWritten({
    spans: traces.spanCount,
    awaiting_logs: stored.pendingSpans,
    turns_created: stored.created,
    duplicates: repeated + stored.duplicates,
    ignored: ignoredCount,
    ignored_by_kind: ignored,
    rejected,
    conversation_ids: stored.conversationIds,
  }, stored.written);
}

export type LogIngestResult = IngestOutcome & {
  log_records: number;
  /** GenAI events kept until their span arrives (POST /traces). */
  awaiting_span: number;
};

/** A GenAI log event of a span, with the digest that makes a resent record one row. */
type PendingEvent = { key: string; event: OtlpEvent; seq: number; user: string | null };

const userText = (v: OtlpValue | undefined) => (typeof v === "string" && v.trim() ? v : null);
/**
 * The end user a waiting half names (user.id, else enduser.id, on it or its resource), kept on
 * its otlp_pending row so a user erasure reaches it before the other half arrives.
 */
const halfUser = (attributes: OtlpAttributes, resource: OtlpAttributes) =>
  userText(attributes["user.id"]) ?? userText(resource["user.id"]) ?? userText(attributes["enduser.id"]) ?? userText(resource["enduser.id"]);

/** Sorts a request's log records into GenAI events by span, ignored records (by kind) and rejected ones. */
export function classifyLogs(logs: OtlpLogs) {
  const events = new Map<string, PendingEvent[]>();
  const ignored: Record<string, number> = {};
  const rejected: LogIngestResult["rejected"] = [];
  let seq = 0;
  for (const rl of logs.resourceLogs) {
    for (const r of rl.records) {
      if (!isGenAiLogEvent(r.eventName)) {
        const what = r.eventName ? `event ${r.eventName}` : "not a GenAI event";
        ignored[what] = (ignored[what] ?? 0) + 1;
        continue;
      }
      if (!r.traceId || !r.spanId) {
        rejected.push({ field: `${r.path}.spanId`, message: `a ${r.eventName} event without the trace and span ids of its chat span` });
        continue;
      }
      const event = logRecordAsEvent(r.eventName, r.timeUnixNano, r.attributes, r.body);
      const key = `${r.traceId}:${r.spanId}`;
      const list = events.get(key) ?? [];
      const digest = sha256Hex(stableJson([event.name, String(event.timeUnixNano), event.attributes]));
      // The same record twice within a span (two identical messages in one prompt) is two rows: numbered by occurrence.
      const occurrence = list.filter((e) => e.key.startsWith(digest)).length;
      list.push({ key: `${digest}:${occurrence}`, event, seq: seq++, user: halfUser(r.attributes, rl.resource) });
      events.set(key, list);
    }
  }
  return { events, ignored, rejected };
}

export async function ingestLogs(
  sql: ProjectSql,
  logs: OtlpLogs,
  receivedAt = new Date(),
  times = new StageTimes(),
  sizes: StatementSizes = STATEMENT_SIZES.embedded,
): Promise<LogIngestResult> {
  const { events, ignored, rejected } = await times.time("classify", () => classifyLogs(logs));
  const stored = await ingestChats(sql, [], { spans: [], events }, receivedAt, times, sizes, rejected);
  return noteWritten({
    log_records: logs.recordCount,
    awaiting_span: stored.pendingEvents,
    turns_created: stored.created,
    duplicates: stored.duplicates,
    ignored: Object.values(ignored).reduce((a, b) => a + b, 0),
    ignored_by_kind: ignored,
    rejected,
    conversation_ids: stored.conversationIds,
  }, stored.written);
}

/** How long a half of a turn waits for the other (a chat span for its log events, or the reverse). */
export const PENDING_HOURS = 1;

/**
 * Stores the chats of a request, and joins the halves that came apart (a chat span without
 * content, its GenAI log events): in one transaction, whichever half arrives second finds the
 * first, and the turn is written and the pending half deleted together.
 */
async function ingestChats(
  sql: ProjectSql,
  placed: Placed[],
  halves: { spans: AwaitingSpan[]; events: Map<string, PendingEvent[]> },
  receivedAt: Date,
  times: StageTimes,
  sizes: StatementSizes,
  rejected: { field: string; message: string }[],
) {
  // Off the request thread whatever the batch's size: an exporter's steady stream of small
  // batches would otherwise tokenize on the thread that answers every other request. The
  // workers count while the transaction opens, finds the conversations and writes the
  // prompts; the turns' rows wait for the counts (storeTurns). Counted before the
  // transaction, the exporter's one request in flight left a core idle meanwhile.
  const counting = times.time("tokens", () => countTextsAllEncodings(placed.flatMap(({ chat }) => [chat.query, chat.answer]), { offThread: true }));
  // Awaited in the transaction; a transaction that fails first must not leave it unheard.
  counting.catch(() => {});
  const out = { created: 0, duplicates: 0, pendingSpans: 0, pendingEvents: 0, conversationIds: [] as string[], written: [] as WrittenTurn[] };
  if (!placed.length && !halves.spans.length && !halves.events.size) return out;
  const result = await times.time("db", () =>
    sql.transaction(async (raw) => {
      const tx = yielding(raw);
      let all = placed;
      let counts = counting;
      if (halves.spans.length || halves.events.size) {
        const joined = await joinHalves(tx, halves, receivedAt, rejected);
        out.duplicates += joined.duplicates;
        out.pendingSpans = joined.pendingSpans;
        out.pendingEvents = joined.pendingEvents;
        const fresh = joined.chats.filter((c) => !all.some((p) => p.id === messageIdOf(c)));
        if (fresh.length) {
          const more = await countTextsAllEncodings(fresh.flatMap((c) => [c.query, c.answer]), { offThread: true });
          all = [...all, ...fresh.map((chat, i) => ({ chat, id: messageIdOf(chat), conversationId: conversationIdOf(chat), k: placed.length + i }))];
          counts = counting.then((c) => concatCounts(c, more));
        }
      }
      if (!all.length) return { created: 0, duplicates: 0, deleted: new Set<string>(), adopted: [], groups: [] as [string, Placed[]][] };
      await continueConversations(tx, all, sizes.turns * 16);
      const groups = groupByConversation(all);
      const behind = sizes.writeBehind ? writeBehind(raw) : writeThrough(tx);
      return { ...(await settleOnError(behind, () => storeTurns(behind.tx, behind.sql, groups, counts, sizes))), groups };
    }),
  );
  // Each conversation's row was updated (counters): its old version is what later foreign-key checks walk.
  if (sizes.vacuum && result.groups.length) await noteRowUpdates(sql, "conversations", result.groups.length);
  out.created = result.created;
  out.duplicates += result.duplicates;
  for (const id of result.deleted) {
    for (const { chat: c } of result.groups.find(([g]) => g === id)![1]) rejected.push({ field: `${c.path}.attributes[gen_ai.conversation.id]`, message: "the conversation was deleted in Memscope" });
  }
  out.conversationIds = result.groups.map(([id]) => id);
  if (result.created) out.written = writtenTurns(result.groups, result.deleted, result.adopted);
  return out;
}

/**
 * Calls without gen_ai.conversation.id: a call whose input begins with an earlier call's
 * input and answer (same app, same system instructions) joins that call's conversation,
 * the longest such beginning winning; otherwise it keeps its trace's. Earlier calls of the
 * same request count, shortest input first. Sets each chat's `stateKey` (what a later call
 * looks for) and its conversation.
 */
async function continueConversations(tx: ProjectSql, all: Placed[], keysPerStatement = Number.POSITIVE_INFINITY) {
  const open = all.filter((p) => !p.chat.conversationKey).sort((x, y) => x.chat.inputMessages.length - y.chat.inputMessages.length);
  if (!open.length) return;
  // One joining request at a time per project, to its commit: two exports in flight, one with
  // a call and one with its successor, would otherwise each miss the other's uncommitted row
  // and split the conversation. Taken before any conversation lock (no deadlock with requests
  // that name their conversations, which never take it).
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('otlp-prefix-join:' || $1, 0))`, [tx.projectId]);
  const slice = timeSlicer();
  const keyed: ReturnType<typeof chainKeys>[] = [];
  for (const p of open) {
    await slice();
    keyed.push(chainKeys(p.chat));
  }
  // Each call's longest prefix first (its predecessor's state: found in the usual case), then all the
  // prefixes of the calls whose predecessor is neither stored nor in this request: the longest found
  // wins either way, and a call reads ~1 key instead of one per earlier exchange (section 71).
  const made = new Set(keyed.map((k) => k.state).filter((k): k is string => !!k));
  const known = new Map<string, string>();
  await lookUpStates(tx, [...new Set(keyed.flatMap((k) => (k.longest ? [k.longest] : [])))], keysPerStatement, known);
  const missed = keyed.filter((k) => k.count > 1 && !known.has(k.longest!) && !made.has(k.longest!));
  await lookUpStates(tx, [...new Set(missed.flatMap((k) => k.prefixes().slice(1).map((x) => x.key)))], keysPerStatement, known);
  open.forEach((p, i) => {
    // Longest prefix first. (From the trace's conversation again: a retried transaction runs this twice.)
    const k = keyed[i];
    const hit = k.longest === null ? undefined : known.has(k.longest) ? k.longest : k.count > 1 ? k.prefixes().find((x) => known.has(x.key))?.key : undefined;
    p.conversationId = hit ? known.get(hit)! : conversationIdOf(p.chat);
    p.chat.stateKey = k.state;
    p.chat.predKey = k.longest;
    p.chat.awaitingPred = !!p.chat.predKey && !known.has(p.chat.predKey);
    if (p.chat.stateKey && !known.has(p.chat.stateKey)) known.set(p.chat.stateKey, p.conversationId);
  });
}

/**
 * The conversations of the stored calls whose state is one of `wanted`, into `known` (state key -> conversation).
 *
 * Lookups by key, here and in the ingest's other reads: each key is its own index probe (a
 * LATERAL subquery with LIMIT, the conversation checked by a correlated subquery), never
 * `project_id = $1 AND key = ANY($2)` or a join the planner may turn into a scan. A table
 * PostgreSQL has not analyzed yet (a new deployment's first minute: autovacuum analyzes after
 * its naptime) is estimated at a few rows a project, and the planner then read all of the
 * project's spans, turns and prompt nodes for each request and filtered them: 18 ms of a 512-span
 * request at 5 000 spans, growing with the tables (docs/benchmarks.md section 78).
 */
async function lookUpStates(tx: ProjectSql, wanted: string[], keysPerStatement: number, known: Map<string, string>) {
  // On the embedded database in several statements (each holds the server's thread while it runs: ~5 000 keys for a
  // 512-span batch of 20-turn histories was its longest stall, section 52).
  for (let at = 0; at < wanted.length; at += keysPerStatement) {
    const rows = await tx.query<{ state_key: string; conversation_id: string }>(
      // A conversation deleted in Memscope is not continued: the call starts one.
      `SELECT u.k AS state_key, s.conversation_id FROM unnest($2::uuid[]) AS u(k)
         CROSS JOIN LATERAL (
           SELECT x.conversation_id FROM captured_spans x
            WHERE x.project_id = $1 AND x.state_key = u.k
              AND (SELECT c.deleted_at IS NULL FROM conversations c WHERE c.project_id = $1 AND c.id = x.conversation_id)
            ORDER BY x.started_at LIMIT 1) s`,
      [tx.projectId, wanted.slice(at, at + keysPerStatement)],
    );
    for (const r of rows) known.set(r.state_key, r.conversation_id);
  }
}

/** A message as compared for continuation: role and the content of its parts (an answer's finish_reason and ids aside). */
function messageKey(m: { role: string; parts: { type: string; [k: string]: unknown }[] }): unknown {
  const norm = (v: unknown) => {
    if (typeof v !== "string") return v ?? null;
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  };
  return [
    m.role,
    m.parts
      .filter((p) => !(p.type === "text" && !p.content))
      .map((p) =>
        p.type === "text" ? ["text", p.content] : p.type === "tool_call" ? ["tool_call", p.name, norm(p.arguments)] : p.type === "tool_call_response" ? ["tool_call_response", norm(p.response)] : [p.type, p],
      ),
  ];
}

/** As a UUID (its first 128 bits): 16 bytes in the row and its index. */
const asUuid = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;

/**
 * A call's continuation keys. The key of a message list digests the key of the list without
 * its last message and that message (app and system instructions at its root), so all the
 * prefixes of a call's input cost one digest a message (each prefix hashed whole was O(n^2)
 * JSON per call, a tenth of a 512-span batch's time on PGlite). `prefixes()`: the input's
 * beginnings that end with an answer, longest first (the first, `longest`, is the predecessor's
 * state; `count` of them);
 * `state`: the input followed by its answer, what the next call begins with.
 */
export function chainKeys(c: CapturedChat): {
  longest: string | null;
  count: number;
  prefixes: () => { key: string; length: number }[];
  state: string | null;
} {
  const withAnswer = !c.conversationKey && c.outputMessages.length > 0;
  const system = c.systemInstructions;
  const seed = system ? systemSeedOf(system, c.appId, () => sha256Hex(stableJson([c.appId, system]))) : sha256Hex(stableJson([c.appId, null]));
  const input = c.inputMessages;
  // The digests after each input message: those of a kept input this one continues (same app and
  // system instructions: the same seed) reused, the rest computed (span-history.ts).
  const link = historyLinkOf(input);
  const mine = link?.own.chain;
  let hs: readonly string[];
  if (mine && mine.seed === seed && mine.hs.length === input.length) hs = mine.hs;
  else {
    const base = link?.base?.chain;
    const from = base && base.seed === seed && base.hs.length === link.base!.messages.length && base.hs.length <= input.length ? base.hs : [];
    const out = [...from];
    let h = out.length ? out[out.length - 1] : seed;
    for (let i = out.length; i < input.length; i++) out.push((h = sha256Hex(`${h}:${stableJson(messageKey(input[i]))}`)));
    hs = out;
    if (link) link.own.chain = { seed, hs };
  }
  // The beginnings that end with an answer, longest first; only the longest is usually looked up,
  // so the others' keys are made on demand (a 20-turn history's 19 other keys were most of this
  // function's garbage).
  const ends: number[] = [];
  for (let k = input.length; k > 0; k--) if (input[k - 1].role === "assistant") ends.push(k);
  let made: { key: string; length: number }[] | null = null;
  const last = input.length ? hs[input.length - 1] : seed;
  return {
    longest: ends.length ? asUuid(hs[ends[0] - 1]) : null,
    count: ends.length,
    prefixes: () => (made ??= ends.map((k) => ({ key: asUuid(hs[k - 1]), length: k }))),
    state: withAnswer ? asUuid(sha256Hex(`${last}:${stableJson(messageKey(c.outputMessages[0]))}`)) : null,
  };
}

/** The chats by conversation: conversations in id order (two requests lock shared ones in the same order), each oldest first. */
function groupByConversation(placed: Placed[]): [string, Placed[]][] {
  const byConversation = new Map<string, Placed[]>();
  for (const p of placed) {
    const list = byConversation.get(p.conversationId);
    if (list) list.push(p);
    else byConversation.set(p.conversationId, [p]);
  }
  // Oldest first within a conversation: each turn follows the one sent before it.
  for (const list of byConversation.values()) list.sort(({ chat: x }, { chat: y }) => x.startedAt.getTime() - y.startedAt.getTime() || x.spanId.localeCompare(y.spanId));
  return [...byConversation.entries()].sort(([x], [y]) => x.localeCompare(y));
}

function concatCounts(a: TokenCounts, b: TokenCounts): TokenCounts {
  const cat = <T extends Int32Array | Uint8Array>(x: T, y: T, make: (n: number) => T) => {
    const out = make(x.length + y.length);
    out.set(x);
    out.set(y, x.length);
    return out;
  };
  return {
    o200k_base: cat(a.o200k_base, b.o200k_base, (n) => new Int32Array(n)),
    cl100k_base: cat(a.cl100k_base, b.cl100k_base, (n) => new Int32Array(n)),
    approximate: cat(a.approximate, b.approximate, (n) => new Uint8Array(n)),
    path: a.path,
  };
}

const spanKey = (s: { traceId: string; spanId: string }) => `${s.traceId}:${s.spanId}`;

/** Whether `v` holds a non-array object (or nests past 64 levels: then the sorting path decides, as before). */
function hasPlainObject(v: unknown, depth: number): boolean {
  if (v === null || typeof v !== "object") return false;
  if (!Array.isArray(v) || depth > 64) return true;
  for (const x of v) if (hasPlainObject(x, depth + 1)) return true;
  return false;
}

/** JSON with object keys sorted: the same record always hashes the same. */
export function stableJson(v: unknown): string {
  // Without a plain object anywhere (a text message's key: arrays of strings) there are no keys
  // to sort, and JSON.stringify alone gives the same text; the replacer, called for every value,
  // was most of a span's continuation digests (docs/benchmarks.md section 59).
  if (!hasPlainObject(v, 0)) return JSON.stringify(v);
  return JSON.stringify(v, (_k, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));
}

type SpanPayload = { name: string; start: string; end: string; attributes: OtlpAttributes; resource: OtlpAttributes };
type EventPayload = { name: string; time: string; attributes: OtlpAttributes };

/**
 * Under a lock per span (so a span and its events sent at the same moment cannot both wait),
 * the halves of each span: already captured (a resent half: a duplicate), complete (the chat
 * to store, its pending rows deleted) or still waiting (the arriving half stored).
 */
async function joinHalves(tx: ProjectSql, halves: { spans: AwaitingSpan[]; events: Map<string, PendingEvent[]> }, receivedAt: Date, rejected: { field: string; message: string }[]) {
  await tx.query(`DELETE FROM otlp_pending WHERE project_id = $1 AND received_at < $2::timestamptz`, [tx.projectId, new Date(receivedAt.getTime() - PENDING_HOURS * 3_600_000).toISOString()]);
  const spans = new Map(halves.spans.map((s) => [spanKey(s.span), s]));
  const keys = [...new Set([...spans.keys(), ...halves.events.keys()])].sort();
  await tx.query(`SELECT count(pg_advisory_xact_lock(h)) FROM (SELECT DISTINCT hashtextextended($1 || ':' || k, 0) AS h FROM unnest($2::text[]) AS k ORDER BY h) s`, [tx.projectId, keys]);
  const [traceIds, spanIds] = [keys.map((k) => k.split(":")[0]), keys.map((k) => k.split(":")[1])];
  // A captured span is keyed by its turn, whose id derives from the span's trace and span ids.
  const turnIds = keys.map((k, i) => messageIdOf({ traceId: traceIds[i], spanId: spanIds[i] }));
  const capturedIds = new Set(
    (
      await tx.query<{ id: string }>(
        // One probe a span (lookUpStates says why).
        `SELECT s.message_id AS id FROM unnest($2::uuid[]) AS u(id)
           CROSS JOIN LATERAL (SELECT s.message_id FROM captured_spans s WHERE s.project_id = $1 AND s.message_id = u.id LIMIT 1) s`,
        [tx.projectId, turnIds],
      )
    ).map((r) => r.id),
  );
  const captured = new Set(keys.filter((_, i) => capturedIds.has(turnIds[i])));
  const pending = await tx.query<{ k: string; part: string; part_key: string; payload: SpanPayload | EventPayload; end_user_id: string | null }>(
    `SELECT p.trace_id || ':' || p.span_id AS k, p.part, p.part_key, p.payload, p.end_user_id FROM unnest($2::text[], $3::text[]) AS u(t, s)
       JOIN otlp_pending p ON p.project_id = $1 AND p.trace_id = u.t AND p.span_id = u.s
      ORDER BY p.time_unix_nano, p.received_at, p.seq`,
    [tx.projectId, traceIds, spanIds],
  );
  let duplicates = 0;
  const chats: CapturedChat[] = [];
  const done: string[] = [];
  const waiting: { k: string; part: "span" | "event"; partKey: string; seq: number; time: string; payload: SpanPayload | EventPayload; user: string | null }[] = [];
  // Events that waited without a user, whose span (naming one) arrives now without completing them.
  const named: { k: string; user: string }[] = [];
  for (const k of keys) {
    const arrivingSpan = spans.get(k);
    const arrivingEvents = halves.events.get(k) ?? [];
    if (captured.has(k)) {
      duplicates += (arrivingSpan ? 1 : 0) + arrivingEvents.length;
      continue;
    }
    const mine = pending.filter((p) => p.k === k);
    const storedSpan = mine.find((p) => p.part === "span")?.payload as SpanPayload | undefined;
    const storedKeys = new Set(mine.filter((p) => p.part === "event").map((p) => p.part_key));
    const newEvents = arrivingEvents.filter((e) => !storedKeys.has(e.key));
    duplicates += arrivingEvents.length - newEvents.length + (arrivingSpan && storedSpan ? 1 : 0);
    const events = [
      ...mine.filter((p) => p.part === "event").map((p) => eventFromPayload(p.payload as EventPayload)),
      ...newEvents.map((e) => e.event),
    ].sort((x, y) => (x.timeUnixNano < y.timeUnixNano ? -1 : x.timeUnixNano > y.timeUnixNano ? 1 : 0));
    const span = arrivingSpan ?? (storedSpan ? spanFromPayload(k, storedSpan) : null);
    if (span && logEventsComplete(events)) {
      done.push(k);
      const r = readGenAiSpan(span.span, span.resource, receivedAt, events);
      if (r.kind === "chat") {
        const problem = storable(r.chat);
        if (problem) rejected.push(problem);
        else chats.push(r.chat);
      } else if (r.kind === "rejected") rejected.push({ field: r.field, message: r.problem });
      continue;
    }
    // The span names the end user of the whole turn: its events wait under it too.
    const spanUser = arrivingSpan ? halfUser(arrivingSpan.span.attributes, arrivingSpan.resource) : (mine.find((p) => p.part === "span")?.end_user_id ?? null);
    if (arrivingSpan && !storedSpan) {
      const s = arrivingSpan.span;
      waiting.push({ k, part: "span", partKey: "", seq: 0, time: String(s.startTimeUnixNano), payload: { name: s.name, start: String(s.startTimeUnixNano), end: String(s.endTimeUnixNano), attributes: s.attributes, resource: arrivingSpan.resource }, user: spanUser });
      if (spanUser && mine.some((p) => p.part === "event" && p.end_user_id === null)) named.push({ k, user: spanUser });
    }
    for (const e of newEvents) waiting.push({ k, part: "event", partKey: e.key, seq: e.seq, time: String(e.event.timeUnixNano), payload: { name: e.event.name, time: String(e.event.timeUnixNano), attributes: e.event.attributes }, user: e.user ?? spanUser });
  }
  if (done.length) {
    await tx.query(`DELETE FROM otlp_pending p USING unnest($2::text[], $3::text[]) AS u(t, s) WHERE p.project_id = $1 AND p.trace_id = u.t AND p.span_id = u.s`, [
      tx.projectId,
      done.map((k) => k.split(":")[0]),
      done.map((k) => k.split(":")[1]),
    ]);
  }
  if (waiting.length) {
    const rows = waiting.map((w) => ({ trace_id: w.k.split(":")[0], span_id: w.k.split(":")[1], part: w.part, part_key: w.partKey, seq: w.seq, time_unix_nano: w.time, payload: w.payload, end_user_id: w.user }));
    await tx.query(
      `INSERT INTO otlp_pending (project_id, trace_id, span_id, part, part_key, seq, time_unix_nano, payload, end_user_id)
       SELECT $1, u.trace_id, u.span_id, u.part, u.part_key, u.seq, u.time_unix_nano::bigint, u.payload, u.end_user_id
         FROM json_to_recordset($2::json) AS u(trace_id text, span_id text, part text, part_key text, seq int, time_unix_nano text, payload json, end_user_id text)
       ON CONFLICT DO NOTHING`,
      [tx.projectId, JSON.stringify(rows)],
    );
  }
  if (named.length) {
    await tx.query(
      `UPDATE otlp_pending p SET end_user_id = u.user_id FROM unnest($2::text[], $3::text[], $4::text[]) AS u(t, s, user_id)
        WHERE p.project_id = $1 AND p.trace_id = u.t AND p.span_id = u.s AND p.end_user_id IS NULL`,
      [tx.projectId, named.map((n) => n.k.split(":")[0]), named.map((n) => n.k.split(":")[1]), named.map((n) => n.user)],
    );
  }
  return {
    chats,
    duplicates,
    pendingSpans: waiting.filter((w) => w.part === "span").length,
    pendingEvents: waiting.filter((w) => w.part === "event").length,
  };
}

function spanFromPayload(k: string, p: SpanPayload): AwaitingSpan {
  const [traceId, spanId] = k.split(":");
  const span: OtlpSpan = { path: `span ${traceId}/${spanId}`, traceId, spanId, name: p.name, startTimeUnixNano: BigInt(p.start), endTimeUnixNano: BigInt(p.end), attributes: p.attributes, events: [] };
  return { span, resource: p.resource };
}

const eventFromPayload = (p: EventPayload): OtlpEvent => ({ name: p.name, timeUnixNano: BigInt(p.time), attributes: p.attributes as Record<string, OtlpValue> });

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
 * `counting`: the chats' token counts (ingestChats), still being counted when the transaction
 * begins. `write`: the transaction for the writes nothing reads back (write-behind.ts).
 */
async function storeTurns(tx: ProjectSql, write: ProjectSql, groups: [string, Placed[]][], counting: Promise<TokenCounts>, sizes: StatementSizes) {
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
  // One probe a conversation, locked as the ids come (lookUpStates says why).
  const locked = await tx.query<{ id: string; deleted: boolean }>(
    `SELECT c.id, c.deleted FROM (SELECT DISTINCT id FROM unnest($2::uuid[]) AS u(id) ORDER BY id) u
       CROSS JOIN LATERAL (SELECT c.id, c.deleted_at IS NOT NULL AS deleted FROM conversations c WHERE c.project_id = $1 AND c.id = u.id FOR UPDATE) c`,
    [tx.projectId, convIds],
  );
  const deleted = new Set(locked.filter((c) => c.deleted).map((c) => c.id));

  // Every chat with its place among the counted texts; spans stored before are skipped.
  const all = groups.flatMap(([conversationId, list]) => list.map(({ chat: c, id, k }) => ({ c, conversationId, i: k, id })));
  const live = all.filter((x) => !deleted.has(x.conversationId));
  const existing = new Set(
    (
      await tx.query<{ id: string }>(
        // One probe a turn (lookUpStates says why).
        `SELECT m.id FROM unnest($2::uuid[]) AS u(id) CROSS JOIN LATERAL (SELECT m.id FROM messages m WHERE m.project_id = $1 AND m.id = u.id LIMIT 1) m`,
        [tx.projectId, live.map((x) => x.id)],
      )
    ).map((r) => r.id),
  );
  const fresh = live.filter((x) => !existing.has(x.id));
  const duplicates = live.length - fresh.length;
  if (!fresh.length) return { created: 0, duplicates, deleted, adopted: [] };

  const byConversation = new Map<string, typeof fresh>();
  for (const x of fresh) {
    const list = byConversation.get(x.conversationId);
    if (list) list.push(x);
    else byConversation.set(x.conversationId, [x]);
  }
  const heads = [...byConversation.entries()];
  // Each new turn follows the newest turn before its start, stored or of this request: the
  // thread is the conversation's calls in time order, whatever order they were exported in.
  const flat = heads.flatMap(([cid, list]) => list.map((x) => ({ cid, x })));
  const around: { i: number; before_id: string | null; before_at: string | null; after_id: string | null; after_at: string | null }[] = [];
  for (let from = 0; from < flat.length; from += sizes.turns) {
    const part = flat.slice(from, from + sizes.turns);
    around.push(
      ...(await tx.query<(typeof around)[number]>(
        `SELECT u.i, b.id AS before_id, b.created_at::text AS before_at, a.id AS after_id, a.created_at::text AS after_at
           FROM unnest($2::uuid[], $3::timestamptz[], $4::int[]) AS u(cid, at, i)
           LEFT JOIN LATERAL (SELECT m.id, m.created_at FROM messages m WHERE m.project_id = $1 AND m.conversation_id = u.cid AND m.created_at <= u.at
                               ORDER BY m.created_at DESC, m.seq DESC LIMIT 1) b ON true
           LEFT JOIN LATERAL (SELECT m.id, m.created_at FROM messages m WHERE m.project_id = $1 AND m.conversation_id = u.cid AND m.created_at > u.at
                               ORDER BY m.created_at, m.seq LIMIT 1) a ON true`,
        [tx.projectId, part.map((f) => f.cid), part.map((f) => f.x.c.startedAt.toISOString()), part.map((_, i) => from + i)],
      )),
    );
  }
  const storedBefore = new Map(around.map((r) => [r.i, r.before_id ? { id: r.before_id, at: new Date(r.before_at!).getTime() } : null]));
  const storedAfter = new Map(around.map((r) => [r.i, r.after_id ? { id: r.after_id, at: new Date(r.after_at!).getTime() } : null]));
  const slice = timeSlicer();
  // The prompts as nodes stored once per conversation (prompt-store.ts): a span's history is
  // found stored and only its new messages are written. Before the turns: their token counts
  // are still being counted meanwhile (ingestChats), and prompt nodes hang off the conversation only.
  const chains: ReturnType<typeof promptChainFrom>["chain"][] = [];
  for (const x of fresh) {
    await slice();
    // The closed exchanges of a kept input this one continues are reused (span-history.ts).
    const link = historyLinkOf(x.c.inputMessages);
    const made = promptChainFrom(x.conversationId, x.c.systemInstructions, x.c.inputMessages, x.c.outputMessages, link?.own.nodes ?? link?.base?.nodes);
    if (link) link.own.nodes = made.closed;
    chains.push(made.chain);
  }
  await storePromptNodes(tx, chains, sizes.captureBytes, sizes.turns * 4, write);
  const counts = await counting;
  // A stored turn that an earlier export placed after a turn arriving only now: it moves under the newcomer.
  const reparent: { id: string; parent: string; cid: string }[] = [];
  let at = 0;
  const prepared: ReturnType<typeof planTurns> = [];
  for (const [cid, list] of heads) {
    await slice();
    const parents = new Set<string>();
    const turns: TurnInput[] = list.map((x, k) => {
      const i = at + k;
      const stored = storedBefore.get(i) ?? null;
      const previous = k > 0 ? list[k - 1] : null;
      const parent = previous && (!stored || previous.c.startedAt.getTime() >= stored.at) ? previous.id : (stored?.id ?? null);
      if (stored && parent === stored.id) parents.add(stored.id);
      const next = storedAfter.get(i) ?? null;
      const nextNew = list[k + 1];
      if (next && !(nextNew && nextNew.c.startedAt.getTime() < next.at)) reparent.push({ id: next.id, parent: x.id, cid });
      return {
        id: x.id,
        parent_message_id: parent,
        query: x.c.query,
        answer: x.c.answer,
        ...(x.c.outputTokens !== null ? { answer_tokens: x.c.outputTokens } : {}),
        created_at: x.c.startedAt.toISOString(),
        files: [],
        metadata: turnMetadata(x.c),
      };
    });
    at += list.length;
    const kept = countsAt(counts, list.flatMap((x) => [2 * x.i, 2 * x.i + 1]));
    prepared.push(...planTurns(cid, turns, turns.map((t) => t.id!), kept, { newest: null, stored: parents }, { fieldPrefix: "spans" }));
  }
  // The parents with a turn under them already, each in its conversation (a turn's children are in its conversation).
  const parents = new Map(prepared.filter((p) => p.treeParent).map((p) => [p.treeParent!, p.conversationId]));
  const hasChildren = new Set(
    (
      await tx.query<{ tree_parent_id: string }>(
        // One probe a parent (lookUpStates says why).
        `SELECT u.p AS tree_parent_id FROM unnest($2::uuid[], $3::uuid[]) AS u(cid, p)
           CROSS JOIN LATERAL (SELECT 1 FROM messages k WHERE k.project_id = $1 AND k.conversation_id = u.cid AND k.tree_parent_id = u.p LIMIT 1) k`,
        [tx.projectId, [...parents.values()], [...parents.keys()]],
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
  for (let k = 0; k < prepared.length; k += sizes.turns) await writeTurnRows(write, prepared.slice(k, k + sizes.turns), false);
  await write.query(
    `UPDATE conversations c SET turn_count = c.turn_count + u.turns, leaf_count = c.leaf_count + u.leaves, token_count = c.token_count + u.tokens,
            updated_at = GREATEST(c.updated_at, u.at)
       FROM unnest($2::uuid[], $3::int[], $4::int[], $5::int[], $6::timestamptz[]) AS u(id, turns, leaves, tokens, at)
      WHERE c.project_id = $1 AND c.id = u.id`,
    [tx.projectId, totals.map((t) => t.cid), totals.map((t) => t.turns), totals.map((t) => t.leafDelta), totals.map((t) => t.tokenDelta), totals.map((t) => t.at)],
  );
  if (reparent.length) {
    await write.query(
      `UPDATE messages m SET parent_message_id = u.parent, tree_parent_id = u.parent
         FROM unnest($2::uuid[], $3::uuid[]) AS u(id, parent) WHERE m.project_id = $1 AND m.id = u.id`,
      [tx.projectId, reparent.map((r) => r.id), reparent.map((r) => r.parent)],
    );
    // A turn slid in between two others is no leaf: the affected conversations' leaves are counted again.
    await write.query(
      `UPDATE conversations c SET leaf_count = (SELECT count(*) FROM messages m WHERE m.project_id = c.project_id AND m.conversation_id = c.id
                 AND NOT EXISTS (SELECT 1 FROM messages k WHERE k.project_id = m.project_id AND k.conversation_id = m.conversation_id AND k.tree_parent_id = m.id))
        WHERE c.project_id = $1 AND c.id = ANY($2::uuid[])`,
      [tx.projectId, [...new Set(reparent.map((r) => r.cid))]],
    );
  }
  // The span's trace and span ids, operation, provider and models are in the turn's metadata.otlp (turnMetadata).
  const rows = fresh.map((x, i) => ({
    conversation_id: x.conversationId,
    message_id: x.id,
    conversation_key: x.c.conversationKey,
    message_form: x.c.messageForm,
    prompt_node: chains[i].promptNode,
    system_node: chains[i].system?.id ?? null,
    input_count: chains[i].inputCount,
    output_count: chains[i].outputCount,
    input_tokens: x.c.inputTokens,
    output_tokens: x.c.outputTokens,
    started_at: x.c.startedAt.toISOString(),
    ended_at: x.c.endedAt.toISOString(),
    state_key: x.c.stateKey ?? null,
    pred_key: x.c.predKey ?? null,
    awaiting_pred: !!x.c.awaitingPred,
    finish_reasons: chains[i].finishReasons,
  }));
  for (const chunk of byJsonSize(rows, sizes.captureBytes)) {
    await write.query(
      `INSERT INTO captured_spans (project_id, conversation_id, message_id, conversation_key, message_form, prompt_node, system_node,
         input_count, output_count, input_tokens, output_tokens, started_at, ended_at, state_key, pred_key, awaiting_pred, finish_reasons)
       SELECT $1, u.conversation_id, u.message_id, u.conversation_key, u.message_form, u.prompt_node, u.system_node, u.input_count, u.output_count,
              u.input_tokens, u.output_tokens, u.started_at, u.ended_at, u.state_key, u.pred_key, u.awaiting_pred, u.finish_reasons
         FROM json_to_recordset($2::json) AS u(conversation_id uuid, message_id uuid, conversation_key text, message_form text, prompt_node uuid,
                system_node uuid, input_count int, output_count int, input_tokens int, output_tokens int, started_at timestamptz, ended_at timestamptz,
                state_key uuid, pred_key uuid, awaiting_pred boolean, finish_reasons json)`,
      [tx.projectId, chunk],
    );
  }
  const adopted = await adoptSuccessors(
    tx,
    fresh.filter((x) => x.c.stateKey).map((x) => ({ key: x.c.stateKey!, cid: x.conversationId })),
  );
  return { created: fresh.length, duplicates, deleted, adopted };
}

/**
 * Calls stored before their predecessor (export order, issue 35 item 2): each started a
 * conversation of its own (its trace's), and the calls that continued it joined that one.
 * When the predecessor arrives, those calls are found by their pred_key (= its state_key)
 * and moved, with everything that continued them, into its conversation: turns, captured
 * spans, their prompt nodes (copied: node ids do not depend on the conversation), incidents;
 * the conversations touched are threaded again in call order and recounted, and one left
 * empty is deleted. A call already in a conversation holding a call with that state_key (an
 * identical earlier exchange) stays. Only calls stored before their predecessor are indexed
 * by pred_key (awaiting_pred, cleared once the predecessor is in their conversation); those
 * that continued a moved call are found within its conversation. Runs in the transaction that stored the predecessors,
 * under the prefix-join lock (continueConversations).
 */
async function adoptSuccessors(tx: ProjectSql, arrivals: { key: string; cid: string }[]): Promise<{ message_id: string; dst: string }[]> {
  if (!arrivals.length) return [];
  const target = new Map<string, string>();
  for (const a of arrivals) if (!target.has(a.key)) target.set(a.key, a.cid);
  const roots = (
    await tx.query<{ message_id: string; conversation_id: string; pred_key: string }>(
      // A waiting call whose predecessor landed in its own conversation waits no more (out of the index);
      // the others are the roots to move. The waiting calls are few: each is checked by its own probes
      // (scalar subqueries, not EXISTS, which the planner may turn into a join over the project's spans:
      // lookUpStates says why).
      `WITH arrived AS (
         UPDATE captured_spans x SET awaiting_pred = false
          WHERE x.project_id = $1 AND x.awaiting_pred AND x.pred_key = ANY($2::uuid[])
            AND (SELECT 1 FROM captured_spans t WHERE t.project_id = x.project_id AND t.state_key = x.pred_key AND t.conversation_id = x.conversation_id LIMIT 1) IS NOT NULL)
       SELECT x.message_id, x.conversation_id, x.pred_key::text FROM captured_spans x
        WHERE x.project_id = $1 AND x.awaiting_pred AND x.pred_key = ANY($2::uuid[])
          AND (SELECT c.deleted_at IS NULL FROM conversations c WHERE c.project_id = x.project_id AND c.id = x.conversation_id)
          AND (SELECT 1 FROM captured_spans t WHERE t.project_id = x.project_id AND t.state_key = x.pred_key AND t.conversation_id = x.conversation_id LIMIT 1) IS NULL`,
      [tx.projectId, [...target.keys()]],
    )
  ).filter((r) => r.conversation_id !== target.get(r.pred_key));
  if (!roots.length) return [];
  const sources = [...new Set(roots.map((r) => r.conversation_id))].sort();
  await tx.query(`SELECT id FROM conversations WHERE project_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE`, [tx.projectId, sources]);
  // The calls to move: the roots and, within their conversation (reached through its turns), whatever continued them.
  const moved = await tx.query<{ message_id: string; src: string; dst: string; prompt_node: string | null; system_node: string | null }>(
    `WITH RECURSIVE sub AS (
       SELECT s.message_id, s.state_key, s.conversation_id AS src, u.dst FROM unnest($2::uuid[], $3::uuid[]) AS u(id, dst)
         JOIN captured_spans s ON s.project_id = $1 AND s.message_id = u.id
       UNION
       SELECT c.message_id, c.state_key, c.conversation_id, sub.dst FROM sub
         JOIN messages t ON t.project_id = $1 AND t.conversation_id = sub.src
         JOIN captured_spans c ON c.project_id = $1 AND c.message_id = t.id AND c.pred_key = sub.state_key AND c.conversation_id = sub.src)
     UPDATE captured_spans s SET conversation_id = sub.dst, awaiting_pred = false FROM sub
      WHERE s.project_id = $1 AND s.message_id = sub.message_id
     RETURNING s.message_id, sub.src, sub.dst, s.prompt_node, s.system_node`,
    [tx.projectId, roots.map((r) => r.message_id), roots.map((r) => target.get(r.pred_key)!)],
  );
  const starts = moved.flatMap((m) => [m.prompt_node, m.system_node].filter((n): n is string => !!n).map((n) => ({ n, src: m.src, dst: m.dst })));
  await tx.query(
    `WITH RECURSIVE ch AS (
       SELECT u.src, u.dst, m.id, m.parent_id, m.position FROM unnest($2::uuid[], $3::uuid[], $4::uuid[]) AS u(n, src, dst)
         JOIN captured_messages m ON m.project_id = $1 AND m.conversation_id = u.src AND m.id = u.n
       UNION
       SELECT ch.src, ch.dst, m.id, m.parent_id, m.position FROM ch
         JOIN captured_messages m ON m.project_id = $1 AND m.conversation_id = ch.src AND m.id = ch.parent_id AND m.position < ch.position)
     INSERT INTO captured_messages (project_id, conversation_id, id, parent_id, position, body)
     SELECT $1, ch.dst, ch.id, ch.parent_id, ch.position, m.body FROM ch
       JOIN captured_messages m ON m.project_id = $1 AND m.conversation_id = ch.src AND m.id = ch.id
     ON CONFLICT DO NOTHING`,
    [tx.projectId, starts.map((s) => s.n), starts.map((s) => s.src), starts.map((s) => s.dst)],
  );
  const ids = moved.map((m) => m.message_id);
  const dsts = moved.map((m) => m.dst);
  await tx.query(`UPDATE messages m SET conversation_id = u.dst FROM unnest($2::uuid[], $3::uuid[]) AS u(id, dst) WHERE m.project_id = $1 AND m.id = u.id`, [tx.projectId, ids, dsts]);
  await tx.query(`UPDATE incidents i SET conversation_id = u.dst FROM unnest($2::uuid[], $3::uuid[]) AS u(id, dst) WHERE i.project_id = $1 AND i.message_id = u.id`, [tx.projectId, ids, dsts]);
  // A conversation the move emptied goes (its prompt nodes with it, ON DELETE CASCADE).
  await tx.query(
    `DELETE FROM conversations c WHERE c.project_id = $1 AND c.id = ANY($2::uuid[])
        AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.project_id = c.project_id AND m.conversation_id = c.id)`,
    [tx.projectId, sources],
  );
  // Captured conversations are one thread in call order (storeTurns): the touched ones are threaded and counted again.
  const touched = [...new Set([...sources, ...dsts])];
  await tx.query(
    `UPDATE messages m SET parent_message_id = o.prev, tree_parent_id = o.prev
       FROM (SELECT id, lag(id) OVER (PARTITION BY conversation_id ORDER BY created_at, seq) AS prev
               FROM messages WHERE project_id = $1 AND conversation_id = ANY($2::uuid[])) o
      WHERE m.project_id = $1 AND m.id = o.id AND (m.parent_message_id IS DISTINCT FROM o.prev OR m.tree_parent_id IS DISTINCT FROM o.prev)`,
    [tx.projectId, touched],
  );
  await tx.query(
    `UPDATE conversations c SET turn_count = x.turns, token_count = x.tokens, leaf_count = x.leaves, updated_at = GREATEST(c.updated_at, x.last)
       FROM (SELECT m.conversation_id AS id, count(*)::int AS turns, sum(m.query_tokens_o200k + m.answer_tokens_o200k)::int AS tokens, max(m.created_at) AS last,
                    count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM messages k WHERE k.project_id = m.project_id AND k.conversation_id = m.conversation_id AND k.tree_parent_id = m.id))::int AS leaves
               FROM messages m WHERE m.project_id = $1 AND m.conversation_id = ANY($2::uuid[]) GROUP BY m.conversation_id) x
      WHERE c.project_id = $1 AND c.id = x.id`,
    [tx.projectId, touched],
  );
  return moved.map((m) => ({ message_id: m.message_id, dst: m.dst }));
}

/**
 * A turn an ingest wrote, as detection on ingest needs it (lib/incidents/on-ingest.ts), so that
 * it reads back only the turns a rule can fire on: the question as stored, and the span's input
 * tokens and request model (the captured row's input_tokens, the turn's metadata.otlp). `query`
 * null: a turn an adoption moved into the conversation (its question not at hand here).
 */
export type WrittenTurn = { id: string; conversationId: string; query: string | null; inputTokens: number | null; model: string | null };

const WRITTEN = new WeakMap<object, WrittenTurn[]>();
function noteWritten<T extends object>(result: T, written: WrittenTurn[]): T {
  WRITTEN.set(result, written);
  return result;
}
/** The turns an ingestTraces / ingestLogs result wrote (not in the result itself: that is the export's answer). */
export const writtenTurnsOf = (result: object): WrittenTurn[] => WRITTEN.get(result) ?? [];

/** The request's chats as written turns (a resent span among them is checked again: harmless), and the turns an adoption moved. */
function writtenTurns(groups: [string, Placed[]][], deleted: Set<string>, adopted: { message_id: string; dst: string }[]): WrittenTurn[] {
  const out = new Map<string, WrittenTurn>();
  for (const [cid, list] of groups) {
    if (deleted.has(cid)) continue;
    for (const { chat: c, id } of list) out.set(id, { id, conversationId: cid, query: c.query, inputTokens: c.inputTokens, model: c.requestModel || null });
  }
  for (const m of adopted) {
    const w = out.get(m.message_id);
    out.set(m.message_id, w ? { ...w, conversationId: m.dst } : { id: m.message_id, conversationId: m.dst, query: null, inputTokens: null, model: null });
  }
  return [...out.values()];
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

/** When every message the agent added since the model's last answer is a tool result: their ids and texts, in order. */
function toolQuery(c: CapturedChat): { query_role?: "tool"; tool_results?: { id: string | null; content: string }[] } {
  let start = c.inputMessages.length;
  while (start > 0 && c.inputMessages[start - 1].role !== "assistant" && c.inputMessages[start - 1].role !== "system") start--;
  const added = c.inputMessages.slice(start);
  if (!added.length || added.some((m) => m.role !== "tool")) return {};
  return {
    query_role: "tool",
    tool_results: added.map((m) => {
      const response = m.parts.find((p) => p.type === "tool_call_response");
      return { id: typeof response?.id === "string" ? response.id : typeof m.tool_call_id === "string" ? m.tool_call_id : null, content: messageText(m) };
    }),
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
      // A query that was tool results (the agent sent role tool): the thread models them so (load-thread-messages.ts).
      ...toolQuery(c),
    },
    ...(c.inputTokens !== null || c.outputTokens !== null ? { usage: { prompt_tokens: c.inputTokens, completion_tokens: c.outputTokens } } : {}),
  };
}
