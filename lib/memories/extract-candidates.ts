import "server-only";
import { requireConversationOfUser } from "../conversations/require-conversation-of-user";
import type { ProjectSql } from "../db/project-sql";
import { chatComplete, configuredChat, parseJsonAnswer, type ChatConfig } from "../chat/chat-provider";
import { loadThreadIds } from "../threads/load-thread";
import { answerList } from "./compress-memories";
import { ZCandidate, type ExtractInput, type ExtractResult } from "./curation-schemas";
import { extractByRules, type RuleCandidate } from "./curation-rules";
import { contentKey } from "./normalize-content";
import { queueExtracted } from "./review-queue";

// The design doc's extract_from_conversation, with one change: nothing is saved. The
// candidates land in the review queue (kind "extracted", source_session_id = the
// conversation) and become memories only when approved there.
//
// With a chat model: the design's prompt (translated) over the thread's turns. Without
// one: a small rule-based extractor over the user's messages (curation-rules.ts).

const MAX_TRANSCRIPT_CHARS = 24_000;
const MAX_ANSWER_CHARS = 1_500;

export type Turn = { id: string; query: string; answer: string };

export function transcript(turns: Turn[]): string {
  const parts: string[] = [];
  let size = 0;
  // Newest turns matter most: fill from the end, then restore chronological order.
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i];
    const answer = t.answer.length > MAX_ANSWER_CHARS ? `${t.answer.slice(0, MAX_ANSWER_CHARS)}…` : t.answer;
    const piece = `User: ${t.query}${answer ? `\nAssistant: ${answer}` : ""}`;
    if (size + piece.length > MAX_TRANSCRIPT_CHARS && parts.length) break;
    parts.push(piece);
    size += piece.length + 2;
  }
  return parts.reverse().join("\n\n");
}

export function extractPrompt(conversation: string): string {
  return `Extract the user's long-term memories from the following conversation.

Conversation:
${conversation}

Extract these types of memory:
1. preference: the user's preferences (colors, styles, tools, ...)
2. fact: factual knowledge (company name, project information, ...)
3. pattern: behaviour patterns (usage habits, workflows, ...)
4. skill: skill patterns (successful tool-call sequences)

Answer JSON:
{"memories": [
  {
    "memory_type": "preference",
    "content": "Prefers ...",
    "structured_data": {},
    "importance_score": 0.8
  }
]}

Notes:
- Only extract information worth remembering long-term
- Do not extract temporary information (such as today's weather)
- Each memory must be independent, explicit and verifiable
- Answer {"memories": []} when there is nothing worth remembering`;
}

async function chatCandidates(chat: ChatConfig, turns: Turn[]): Promise<{ candidates: RuleCandidate[]; malformed: number }> {
  const raw = answerList(parseJsonAnswer(await chatComplete(chat, extractPrompt(transcript(turns)), { json: true })));
  const candidates: RuleCandidate[] = [];
  let malformed = 0;
  for (const r of raw) {
    const p = ZCandidate.safeParse(r);
    if (!p.success) {
      malformed++;
      continue;
    }
    candidates.push({
      memory_type: p.data.memory_type,
      content: p.data.content,
      structured_data: p.data.structured_data && Object.keys(p.data.structured_data).length ? p.data.structured_data : null,
      importance_score: p.data.importance_score ?? 0.5,
      source_message_id: null,
      evidence: null,
      rule: "chat",
    });
  }
  return { candidates, malformed };
}

export async function extractCandidates(sql: ProjectSql, userId: string, input: ExtractInput): Promise<ExtractResult> {
  // Another person's conversation must not become this user's memories.
  await requireConversationOfUser(sql, input.conversation_id, userId, { field: "conversation_id", missing: "not_found" });
  const ids = await loadThreadIds(sql, input.conversation_id, input.leaf_message_id);
  const rows = await sql.query<Turn>(`SELECT id, query, answer FROM messages WHERE id = ANY($1::uuid[]) AND project_id = $2`, [ids, sql.projectId]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const turns = [...ids].reverse().map((id) => byId.get(id)!).filter(Boolean);

  const chat = configuredChat();
  let method: ExtractResult["method"];
  let found: RuleCandidate[];
  let skipped = 0;
  if (chat) {
    method = "chat";
    if (turns.length) {
      const r = await chatCandidates(chat, turns);
      found = r.candidates;
      skipped += r.malformed;
    } else found = [];
  } else {
    method = "rules";
    found = turns.flatMap((t) => extractByRules(t.query).map((c) => ({ ...c, source_message_id: t.id })));
  }

  // Drop repeats: within this run, of candidates already waiting, and of active memories.
  const waiting = await sql.query<{ content: string }>(
    `SELECT candidate->>'content' AS content FROM memory_review_items WHERE user_id = $1 AND project_id = $2 AND kind = 'extracted' AND status = 'open'`,
    [userId, sql.projectId],
  );
  const keys = found.map((c) => contentKey(c.content));
  const existing = await sql.query<{ content_key: string }>(
    `SELECT DISTINCT content_key FROM memories WHERE user_id = $1 AND project_id = $3 AND status = 'active' AND content_key = ANY($2::text[])`,
    [userId, keys, sql.projectId],
  );
  const seen = new Set([...waiting.map((w) => contentKey(w.content ?? "")), ...existing.map((e) => e.content_key)]);
  const fresh: RuleCandidate[] = [];
  found.forEach((c, i) => {
    if (seen.has(keys[i])) {
      skipped++;
      return;
    }
    seen.add(keys[i]);
    fresh.push(c);
  });

  const data = await queueExtracted(
    sql,
    userId,
    input.conversation_id,
    fresh.map(({ rule, ...candidate }) => ({ candidate, reason: rule === "chat" ? "extracted by the chat model" : `extracted by rule: ${rule}` })),
  );
  return { data, method, turns: turns.length, skipped };
}
