import { stableUuid } from "../imports/stable-id";
import { extractByRules } from "../memories/curation-rules";
import type { MemoryType } from "../memories/schemas";
import { LOCOMO_EVIDENCE_TAG } from "./protocols";
import type { EvalCaseInput } from "./schemas";

// One record of a published memory benchmark as Memscope's own shapes: conversations with
// their turns, memories with their source turn, and the question as an eval case whose
// evidence is the turns the file marks. Pure: import-benchmark.ts writes what this answers.
//
// LongMemEval (github.com/xiaowu0162/LongMemEval, README "Dataset Format"): a JSON array of
// questions, each {question_id, question_type, question, answer, question_date,
// haystack_session_ids, haystack_dates, haystack_sessions, answer_session_ids}; a session is
// a list of {role: user|assistant, content, has_answer?}. Every question has a history of
// its own, so each becomes an end user (prefix:question_id). User and assistant turns pair
// into one Memscope turn (query, answer); a turn is evidence when either half has
// has_answer: true; a question without marked turns but with answer_session_ids takes those
// sessions' turns (session-level evidence); an abstention question (_abs) may have none.
//
// LoCoMo (github.com/snap-research/locomo, data/locomo10.json): a JSON array of samples
// {sample_id, conversation: {speaker_a, speaker_b, session_N: [{speaker, dia_id, text,
// img_url?, blip_caption?}], session_N_date_time}, qa: [{question, answer |
// adversarial_answer, evidence: ["D1:3"], category}]}. Each sample is one end user
// (prefix:sample_id) whose agent remembers both speakers; each dia turn is one Memscope turn.

export type BenchTurn = { id: string; query: string; answer: string; created_at: string; evidenceKey: string };
export type BenchConversation = { externalId: string; id: string; name: string; created_at: string; turns: BenchTurn[] };
/** half: the half of a LongMemEval turn (question or answer) the memory was made from; absent where the turn is one text (LoCoMo) or not known (chat extraction). */
export type BenchMemory = { externalId: string; content: string; memory_type: MemoryType; importance: number; conversationId: string; messageId: string; created_at: string; half?: "user" | "assistant" };
/**
 * A reference of the file that names nothing (an answer session not in the haystack, an
 * evidence id no turn has), or a question left with no evidence: reported per question in the
 * import's answer, never silently dropped. `unscorable`: the question has no evidence left, so
 * no run can score it (its case carries the tag "unscorable").
 */
export type BenchDefect = { record: string; external_id: string | null; field: string; message: string; unscorable: boolean };
export type BenchRecord = { userId: string; conversations: BenchConversation[]; memories: BenchMemory[]; cases: EvalCaseInput[]; defects: BenchDefect[] };
export const UNSCORABLE_TAG = "unscorable";
/** How turns become memories; "chat" leaves them to the chat model (chat-extraction.ts), after parsing. */
export type Extraction = "turns" | "rules" | "chat";

export class RecordError extends Error {
  constructor(
    readonly record: string,
    readonly field: string,
    message: string,
  ) {
    super(`${record}: ${field}: ${message}`);
  }
}

const MAX_MEMORY_CHARS = 20_000;
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

function str(rec: Record<string, unknown>, key: string, record: string, field = key): string {
  const v = rec[key];
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  throw new RecordError(record, field, v === undefined ? "missing" : "not a string");
}

function arr(rec: Record<string, unknown>, key: string, record: string, field = key): unknown[] {
  const v = rec[key];
  if (!Array.isArray(v)) throw new RecordError(record, field, v === undefined ? "missing" : "not an array");
  return v;
}

/** "2023/05/20 (Sat) 02:21" (LongMemEval) as UTC; null when unreadable. */
export function longMemEvalDate(s: string): string | null {
  const m = /^(\d{4})\/(\d{2})\/(\d{2})(?:\s*\(\w+\))?(?:\s+(\d{1,2}):(\d{2}))?/.exec(s.trim());
  if (!m) return null;
  const t = Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] ?? 0), +(m[5] ?? 0));
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
/** "1:56 pm on 8 May, 2023" (LoCoMo) as UTC; null when unreadable. */
export function locomoDate(s: string): string | null {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(s.trim());
  if (!m) return null;
  const month = MONTHS.findIndex((x) => x.startsWith(m[5].toLowerCase().slice(0, 3)));
  if (month < 0) return null;
  const h = (+m[1] % 12) + (m[3].toLowerCase() === "pm" ? 12 : 0);
  return new Date(Date.UTC(+m[6], month, +m[4], h, +m[2])).toISOString();
}

