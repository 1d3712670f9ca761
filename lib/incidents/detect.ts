import "server-only";
import { randomUUID } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import { embedLexical } from "../embeddings/lexical-embedder";
import { presetFor, type ModelPreset } from "../models/model-presets";
import { savedPresets } from "../models/model-settings";
import { daysSinceAccess, timeDecay } from "../memories/score-memory";
import { DEFAULT_WEIGHTS } from "../memories/schemas";
import { inForce, versionsOfApps } from "../profiles/profile-versions";
import type { ProfileSettings, ProfileVersion } from "../profiles/schemas";
import { DEFAULT_SETTINGS } from "../replay/replay-settings";
import { applyStrategy } from "../strategies/apply-strategy";
import { primeContentTokens } from "../strategies/message-tokens";
import type { RoleMessage } from "../strategies/schemas";
import { uncachedCounter, type TextCounter } from "../strategies/text-counts";
import { hasLongPiece } from "../tokens/count-tokens";
import { UUID_NIL } from "../threads/uuid-nil";
import {
  droppedReference,
  missedMemory,
  overContextWindow,
  restatedMemory,
  staleMemory,
  type Finding,
  type HistoryTurn,
  type MemoryAt,
  type PromptPlace,
  type PromptSize,
  type TurnIn,
  type WindowInfo,
} from "./rules";
import { loadCapturedPrompts } from "../capture/prompt-store";
import type { IncidentKind } from "./schemas";
import { backReferencePhrase, contentWords, normalizeForContainment } from "./text";

// Runs the rules over stored turns and stores what they find. Reads per batch of
// conversations, in one statement: their turns with their captured spans, and their end users'
// memories with the history of each (the state at any turn: content, status, type) and the
// suppressions; then the captured prompts (when there are any) and the apps' profile versions
// (once per run). The rules run in JS over those rows, so a scan costs a few statements per
// batch, not a replay per turn (docs/incidents.md, "Cost").

type TurnRow = {
  id: string;
  conversation_id: string;
  parent_message_id: string | null;
  query: string;
  answer: string;
  at: number | string;
  q_o200k: number;
  q_cl100k: number;
  a_o200k: number;
  a_cl100k: number;
};

type MemoryLine = {
  id: string;
  createdAt: number;
  importance: number;
  lastAccessedAt: number | null;
  sourceMessageId: string | null;
  live: { content: string; status: string; type: string };
  /** Snapshots after each change, oldest first. */
  states: { at: number; content: string | null; status: string | null; type: string | null }[];
};

type MemoryState = MemoryAt & { type: string; importance: number; lastAccessedAt: number | null };

const num = (v: number | string) => Number(v);

/** A memory's content, status and type at `t` from its history (the live row when the history says nothing up to t). */
function stateAt(m: MemoryLine, t: number): MemoryState | null {
  if (m.createdAt > t) return null;
  let content: string | null = null;
  let status: string | null = null;
  let type: string | null = null;
  let any = false;
  for (const s of m.states) {
    if (s.at > t) break;
    any = true;
    if (s.content !== null) content = s.content;
    if (s.status !== null) status = s.status;
    if (s.type !== null) type = s.type;
  }
  if (!any) ({ content, status, type } = m.live);
  const c = content ?? m.live.content;
  if ((status ?? m.live.status) !== "active") return null;
  return { id: m.id, content: c, words: wordsOf(c), createdAt: m.createdAt, sourceMessageId: m.sourceMessageId, type: type ?? m.live.type, importance: m.importance, lastAccessedAt: m.lastAccessedAt };
}

const wordsOf = contentWords;
const VECTORS = new Map<string, number[]>();
function vectorOf(text: string): number[] {
  let v = VECTORS.get(text);
  if (!v) {
    if (VECTORS.size > 20_000) VECTORS.clear();
    v = embedLexical(text);
    VECTORS.set(text, v);
  }
  return v;
}
function dot(a: number[], b: number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Every string inside a captured JSON value, joined: the text the model was sent. */
function strings(v: unknown, out: string[]): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) strings(x, out);
  return out;
}

type Captured = { text: string; inputTokens: number | null; model: string | null };

export type DetectOptions = {
  /** Only turns at or after this instant are checked (the rules still read the turns before). */
  since?: Date | null;
  /** Only these turns are checked (ingest). */
  messageIds?: ReadonlySet<string> | null;
  /** Only each conversation's newest n turns are checked (capture: what a request added). */
  newest?: number | null;
};

