import type { IncidentKind, IncidentSeverity } from "./schemas";
import { absencePhrase, backReferencePhrase, contentWords, correctionPhrase, isQuestion, overlap, topicsOf } from "./text";

// The five rules of issue 38 as plain functions (docs/incidents.md states each one). They
// see a turn, the memories of its end user as they were at the turn, and what its prompt
// held, which the caller works out (lib/incidents/detect.ts: the captured prompt when there
// is one, else the replayed one). Each finding carries the evidence that fired it.

/** A memory as it was at the turn's instant (alive and active then). */
export type MemoryAt = {
  id: string;
  content: string;
  words: ReadonlySet<string>;
  createdAt: number;
  /** The turn it was extracted from, when known: it cannot be missed by its own turn. */
  sourceMessageId: string | null;
};

export type TurnIn = {
  id: string;
  query: string;
  answer: string;
  at: number;
};

/** Where a memory stood in a turn's prompt. */
export type PromptPlace = {
  in: boolean;
  source: "captured" | "replayed";
  /** Replayed: rank among the memories alive then, the k and min_score of the profile, the score. */
  rank?: number;
  k?: number;
  score?: number;
  /** Replayed: why it was out though ranked within k (memory off, another type). */
  reason?: string;
};

export type Finding = {
  kind: IncidentKind;
  severity: IncidentSeverity;
  /** What the incident is about besides the turn: a memory id, a dropped turn's id, or "turn". */
  subject: string;
  messageId: string;
  memoryIds: string[];
  summary: string;
  evidence: Record<string, unknown>;
  turnAt: number;
};

const iso = (t: number) => new Date(t).toISOString();
const quote = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