const plusSeconds = (iso: string, n: number) => new Date(new Date(iso).getTime() + n * 1000).toISOString();
const clip = (s: string) => (s.length > MAX_MEMORY_CHARS ? s.slice(0, MAX_MEMORY_CHARS) : s);

/** Memories of one turn's text: the text itself, or what the rule-based extractor finds in it (none for "chat"). */
function memoriesOf(text: string, extraction: Extraction, speaker: string | null): { content: string; memory_type: MemoryType; importance: number }[] {
  const t = text.trim();
  if (!t || extraction === "chat") return [];
  if (extraction === "turns") return [{ content: clip(speaker ? `${speaker}: ${t}` : t), memory_type: "fact", importance: 0.5 }];
  return extractByRules(t).map((c) => ({ content: speaker ? `${speaker}: ${c.content}` : c.content, memory_type: c.memory_type, importance: c.importance_score }));
}

export function parseLongMemEval(raw: unknown, at: number, o: { projectId: string; prefix: string; extraction: Extraction }): BenchRecord {
  const record = `record ${at}`;
  if (!isObj(raw)) throw new RecordError(record, "(record)", "not an object");
  const qid = str(raw, "question_id", record);
  const rec = `record ${at} (question_id ${qid})`;
  const question = str(raw, "question", rec).trim();
  if (!question) throw new RecordError(rec, "question", "empty");
  const type = str(raw, "question_type", rec);
  const sids = arr(raw, "haystack_session_ids", rec);
  const dates = arr(raw, "haystack_dates", rec);
  const sessions = arr(raw, "haystack_sessions", rec);
  if (sids.length !== sessions.length) throw new RecordError(rec, "haystack_session_ids", `${sids.length} ids for ${sessions.length} sessions`);
  if (dates.length !== sessions.length) throw new RecordError(rec, "haystack_dates", `${dates.length} dates for ${sessions.length} sessions`);
  const answerSessions = new Set(raw.answer_session_ids === undefined ? [] : arr(raw, "answer_session_ids", rec).map(String));
  const userId = `${o.prefix}:${qid}`;
  const conversations: BenchConversation[] = [];
  const memories: BenchMemory[] = [];
  const marked: { conversation_id: string; message_id: string; labelled: "user" | "assistant" | "both" }[] = [];
  const bySession = new Map<string, { conversation_id: string; message_id: string }[]>();
  sessions.forEach((session, j) => {
    const field = `haystack_sessions[${j}]`;
    if (!Array.isArray(session)) throw new RecordError(rec, field, "not a list of turns");
    const sid = String(sids[j]);
    const date = typeof dates[j] === "string" ? longMemEvalDate(dates[j] as string) : null;
    if (!date) throw new RecordError(rec, `haystack_dates[${j}]`, `not a date like "2023/05/20 (Sat) 02:21"`);
    const key = `longmemeval:${o.projectId}:${qid}:${sid}:${j}`;
    const conv: BenchConversation = { externalId: `${qid}/${j}/${sid}`, id: stableUuid(key), name: sid, created_at: date, turns: [] };
    let cur: { turn: BenchTurn; evidence: boolean; texts: { role: string; content: string; has: boolean }[] } | null = null;
    const flush = () => {
      if (!cur) return;
      conv.turns.push(cur.turn);
      const ref = { conversation_id: conv.id, message_id: cur.turn.id };
      // Which half carries has_answer: LongMemEval's own scoring counts the user's only.
      const user = cur.texts.some((t) => t.role === "user" && t.has);
      const assistant = cur.texts.some((t) => t.role === "assistant" && t.has);
      if (cur.evidence) marked.push({ ...ref, labelled: user && assistant ? "both" : user ? "user" : "assistant" });
      bySession.set(sid, [...(bySession.get(sid) ?? []), ref]);
      for (const [k, t] of cur.texts.entries()) {
        for (const [n, m] of memoriesOf(t.content, o.extraction, null).entries()) {
          memories.push({ externalId: `${qid}/${j}/${cur.turn.id}/${k}/${n}`, ...m, conversationId: conv.id, messageId: cur.turn.id, created_at: cur.turn.created_at, half: t.role === "user" ? "user" : "assistant" });
        }
      }
      cur = null;
    };
    session.forEach((t, i) => {
      if (!isObj(t)) throw new RecordError(rec, `${field}[${i}]`, "not a turn object");
      const role = str(t, "role", rec, `${field}[${i}].role`);
      const content = str(t, "content", rec, `${field}[${i}].content`);
      if (role !== "user" && role !== "assistant") throw new RecordError(rec, `${field}[${i}].role`, `"${role}" is neither user nor assistant`);
      const has = t.has_answer === true;
      if (role === "user" || !cur || cur.turn.answer) {
        flush();
        const id = stableUuid(`${key}:${i}`);
        cur = { turn: { id, query: "", answer: "", created_at: plusSeconds(date, conv.turns.length), evidenceKey: `${sid}:${i}` }, evidence: false, texts: [] };
      }
      if (role === "user") cur!.turn.query = content;
      else cur!.turn.answer = content;
      cur!.evidence ||= has;
      cur!.texts.push({ role, content, has });
    });
    flush();
    conversations.push(conv);
  });
  const evidence = marked.length ? marked : [...answerSessions].flatMap((s) => bySession.get(s) ?? []);
  const externalId = `longmemeval:${qid}`;
  const abstention = qid.endsWith("_abs");
  // An abstention question may have no evidence (the answer is that there is none); any other
  // without evidence cannot be scored.
  const unscorable = !evidence.length && !abstention;
  const defects: BenchDefect[] = [];
  const inHaystack = new Set(sids.map(String));
  for (const s of answerSessions) {
    if (!inHaystack.has(s)) defects.push({ record: rec, external_id: externalId, field: "answer_session_ids", message: `session "${s}" is not in haystack_session_ids`, unscorable });
  }
  if (unscorable && !defects.length) defects.push({ record: rec, external_id: externalId, field: "haystack_sessions", message: "no turn has has_answer and answer_session_ids names no session of the haystack: nothing to score", unscorable });
  const c: EvalCaseInput = {
    user_id: userId,
    question,
    expected: { memory_ids: [], texts: [], turns: evidence.slice(0, 100) },
    category: type,
    tags: [...(abstention ? ["longmemeval", "abstention"] : ["longmemeval"]), ...(unscorable ? [UNSCORABLE_TAG] : [])],
    external_id: externalId,
  };
  return { userId, conversations, memories, cases: [c], defects };
}