export type DetectResult = { turns: number; found: number; findings: Finding[] };

/** A run's caches: profiles per app and the model presets, read once per run. */
export class DetectRun {
  private profiles = new Map<string, Promise<ProfileVersion[]>>();
  private presets: Promise<ModelPreset[]> | null = null;
  constructor(private readonly sql: ProjectSql) {}
  /** Reads the profiles of the apps not read yet, all in one statement. */
  preload(appIds: readonly string[]) {
    const missing = [...new Set(appIds)].filter((a) => !this.profiles.has(a));
    if (!missing.length) return;
    const all = versionsOfApps(this.sql, missing);
    for (const a of missing) this.profiles.set(a, all.then((m) => m.get(a) ?? []));
  }
  versions(appId: string) {
    this.preload([appId]);
    return this.profiles.get(appId)!;
  }
  modelPresets() {
    return (this.presets ??= savedPresets(this.sql));
  }
}

/** A conversation as the rules need it (the scan's page carries these, sparing a statement). */
export type ConversationRef = {
  id: string;
  app_id: string;
  end_user_id: string | null;
  /** Whether its end user has memories (unknown: read them). */
  has_memories?: boolean;
};

/**
 * Checks the turns of these conversations (all, or those `opts` selects) and stores new
 * incidents (one per turn, kind and subject: a rescan finds the same rows and keeps them).
 */
export async function detectConversations(sql: ProjectSql, conversationIds: readonly string[], opts: DetectOptions = {}, run = new DetectRun(sql)): Promise<DetectResult> {
  if (!conversationIds.length) return { turns: 0, found: 0, findings: [] };
  const convs = await sql.query<ConversationRef>(
    `SELECT c.id, c.app_id, c.end_user_id, EXISTS (SELECT 1 FROM memories x WHERE x.project_id = c.project_id AND x.user_id = c.end_user_id) AS has_memories
       FROM conversations c WHERE c.project_id = $1 AND c.id = ANY($2::uuid[]) AND c.deleted_at IS NULL`,
    [sql.projectId, [...new Set(conversationIds)]],
  );
  return detectKnownConversations(sql, convs, opts, run);
}

// The batch's rows come back as one JSON text per kind (turns with their captured span;
// memories with their history and suppressions), in one statement instead of six: a JSON text
// costs the driver a fraction of what as many rows cost (on PGlite the statement takes about
// 40 % of the six's CPU, bench/diag/incidents-scan-steps.ts). The histories are grouped in one
// pass over the users' events (a subquery per memory cost more than all the rest).
const MEMORY_CTES = `
  h AS (
    SELECT e.memory_id, json_agg(json_build_array((extract(epoch FROM e.created_at) * 1000)::float8, e.after->>'content', e.after->>'status', e.after->>'memory_type')
                                 ORDER BY e.created_at, e.id) AS states
      FROM memory_events e WHERE e.project_id = $1 AND e.user_id = ANY($3::text[]) AND e.after IS NOT NULL AND e.event_type <> 'relate'
     GROUP BY e.memory_id),
  sup AS (SELECT p.memory_id, json_agg(p.kind) AS kinds FROM incident_suppressions p WHERE p.project_id = $1 AND p.user_id = ANY($3::text[]) GROUP BY p.memory_id)`;
const MEMORIES = `
    (SELECT json_agg(json_build_array(x.id, x.user_id, x.content, x.status, x.memory_type, x.importance_score,
                                      (extract(epoch FROM x.last_accessed_at) * 1000)::float8, (extract(epoch FROM x.created_at) * 1000)::float8, x.source_message_id,
                                      h.states, sup.kinds))
       FROM memories x LEFT JOIN h ON h.memory_id = x.id LEFT JOIN sup ON sup.memory_id = x.id
      WHERE x.project_id = $1 AND x.user_id = ANY($3::text[]))::text AS memories`;
// A read's texts are bounded: on the embedded database the statement and the parse of its
// answer run on the server's thread, and one 60 MB conversation read whole held it ~4 s. So
// the texts come in the batch's statement only while the running total of their bytes stays
// under TEXT_PAGE_BYTES (octet_length reads the stored length, not the text); the turns past
// it come as ids and sizes, and their texts in further pages of that size, the thread given
// back between pages.
const TEXT_PAGE_BYTES = 2 * 1024 * 1024;
/**
 * The turns the WHERE picks, as JSON: `parent` is the column the thread follows, `checked`
 * whether the turn is to be checked, `answer` the answer's text (or an expression that leaves it out).
 */