const FIRST_PERSON = /\b(i|me|my|mine|myself|i'm|i've|i'd)\b/i;

/**
 * Does the memory answer the message? Shared content words (stemmed, no stop words): two or
 * more, or one when the message is about the user (first person) and that word is at least
 * a third of the memory's content words. The memories sharing the most words win (ties: all).
 */
export function answeringMemories(query: string, memories: readonly MemoryAt[]): { memory: MemoryAt; shared: string[] }[] {
  const q = contentWords(query);
  const about = FIRST_PERSON.test(query);
  let best = 0;
  const hits: { memory: MemoryAt; shared: string[] }[] = [];
  for (const m of memories) {
    const shared = overlap(m.words, q);
    const ok = shared.length >= 2 || (shared.length === 1 && about && m.words.size > 0 && shared.length / m.words.size >= 1 / 3);
    if (!ok) continue;
    hits.push({ memory: m, shared });
    best = Math.max(best, shared.length);
  }
  return hits.filter((h) => h.shared.length === best);
}

/**
 * The answer carries what the memory adds to the question (most of its words the question
 * lacks): the agent had the fact, in some form. Words the question already has say nothing.
 */
function answerUses(query: string, answer: string, m: MemoryAt): boolean {
  const q = contentWords(query);
  const adds = [...m.words].filter((w) => !q.has(w));
  if (!adds.length) return false;
  const a = contentWords(answer);
  return adds.filter((w) => a.has(w)).length / adds.length >= 0.6;
}

function placeWords(p: PromptPlace): Record<string, unknown> {
  return p.source === "captured"
    ? { prompt_source: "captured" }
    : { prompt_source: "replayed", rank: p.rank ?? null, k: p.k ?? null, score: p.score ?? null, ...(p.reason ? { out_reason: p.reason } : {}) };
}

function placePhrase(p: PromptPlace): string {
  if (p.source === "captured") return "it was not in the prompt the agent sent (captured)";
  if (p.reason) return `it was not in the replayed prompt (${p.reason})`;
  return `it ranked ${p.rank ?? "?"}${p.rank === 1 ? "st" : p.rank === 2 ? "nd" : p.rank === 3 ? "rd" : "th"} with k = ${p.k ?? "?"}`;
}

function usable(m: MemoryAt, turn: TurnIn, suppressed: (kind: IncidentKind, memoryId: string) => boolean, kind: IncidentKind): boolean {
  return m.createdAt < turn.at && m.sourceMessageId !== turn.id && !suppressed(kind, m.id);
}

/**
 * missed_memory: the user asks (a question or a request), an active memory of theirs made
 * before the turn answers it, it was not in the prompt, and the answer does not carry it.
 * Severity high when the answer says it does not have or know the thing.
 */
export function missedMemory(
  turn: TurnIn,
  memories: readonly MemoryAt[],
  place: (memoryId: string) => PromptPlace,
  suppressed: (kind: IncidentKind, memoryId: string) => boolean,
): Finding[] {
  if (!isQuestion(turn.query)) return [];
  const out: Finding[] = [];
  const absence = absencePhrase(turn.answer);
  for (const { memory: m, shared } of answeringMemories(turn.query, memories.filter((m) => usable(m, turn, suppressed, "missed_memory")))) {
    const p = place(m.id);
    if (p.in || answerUses(turn.query, turn.answer, m)) continue;
    out.push({
      kind: "missed_memory",
      severity: absence ? "high" : "medium",
      subject: m.id,
      messageId: turn.id,
      memoryIds: [m.id],
      summary: `"${quote(m.content, 80)}" existed since ${iso(m.createdAt).slice(0, 10)} and answers the question, but ${placePhrase(p)}${absence ? `; the agent answered "${quote(absence, 80)}"` : ""}.`,
      evidence: {
        memory: { id: m.id, content: m.content, created_at: iso(m.createdAt) },
        query: quote(turn.query, 500),
        shared_words: shared,
        ...placeWords(p),
        absence_phrase: absence,
        answer: quote(turn.answer, 500),
      },
      turnAt: turn.at,
    });
  }
  return out;
}

/**
 * restated_memory: the user states (not asks) what an active memory of theirs made before
 * the turn already says (60 % or more of its content words, at least two), and it was not in
 * the prompt. Restating it while it was in the prompt is fine.
 */
export function restatedMemory(
  turn: TurnIn,
  memories: readonly MemoryAt[],
  place: (memoryId: string) => PromptPlace,
  suppressed: (kind: IncidentKind, memoryId: string) => boolean,
): Finding[] {
  if (isQuestion(turn.query) || correctionPhrase(turn.query)) return [];
  const q = contentWords(turn.query);
  const out: Finding[] = [];
  for (const m of memories) {
    if (!usable(m, turn, suppressed, "restated_memory") || m.words.size < 2) continue;
    const shared = overlap(m.words, q);
    if (shared.length < 2 || shared.length / m.words.size < 0.6) continue;
    const p = place(m.id);
    if (p.in) continue;
    out.push({
      kind: "restated_memory",
      severity: "medium",
      subject: m.id,
      messageId: turn.id,
      memoryIds: [m.id],
      summary: `The user repeated "${quote(m.content, 80)}", a memory since ${iso(m.createdAt).slice(0, 10)}, because ${placePhrase(p)}.`,
      evidence: { memory: { id: m.id, content: m.content, created_at: iso(m.createdAt) }, query: quote(turn.query, 500), shared_words: shared, ...placeWords(p) },
      turnAt: turn.at,
    });
  }
  return out;
}

/**
 * stale_memory: at `turn` a memory was in the prompt, and the user corrects it in that turn
 * or one of the next two of the thread (`following`): the correcting message has a
 * correction phrase ("no,", "actually", "I moved", "not anymore"...), shares a content word or
 * a topic (home, diet, work, family, pets, contact, name) with the memory, and says something
 * the memory does not (a word it lacks). One finding per (memory, correcting turn): the latest
 * turn before the correction whose prompt held the memory.
 */
export function staleMemory(
  turns: readonly TurnIn[],
  memoriesAt: (turn: TurnIn) => readonly MemoryAt[],
  place: (turn: TurnIn, memoryId: string) => PromptPlace,
  suppressed: (kind: IncidentKind, memoryId: string) => boolean,
  correcting: TurnIn,
): Finding[] {
  const phrase = correctionPhrase(correcting.query);
  if (!phrase) return [];
  const cWords = contentWords(correcting.query);
  const cTopics = topicsOf(correcting.query);
  const out: Finding[] = [];
  const seen = new Set<string>();
  // turns: up to two turns before the correction in its thread and the correcting turn, oldest
  // first. The correction is about the answers before it: the newest earlier turn is tried first,
  // the correcting turn itself last.
  const order = [...turns.filter((t) => t.id !== correcting.id).reverse(), ...turns.filter((t) => t.id === correcting.id)];
  for (const t of order) {
    for (const m of memoriesAt(t)) {
      if (seen.has(m.id) || suppressed("stale_memory", m.id) || m.createdAt >= t.at) continue;
      const shared = overlap(m.words, cWords);
      const topics = [...topicsOf(m.content)].filter((x) => cTopics.has(x));
      if (!shared.length && !topics.length) continue;
      const news = [...cWords].filter((w) => !m.words.has(w));
      if (!news.length) continue;
      const p = place(t, m.id);
      if (!p.in) continue;
      seen.add(m.id);
      out.push({
        kind: "stale_memory",
        severity: "high",
        subject: m.id,
        messageId: t.id,
        memoryIds: [m.id],
        summary: `"${quote(m.content, 80)}" was in the prompt and the user corrected it${t.id === correcting.id ? " in the same turn" : " a turn later"}: "${quote(correcting.query, 100)}".`,
        evidence: {
          memory: { id: m.id, content: m.content, created_at: iso(m.createdAt) },
          ...placeWords(p),
          correcting_message_id: correcting.id,
          correcting_query: quote(correcting.query, 500),
          correction_phrase: phrase,
          shared_words: shared,
          shared_topics: topics,
          new_words: news.slice(0, 10),
        },
        turnAt: t.at,
      });
    }
  }
  return out;
}

/** An earlier turn of the thread and whether the history window kept it at the turn. */
export type HistoryTurn = { id: string; query: string; at: number; kept: boolean };
export type WindowInfo = { source: "captured" | "replayed"; strategy: string | null; detail: string | null };

/**
 * dropped_reference: the user refers back ("as I said", "the hotel I mentioned", "remember
 * the..."), and the earlier user message sharing the most content words with the rest of the
 * message (at least one) was dropped by the history window, while no kept turn has those words.
 * Severity high when the answer says it does not have or know the thing.
 */
export function droppedReference(turn: TurnIn, history: readonly HistoryTurn[], window: WindowInfo): Finding[] {
  const phrase = backReferencePhrase(turn.query);
  if (!phrase || !history.some((h) => !h.kept)) return [];
  // The words of the message name what is referred to ("the hotel I mentioned": hotel).
  const ref = contentWords(turn.query);
  if (!ref.size) return [];
  let best: { h: HistoryTurn; shared: string[] } | null = null;
  for (const h of history) {
    // A message that itself refers back is not where the thing was said.
    if (backReferencePhrase(h.query)) continue;
    const shared = overlap(ref, contentWords(h.query));
    if (shared.length && (!best || shared.length > best.shared.length || (shared.length === best.shared.length && h.at > best.h.at))) best = { h, shared };
  }
  if (!best || best.h.kept) return [];
  const keptWords = history.filter((h) => h.kept).map((h) => contentWords(h.query));
  if (keptWords.some((k) => best!.shared.every((w) => k.has(w)))) return [];
  const absence = absencePhrase(turn.answer);
  const dropped = history.filter((h) => !h.kept).length;
  return [
    {
      kind: "dropped_reference",
      severity: absence ? "high" : "medium",
      subject: best.h.id,
      messageId: turn.id,
      memoryIds: [],
      summary: `The user referred back ("${quote(phrase, 40)}") to "${quote(best.h.query, 80)}" of ${iso(best.h.at).slice(0, 16).replace("T", " ")}, which the history window had dropped (${dropped} of ${history.length} earlier turns out).`,
      evidence: {
        reference_phrase: phrase,
        referenced_message_id: best.h.id,
        referenced_query: quote(best.h.query, 500),
        referenced_at: iso(best.h.at),
        shared_words: best.shared,
        history_turns: history.length,
        dropped_turns: dropped,
        window_source: window.source,
        strategy: window.strategy,
        strategy_detail: window.detail,
        absence_phrase: absence,
      },
      turnAt: turn.at,
    },
  ];
}

export type PromptSize = { source: "captured" | "replayed"; tokens: number; model: string; context_window: number; reserved_output_tokens: number; counted: string };

/** over_context_window: the prompt sent took more tokens than the model's window less the reserved output. */
export function overContextWindow(turn: TurnIn, size: PromptSize | null): Finding[] {
  if (!size) return [];
  const limit = size.context_window - size.reserved_output_tokens;
  if (size.tokens <= limit) return [];
  return [
    {
      kind: "over_context_window",
      severity: "high",
      subject: "turn",
      messageId: turn.id,
      memoryIds: [],
      summary: `The prompt took ${size.tokens} tokens; ${size.model} holds ${size.context_window} less ${size.reserved_output_tokens} reserved for the answer (${limit}).`,
      evidence: { ...size, limit, over_by: size.tokens - limit },
      turnAt: turn.at,
    },
  ];
}