const LOCOMO_CATEGORIES: Record<string, string> = { "1": "multi_hop", "2": "temporal", "3": "open_domain", "4": "single_hop", "5": "adversarial" };

export function parseLoCoMo(raw: unknown, at: number, o: { projectId: string; prefix: string; extraction: Extraction }): BenchRecord {
  const record = `record ${at}`;
  if (!isObj(raw)) throw new RecordError(record, "(record)", "not an object");
  const sample = raw.sample_id === undefined ? String(at) : str(raw, "sample_id", record);
  const rec = `record ${at} (sample_id ${sample})`;
  const conv = raw.conversation;
  if (!isObj(conv)) throw new RecordError(rec, "conversation", conv === undefined ? "missing" : "not an object");
  const userId = `${o.prefix}:${sample}`;
  const sessionKeys = Object.keys(conv)
    .filter((k) => /^session_\d+$/.test(k))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
  if (!sessionKeys.length) throw new RecordError(rec, "conversation", "no session_N lists");
  const conversations: BenchConversation[] = [];
  const memories: BenchMemory[] = [];
  const byDia = new Map<string, { conversation_id: string; message_id: string }>();
  for (const sk of sessionKeys) {
    const turns = conv[sk];
    if (!Array.isArray(turns)) throw new RecordError(rec, `conversation.${sk}`, "not a list of turns");
    const rawDate = conv[`${sk}_date_time`];
    const date = typeof rawDate === "string" ? locomoDate(rawDate) : null;
    if (!date) throw new RecordError(rec, `conversation.${sk}_date_time`, rawDate === undefined ? "missing" : `not a date like "1:56 pm on 8 May, 2023"`);
    const key = `locomo:${o.projectId}:${sample}:${sk}`;
    const c: BenchConversation = { externalId: `${sample}/${sk}`, id: stableUuid(key), name: `${sample} ${sk.replace("_", " ")}`, created_at: date, turns: [] };
    turns.forEach((t, i) => {
      const field = `conversation.${sk}[${i}]`;
      if (!isObj(t)) throw new RecordError(rec, field, "not a turn object");
      const speaker = str(t, "speaker", rec, `${field}.speaker`);
      const dia = str(t, "dia_id", rec, `${field}.dia_id`);
      const text = str(t, "text", rec, `${field}.text`);
      const caption = typeof t.blip_caption === "string" && t.blip_caption ? ` [shares ${t.blip_caption}]` : "";
      const id = stableUuid(`${key}:${dia}`);
      if (byDia.has(dia)) throw new RecordError(rec, `${field}.dia_id`, `"${dia}" appears twice`);
      const turn: BenchTurn = { id, query: `${speaker}: ${text}${caption}`, answer: "", created_at: plusSeconds(date, i), evidenceKey: dia };
      c.turns.push(turn);
      byDia.set(dia, { conversation_id: c.id, message_id: id });
      for (const [n, m] of memoriesOf(`${text}${caption}`, o.extraction, speaker).entries()) {
        memories.push({ externalId: `${sample}/${dia}/${n}`, ...m, conversationId: c.id, messageId: id, created_at: turn.created_at });
      }
    });
    conversations.push(c);
  }
  const qa = raw.qa === undefined ? [] : arr(raw, "qa", rec);
  const defects: BenchDefect[] = [];
  const cases: EvalCaseInput[] = qa.map((q, i) => {
    const field = `qa[${i}]`;
    if (!isObj(q)) throw new RecordError(rec, field, "not an object");
    const question = str(q, "question", rec, `${field}.question`).trim();
    if (!question) throw new RecordError(rec, `${field}.question`, "empty");
    const ev = q.evidence === undefined ? [] : arr(q, "evidence", rec, `${field}.evidence`);
    // Published entries sometimes hold two ids in one string ("D8:6; D9:17"); ids the
    // conversation does not have are left out (the file's own slips), never guessed, and
    // reported as defects of the question.
    const ids = [...new Set(ev.flatMap((e) => String(e).split(/[;,\s]+/)).filter(Boolean))];
    const turns = ids.map((d) => byDia.get(d)).filter((x): x is { conversation_id: string; message_id: string } => !!x);
    const cat = q.category === undefined ? null : String(q.category);
    const externalId = `locomo:${sample}:${i}`;
    const unscorable = !turns.length;
    const missing = ids.filter((d) => !byDia.has(d));
    for (const d of missing) defects.push({ record: rec, external_id: externalId, field: `qa[${i}].evidence`, message: `"${d}" names no turn of this conversation`, unscorable });
    if (unscorable && !missing.length) defects.push({ record: rec, external_id: externalId, field: `qa[${i}].evidence`, message: "no evidence ids: nothing to score", unscorable });
    return {
      user_id: userId,
      question,
      expected: { memory_ids: [], texts: [], turns: turns.slice(0, 100) },
      category: cat === null ? null : (LOCOMO_CATEGORIES[cat] ?? `category_${cat}`),
      // The number of evidence ids the file gave, valid or not: the locomo protocol divides by it (protocols.ts).
      tags: ["locomo", ...(cat ? [`locomo-category-${cat}`] : []), `${LOCOMO_EVIDENCE_TAG}${ids.length}`, ...(unscorable ? [UNSCORABLE_TAG] : [])],
      external_id: externalId,
    };
  });
  return { userId, conversations, memories, cases, defects };
}