const turnsJson = (parent: string, checked: string, where: string, answer = "m.answer") => `
    (SELECT json_agg(json_build_array(m.id, m.conversation_id, m.parent, CASE WHEN m.inline THEN m.query END, CASE WHEN m.inline THEN m.answer END,
                                      (extract(epoch FROM m.created_at) * 1000)::float8,
                                      m.query_tokens_o200k, m.query_tokens_cl100k, s.message_id, NULL, CASE WHEN s.message_id IS NOT NULL THEN m.request_model END, s.input_tokens, m.checked,
                                      m.inline, m.bytes, m.answer_tokens_o200k, m.answer_tokens_cl100k)
                     ORDER BY m.conversation_id, m.created_at, m.seq)
       FROM (SELECT m.*, sum(m.bytes) OVER (ORDER BY m.conversation_id, m.created_at, m.seq, m.id ROWS UNBOUNDED PRECEDING) <= ${TEXT_PAGE_BYTES} AS inline
               FROM (SELECT m.id, m.project_id, m.conversation_id, ${parent} AS parent, m.query, ${answer} AS answer, m.created_at, m.seq,
                            m.query_tokens_o200k, m.query_tokens_cl100k, m.answer_tokens_o200k, m.answer_tokens_cl100k, m.metadata->'otlp'->>'request_model' AS request_model, ${checked} AS checked, octet_length(m.query) + octet_length(m.answer) AS bytes
                       FROM messages m WHERE m.project_id = $1 AND ${where}) m) m
       LEFT JOIN captured_spans s ON s.project_id = m.project_id AND s.message_id = m.id)::text AS turns`;
const READ_TEXTS = `SELECT json_agg(json_build_array(m.id, m.query, m.answer))::text AS texts FROM messages m WHERE m.project_id = $1 AND m.id = ANY($2::uuid[])`;
const WHOLE = turnsJson("m.parent_message_id", "true", "m.conversation_id = ANY($2::uuid[])");
const READ_BATCH = `WITH ${MEMORY_CTES} SELECT ${WHOLE}, ${MEMORIES}`;
const READ_WHOLE_TURNS = `SELECT ${WHOLE}`;

// Detection on ingest checks a few new turns of conversations that may be long: it reads those
// turns ($4, or each conversation's newest $5) and the two before each in its thread (the stale
// rule looks two turns back), following tree_parent_id (the thread parent resolved at write
// time), not the whole conversation; a conversation where a checked turn refers back ("as I
// said") is read whole afterwards, for the history window of the dropped-reference rule.
// $6 says whether any of the batch's users has memories: without any (most of a bulk import),
// only the turn's own rules run (the back reference, the prompt's size), which need neither the
// turns before nor the answer: the read is the new turns' ids, questions and counts.
const READ_NEW = `
  WITH RECURSIVE pick AS (
    SELECT m.id FROM messages m WHERE m.project_id = $1 AND m.id = ANY($4::uuid[]) AND m.conversation_id = ANY($2::uuid[])
    UNION
    SELECT n.id FROM unnest($2::uuid[]) AS c(id),
           LATERAL (SELECT m.id FROM messages m WHERE m.project_id = $1 AND m.conversation_id = c.id ORDER BY m.created_at DESC, m.seq DESC LIMIT $5::int) n),
  up AS (
    SELECT m.id, m.tree_parent_id, 0 AS depth FROM pick JOIN messages m ON m.project_id = $1 AND m.id = pick.id
    UNION
    SELECT p.id, p.tree_parent_id, up.depth + 1 FROM up JOIN messages p ON p.project_id = $1 AND p.id = up.tree_parent_id WHERE up.depth < 2 AND $6::bool),
  ${MEMORY_CTES}
  SELECT ${turnsJson("m.tree_parent_id", "m.id IN (SELECT id FROM pick)", "m.id IN (SELECT id FROM up)", "CASE WHEN $6::bool THEN m.answer ELSE '' END")}, ${MEMORIES}`;

type TurnJson = [string, string, string | null, string | null, string | null, number, number, number, string | null, string | null, string | null, number | null, boolean, boolean, number, number, number];

