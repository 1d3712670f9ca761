import "server-only";
import { z } from "zod";
import { chatComplete, parseJsonAnswer, type ChatConfig } from "../chat/chat-provider";
import { answerList } from "../memories/compress-memories";
import { ZCandidate } from "../memories/curation-schemas";
import type { BenchConversation, BenchMemory } from "./benchmark-formats";

// A benchmark session's memories as the configured chat model extracts them (import
// extraction "chat"). The model reads the session's turns, numbered, and answers each
// memory with the number of the turn it comes from: a memory's source turn is what makes
// it count as evidence for a case (metrics.ts), so it is asked for, never guessed.
// A memory naming no turn of the window, or malformed, is left out (counted in `dropped`).
// Long sessions go in several windows of at most WINDOW_CHARS.

const WINDOW_CHARS = 24_000;
const TURN_CHARS = 3_000;

const ZChatMemory = ZCandidate.extend({ turn: z.coerce.number().int().min(1) });

export function chatExtractionPrompt(numbered: string): string {
  return `Extract the user's long-term memories from the following conversation. Its turns are numbered [1], [2], ...

Conversation:
${numbered}

Extract these types of memory:
1. preference: the user's preferences (colors, styles, tools, ...)
2. fact: factual knowledge (people, places, events, dates, projects, ...)
3. pattern: behaviour patterns (usage habits, workflows, ...)
4. skill: skill patterns (successful tool-call sequences)

Answer JSON:
{"memories": [
  {"turn": 3, "memory_type": "fact", "content": "Moved to Lisbon in May 2023", "importance_score": 0.8}
]}

Notes:
- "turn" is the number of the turn the memory comes from
- Only extract information worth remembering long-term
- Each memory must be independent, explicit and verifiable
- Answer {"memories": []} when there is nothing worth remembering`;
}

function turnText(t: BenchConversation["turns"][number]): string {
  const clip = (s: string) => (s.length > TURN_CHARS ? `${s.slice(0, TURN_CHARS)}…` : s);
  // LoCoMo turns carry their speaker in the query ("Caroline: ..."), and no answer.
  if (!t.answer) return clip(t.query);
  return [t.query && `User: ${clip(t.query)}`, `Assistant: ${clip(t.answer)}`].filter(Boolean).join("\n");
}

/** Windows of consecutive turns (indexes into conv.turns), each under WINDOW_CHARS. */
function windows(conv: BenchConversation): number[][] {
  const out: number[][] = [];
  let cur: number[] = [];
  let size = 0;
  conv.turns.forEach((t, i) => {
    const n = turnText(t).length + 8;
    if (cur.length && size + n > WINDOW_CHARS) {
      out.push(cur);
      cur = [];
      size = 0;
    }
    cur.push(i);
    size += n;
  });
  if (cur.length) out.push(cur);
  return out;
}

export async function chatMemories(chat: ChatConfig, conv: BenchConversation): Promise<{ memories: BenchMemory[]; dropped: number }> {
  const memories: BenchMemory[] = [];
  let dropped = 0;
  for (const [w, idx] of windows(conv).entries()) {
    const numbered = idx.map((i, n) => `[${n + 1}] ${turnText(conv.turns[i])}`).join("\n\n");
    const answer = answerList(parseJsonAnswer(await chatComplete(chat, chatExtractionPrompt(numbered), { json: true, temperature: 0 })));
    answer.forEach((raw, n) => {
      const p = ZChatMemory.safeParse(raw);
      const at = p.success ? idx[p.data.turn - 1] : undefined;
      if (!p.success || at === undefined) {
        dropped++;
        return;
      }
      const turn = conv.turns[at];
      memories.push({
        externalId: `${conv.externalId}/chat/${w}/${n}`,
        content: p.data.content,
        memory_type: p.data.memory_type,
        importance: p.data.importance_score ?? 0.5,
        conversationId: conv.id,
        messageId: turn.id,
        created_at: turn.created_at,
      });
    });
  }
  return { memories, dropped };
}