/**
 * The texts the read left out (past TEXT_PAGE_BYTES), read in pages of that size, the thread
 * given back between pages. Answers the turns with their texts (one deleted meanwhile is left out).
 */
async function withTexts(sql: ProjectSql, turns: TurnJson[]): Promise<TurnJson[]> {
  const missing = turns.filter((t) => !t[13]);
  const byId = new Map(missing.map((t) => [t[0], t]));
  for (let i = 0; i < missing.length; ) {
    const ids: string[] = [];
    let bytes = 0;
    while (i < missing.length && (!ids.length || bytes + Number(missing[i][14]) <= TEXT_PAGE_BYTES)) {
      bytes += Number(missing[i][14]);
      ids.push(missing[i++][0]);
    }
    await new Promise((r) => setImmediate(r));
    const [page] = await sql.query<{ texts: string | null }>(READ_TEXTS, [sql.projectId, ids]);
    for (const [id, query, answer] of (page?.texts ? JSON.parse(page.texts) : []) as [string, string, string][]) {
      const t = byId.get(id)!;
      t[3] = query;
      t[4] = answer;
      t[13] = true;
    }
  }
  return missing.length ? turns.filter((t) => t[13]) : turns;
}
type MemoryJson = [string, string, string, string, string, number, number | null, number, string | null, [number, string | null, string | null, string | null][] | null, string[] | null];

/** detectConversations for conversations already read (the scan job's pages). */
export async function detectKnownConversations(sql: ProjectSql, convs: readonly ConversationRef[], opts: DetectOptions = {}, run = new DetectRun(sql)): Promise<DetectResult> {
  if (!convs.length) return { turns: 0, found: 0, findings: [] };
  const convIds = convs.map((c) => c.id);
  const users = [...new Set(convs.filter((c) => c.has_memories !== false).map((c) => c.end_user_id).filter((u): u is string => !!u))];
  // Each statement (on the embedded database: run on this thread) and each parse of its answer
  // is a slice of its own, the thread given back between them once SLICE_MS have passed: a
  // request arriving meanwhile waits for one of them, not for the batch's chain of them.
  const slice = new TimeSlice();
  run.preload(convs.map((c) => c.app_id));
  const partial = !!opts.messageIds || !!opts.newest;
  await slice.breathe();
  const [read] = partial
    ? await sql.query<{ turns: string | null; memories: string | null }>(READ_NEW, [sql.projectId, convIds, users, [...(opts.messageIds ?? [])], opts.newest ?? 0, users.length > 0])
    : await sql.query<{ turns: string | null; memories: string | null }>(READ_BATCH, [sql.projectId, convIds, users]);
  await slice.breathe();
  let turnJson = await withTexts(sql, (read?.turns ? JSON.parse(read.turns) : []) as TurnJson[]);
  await slice.breathe();
  // Checked turns (ingest): those the read picked.
  const checkedIds = partial ? new Set(turnJson.filter((t) => t[12]).map((t) => t[0])) : null;
  if (partial) {
    const whole = [...new Set(turnJson.filter((t) => t[12] && t[2] !== null && backReferencePhrase(t[3]!)).map((t) => t[1]))];
    if (whole.length) {
      const [again] = await sql.query<{ turns: string | null }>(READ_WHOLE_TURNS, [sql.projectId, whole]);
      const wholeTurns = await withTexts(sql, (again?.turns ? JSON.parse(again.turns) : []) as TurnJson[]);
      const rest = turnJson.filter((t) => !whole.includes(t[1]));
      turnJson = [...rest, ...wholeTurns];
    }
  }
  const turnRows: TurnRow[] = [];
  // Captured turns: slot 8 is the captured span's turn (its key), slot 9 unused, slot 10 the model from the turn's metadata.otlp (read with the turn's row, not looked up again).
  const capRows: { message_id: string; request_model: string | null; input_tokens: number | null }[] = [];
  for (const t of turnJson) {
    turnRows.push({ id: t[0], conversation_id: t[1], parent_message_id: t[2], query: t[3]!, answer: t[4]!, at: t[5], q_o200k: t[6], q_cl100k: t[7], a_o200k: t[15], a_cl100k: t[16] });
    if (t[8] !== null) capRows.push({ message_id: t[0], request_model: t[10], input_tokens: t[11] });
  }
  const lines = new Map<string, MemoryLine[]>();
  const suppressed = new Set<string>();
  for (const r of (read?.memories ? JSON.parse(read.memories) : []) as MemoryJson[]) {
    const line: MemoryLine = {
      id: r[0],
      createdAt: r[7],
      importance: Number(r[5]),
      lastAccessedAt: r[6],
      sourceMessageId: r[8],
      live: { content: r[2], status: r[3], type: r[4] },
      states: (r[9] ?? []).map(([at, content, status, type]) => ({ at, content, status, type })),
    };
    const list = lines.get(r[1]) ?? [];
    list.push(line);
    lines.set(r[1], list);
    for (const kind of r[10] ?? []) suppressed.add(`${r[1]}\u0000${kind}\u0000${r[0]}`);
  }
  await slice.breathe();
  const captured = new Map<string, Captured>();
  // The prompts as sent, read back from their stored messages (lib/capture/prompt-store.ts).
  // Only where a rule reads the text: the memory rules (a user with memories: any turn, the
  // stale rule reads the parents') and the dropped-reference rule (the turn's own, only with a
  // back-reference phrase). The context-window rule needs the span's input tokens alone. So a
  // captured conversation of a user without memories (most OTLP traffic) rebuilds no prompt:
  // rebuilding every turn's whole history each request cost O(n^2) a conversation (section 63).
  const withMemories = new Set(convs.filter((c) => c.end_user_id && lines.has(c.end_user_id)).map((c) => c.id));
  const turnById = new Map(turnRows.map((t) => [t.id, t]));
  const readsText = (id: string) => {
    const t = turnById.get(id)!;
    return withMemories.has(t.conversation_id) || backReferencePhrase(t.query) !== null;
  };
  const prompts = await loadCapturedPrompts(sql, capRows.filter((c) => readsText(c.message_id)).map((c) => c.message_id));
  for (const c of capRows) {
    const parts: string[] = [];
    const prompt = prompts.get(c.message_id);
    if (prompt) {
      if (prompt.system_instructions) strings(prompt.system_instructions, parts);
      strings(prompt.input_messages, parts);
    }
    captured.set(c.message_id, { text: normalizeForContainment(parts.join("\n")), inputTokens: c.input_tokens === null ? null : Number(c.input_tokens), model: c.request_model });
  }
  const byConv = new Map<string, TurnRow[]>();
  for (const t of turnRows) {
    const list = byConv.get(t.conversation_id) ?? [];
    list.push(t);
    byConv.set(t.conversation_id, list);
  }
  await slice.breathe();
  const presets = await run.modelPresets();
  const findings: Finding[] = [];
  const rows: { f: Finding; conv: (typeof convs)[number] }[] = [];
  let checked = 0;
  for (const conv of convs) {
    await slice.breathe();
    const turns = byConv.get(conv.id) ?? [];
    const versions = await run.versions(conv.app_id);
    const userLines = conv.end_user_id ? (lines.get(conv.end_user_id) ?? []) : [];
    const isSuppressed = (kind: IncidentKind, memoryId: string) => !!conv.end_user_id && suppressed.has(`${conv.end_user_id}\u0000${kind}\u0000${memoryId}`);
    const out = await checkConversation(turns, {
      lines: userLines,
      captured,
      settingsAt: (t) => inForce(versions, new Date(t))?.settings ?? DEFAULT_SETTINGS,
      presets,
      suppressed: isSuppressed,
      since: opts.since?.getTime() ?? null,
      messageIds: checkedIds ?? opts.messageIds ?? null,
      newest: checkedIds ? null : (opts.newest ?? null),
      slice,
    });
    checked += out.checked;
    for (const f of await out.findings) rows.push({ f, conv });
  }
  for (const r of rows) findings.push(r.f);
  await slice.breathe();
  const found = rows.length ? await storeFindings(sql, rows) : 0;
  return { turns: checked, found, findings };
}

type ConversationContext = {
  lines: MemoryLine[];
  captured: Map<string, Captured>;
  settingsAt: (t: number) => ProfileSettings;
  presets: ModelPreset[];
  suppressed: (kind: IncidentKind, memoryId: string) => boolean;
  since: number | null;
  messageIds: ReadonlySet<string> | null;
  newest: number | null;
  slice: TimeSlice;
};

// The rules run on the server's thread (and, on the embedded database, so do the statements):
// a batch gives the thread back every SLICE_MS so that requests arriving meanwhile wait that
// long at most, not for the whole batch (bench:incidents measures /ready during a scan).
const SLICE_MS = 8;
class TimeSlice {
  private since = performance.now();
  async breathe(): Promise<void> {
    if (performance.now() - this.since < SLICE_MS) return;
    await new Promise((r) => setImmediate(r));
    this.since = performance.now();
  }
}

/** The rules over one conversation's turns (oldest first). */
async function checkConversation(rows: TurnRow[], ctx: ConversationContext): Promise<{ checked: number; findings: Promise<Finding[]> }> {
  const turns: TurnIn[] = rows.map((r) => ({ id: r.id, query: r.query, answer: r.answer, at: num(r.at) }));
  const index = new Map(turns.map((t, i) => [t.id, i]));
  // Dify's thread rule (load-turn.ts): the parent when it is a row of the conversation, the
  // row just before for UUID_NIL, none for null.
  const parentOf = (i: number): number | null => {
    const p = rows[i].parent_message_id;
    if (p === null) return null;
    if (p === UUID_NIL) return i > 0 ? i - 1 : null;
    const j = index.get(p);
    return j !== undefined && j < i ? j : null;
  };
  // The memories change only at their creations and history snapshots: turns between two such
  // instants share one list of the memories alive then (most turns of a conversation: one list).
  const changes = [...new Set(ctx.lines.flatMap((l) => [l.createdAt, ...l.states.map((s) => s.at)]))].sort((a, b) => a - b);
  const epochOf = (t: number) => {
    let lo = 0;
    let hi = changes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (changes[mid] <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const memoAlive = new Map<number, MemoryState[]>();
  const aliveAt = (i: number): MemoryState[] => {
    const epoch = epochOf(turns[i].at);
    let a = memoAlive.get(epoch);
    if (!a) {
      a = [];
      for (const l of ctx.lines) {
        const s = stateAt(l, turns[i].at);
        if (s) a.push(s);
      }
      memoAlive.set(epoch, a);
    }
    return a;
  };
  // The user's own message is in the prompt it sent: a memory it restates is not in the prompt for that.
  const withoutQuery = new Map<number, string>();
  const promptWithoutQuery = (i: number, cap: Captured): string => {
    let text = withoutQuery.get(i);
    if (text === undefined) {
      const q = normalizeForContainment(turns[i].query);
      const at = q ? cap.text.lastIndexOf(q) : -1;
      text = at < 0 ? cap.text : cap.text.slice(0, at) + cap.text.slice(at + q.length);
      withoutQuery.set(i, text);
    }
    return text;
  };
  const memoRank = new Map<number, Map<string, PromptPlace>>();
  const place = (i: number, memoryId: string): PromptPlace => {
    const cap = ctx.captured.get(turns[i].id);
    if (cap) {
      const m = aliveAt(i).find((x) => x.id === memoryId);
      return { in: !!m && promptWithoutQuery(i, cap).includes(normalizeForContainment(m.content)), source: "captured" };
    }
    let ranks = memoRank.get(i);
    if (!ranks) memoRank.set(i, (ranks = replayedPlaces(turns[i], aliveAt(i), ctx.settingsAt(turns[i].at))));
    return ranks.get(memoryId) ?? { in: false, source: "replayed", reason: "not alive at the turn" };
  };
  const wanted = (i: number) =>
    (ctx.since === null || turns[i].at >= ctx.since) && (!ctx.messageIds || ctx.messageIds.has(turns[i].id)) && (ctx.newest === null || i >= turns.length - ctx.newest);

  const sync: Finding[] = [];
  const later: Promise<Finding[]>[] = [];
  let checked = 0;
  for (let i = 0; i < turns.length; i++) {
    if (!wanted(i)) continue;
    if ((i & 15) === 15) await ctx.slice.breathe();
    checked++;
    const t = turns[i];
    if (!t.query.trim()) continue;
    // The memory rules need memories of the user: without any (much of a bulk import), only the
    // turn's own rules run.
    if (ctx.lines.length) {
      const alive = aliveAt(i);
      sync.push(...missedMemory(t, alive, (id) => place(i, id), ctx.suppressed));
      sync.push(...restatedMemory(t, alive, (id) => place(i, id), ctx.suppressed));
      const p1 = parentOf(i);
      const p2 = p1 === null ? null : parentOf(p1);
      const chain = [p2, p1, i].filter((x): x is number => x !== null);
      sync.push(
        ...staleMemory(
        chain.map((j) => turns[j]),
        (turn) => aliveAt(index.get(turn.id)!),
        (turn, id) => place(index.get(turn.id)!, id),
          ctx.suppressed,
          t,
        ),
      );
    }
    if (backReferencePhrase(t.query)) later.push(droppedAt(i));
    sync.push(...overContextWindow(t, promptSize(i)));
  }

  function threadBefore(i: number): number[] {
    const out: number[] = [];
    for (let p = parentOf(i); p !== null && out.length < 500; p = parentOf(p)) out.push(p);
    return out.reverse();
  }

  async function droppedAt(i: number): Promise<Finding[]> {
    const hist = threadBefore(i);
    if (!hist.length) return [];
    const cap = ctx.captured.get(turns[i].id);
    let kept: Set<number>;
    let window: WindowInfo;
    if (cap) {
      kept = new Set(hist.filter((j) => cap.text.includes(normalizeForContainment(turns[j].query))));
      window = { source: "captured", strategy: null, detail: "the earlier message is not in the prompt the agent sent" };
    } else {
      const settings = ctx.settingsAt(turns[i].at);
      // The turns' token counts stored at write time, as the window route's history carries
      // them: counting here would build the tokenizer on the server's thread (~0.5 s once
      // per process, a stall every request waits out; bench/diag/incidents-stalls.ts).
      const encoding = presetFor(settings.model, ctx.presets).encoding;
      const o200k = encoding === "o200k_base";
      const messages: RoleMessage[] = hist.flatMap((j) => {
        const user: RoleMessage = { role: "user", content: turns[j].query };
        const answer: RoleMessage = { role: "assistant", content: turns[j].answer };
        primeContentTokens(user, encoding, Number(o200k ? rows[j].q_o200k : rows[j].q_cl100k));
        primeContentTokens(answer, encoding, Number(o200k ? rows[j].a_o200k : rows[j].a_cl100k));
        return [user, answer];
      });
      const applied = await applyStrategy(messages, settings.strategy, { model: settings.model, presets: ctx.presets, textCounts: storedCounts(rows, hist) });
      const keptMessages = new Set(applied.sourceIndex);
      kept = new Set(hist.filter((_, n) => keptMessages.has(2 * n)));
      window = { source: "replayed", strategy: settings.strategy.type, detail: strategyDetail(settings.strategy as Record<string, unknown>) };
    }
    const history: HistoryTurn[] = hist.map((j) => ({ id: turns[j].id, query: turns[j].query, at: turns[j].at, kept: kept.has(j) }));
    return droppedReference(turns[i], history, window);
  }

  function promptSize(i: number): PromptSize | null {
    const settings = ctx.settingsAt(turns[i].at);
    const cap = ctx.captured.get(turns[i].id);
    if (cap) {
      if (cap.inputTokens === null) return null;
      const preset = presetFor(cap.model ?? settings.model, ctx.presets);
      return { source: "captured", tokens: cap.inputTokens, model: preset.model, context_window: preset.context_window, reserved_output_tokens: settings.reserved_output_tokens, counted: "input tokens the span reported" };
    }
    // Replayed: the window strategies trim the history to fit, so only the query itself can overflow.
    const preset = presetFor(settings.model, ctx.presets);
    const r = rows[i];
    return {
      source: "replayed",
      tokens: preset.encoding === "cl100k_base" ? Number(r.q_cl100k) : Number(r.q_o200k),
      model: preset.model,
      context_window: preset.context_window,
      reserved_output_tokens: settings.reserved_output_tokens,
      counted: "the user's message alone (the history window trims the rest to fit)",
    };
  }

  return { checked, findings: Promise.all(later).then((rest) => [...sync, ...rest.flat()]) };
}

/**
 * A text counter answering the thread's texts from the counts stored with their turns (the
 * framework strategies count message texts through it); other texts, and LlamaIndex's " " +
 * text, are counted (the tokenizer is built then).
 */
function storedCounts(rows: readonly TurnRow[], hist: readonly number[]): TextCounter {
  const known = new Map<string, { o200k_base: number; cl100k_base: number }>();
  for (const j of hist) {
    known.set(rows[j].query, { o200k_base: Number(rows[j].q_o200k), cl100k_base: Number(rows[j].q_cl100k) });
    known.set(rows[j].answer, { o200k_base: Number(rows[j].a_o200k), cl100k_base: Number(rows[j].a_cl100k) });
  }
  return {
    count: (text, encoding) => {
      const k = known.get(text);
      return k ? { tokens: k[encoding], approximate: hasLongPiece(text, encoding) } : uncachedCounter.count(text, encoding);
    },
    spaced: (text, encoding) => uncachedCounter.spaced(text, encoding),
  };
}

function strategyDetail(s: Record<string, unknown>): string | null {
  const keys = ["max_attached_message_count", "max_token_limit", "last_messages", "token_limit", "max_tokens"];
  const parts = keys.filter((k) => typeof s[k] === "number").map((k) => `${k} = ${s[k]}`);
  return parts.length ? parts.join(", ") : null;
}

/**
 * The replayed prompt's memories: the memories alive and active at the turn, scored as the
 * search scores them (0.6 cosine + 0.2 time decay + 0.2 importance by default, the profile's
 * weights when it sets them; cosine of the lexical embedder's vectors), ranked, cut at the
 * profile's k and min_score; memory off or another type keeps a memory out.
 */
export function replayedPlaces(turn: TurnIn, alive: readonly MemoryState[], settings: ProfileSettings): Map<string, PromptPlace> {
  const mem = settings.memory;
  const out = new Map<string, PromptPlace>();
  if (!mem.enabled) {
    for (const m of alive) out.set(m.id, { in: false, source: "replayed", reason: "memory is off in the app's profile" });
    return out;
  }
  const w = { ...DEFAULT_WEIGHTS, ...mem.weights };
  const q = vectorOf(turn.query);
  const scored: { m: MemoryState; score: number }[] = [];
  for (const m of alive) {
    if (mem.memory_types && !mem.memory_types.includes(m.type as never)) {
      out.set(m.id, { in: false, source: "replayed", reason: `its type ${m.type} is not among the profile's memory_types` });
      continue;
    }
    const accessed = m.lastAccessedAt !== null && m.lastAccessedAt <= turn.at ? m.lastAccessedAt : null;
    const score = w.similarity * dot(q, vectorOf(m.content)) + w.recency * timeDecay(daysSinceAccess(accessed === null ? null : new Date(accessed), turn.at)) + w.importance * m.importance;
    scored.push({ m, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.m.id < b.m.id ? -1 : 1));
  scored.forEach(({ m, score }, n) => {
    const rank = n + 1;
    const within = rank <= mem.k && (mem.min_score === undefined || score >= mem.min_score);
    const reason = !within && rank <= mem.k ? { reason: `its score ${score.toFixed(3)} is under the profile's min_score ${mem.min_score}` } : {};
    out.set(m.id, { in: within, source: "replayed", rank, k: mem.k, score: Math.round(score * 1000) / 1000, ...reason });
  });
  return out;
}

async function storeFindings(sql: ProjectSql, rows: { f: Finding; conv: { id: string; app_id: string; end_user_id: string | null } }[]): Promise<number> {
  const payload = rows.map(({ f, conv }) => ({
    id: randomUUID(),
    kind: f.kind,
    severity: f.severity,
    subject: f.subject,
    conversation_id: conv.id,
    message_id: f.messageId,
    app_id: conv.app_id,
    user_id: conv.end_user_id,
    memory_ids: f.memoryIds,
    summary: f.summary,
    evidence: f.evidence,
    turn_at: new Date(f.turnAt).toISOString(),
  }));
  const inserted = await sql.query<{ id: string }>(
    `INSERT INTO incidents (project_id, id, kind, severity, subject, conversation_id, message_id, app_id, user_id, memory_ids, summary, evidence, turn_at)
     SELECT $1, x.id, x.kind, x.severity, x.subject, x.conversation_id, x.message_id, x.app_id, x.user_id,
            ARRAY(SELECT jsonb_array_elements_text(x.memory_ids))::uuid[], x.summary, x.evidence, x.turn_at
       FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, kind text, severity text, subject text, conversation_id uuid, message_id uuid, app_id text, user_id text,
                                               memory_ids jsonb, summary text, evidence jsonb, turn_at timestamptz)
     ON CONFLICT (project_id, message_id, kind, subject) DO NOTHING RETURNING id`,
    [sql.projectId, JSON.stringify(payload)],
  );
  return inserted.length;
}
