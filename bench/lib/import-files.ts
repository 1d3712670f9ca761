import { randomUUID } from "node:crypto";

// Import files of the documented formats, generated for the import benchmarks
// (bench/import-sources.ts, bench/diag/import-profile.ts).

export type TextGen = () => { query: string; answer: string };

/**
 * A Dify Service API JSON file of `total` turns in conversations of `perConversation`,
 * one turn in ten a regenerated sibling (a branch), feedback on some.
 */
export function difyFile(gen: TextGen, total: number, perConversation = 100): { text: string; turns: number; conversations: number } {
  const conversations: unknown[] = [];
  let turns = 0;
  const t0 = 1_767_225_600; // 2026-01-01, unix seconds
  for (let c = 0; turns < total; c++) {
    const messages: Record<string, unknown>[] = [];
    let parent: string | null = null;
    let prevParent: string | null = null;
    const n = Math.min(perConversation, total - turns);
    for (let i = 0; i < n; i++) {
      const t = gen();
      const id = randomUUID();
      // One turn in ten regenerates the previous answer: a sibling under the same parent.
      const regenerate = i > 0 && i % 10 === 0;
      const p: string | null = regenerate ? prevParent : parent;
      messages.push({
        id,
        conversation_id: null,
        parent_message_id: p,
        inputs: {},
        query: t.query,
        answer: t.answer,
        message_files: [],
        feedback: i % 17 === 0 ? { rating: "like" } : null,
        retriever_resources: [],
        agent_thoughts: [],
        created_at: t0 + c * 3600 + i * 20,
        status: "normal",
        error: null,
      });
      prevParent = p;
      parent = id;
    }
    const id = randomUUID();
    for (const m of messages) m.conversation_id = id;
    conversations.push({ id, name: `bench ${c}`, inputs: {}, status: "normal", introduction: "", created_at: t0 + c * 3600, updated_at: t0 + c * 3600 + n * 20, messages: messages.reverse() });
    turns += n;
  }
  return { text: JSON.stringify({ conversations }), turns, conversations: conversations.length };
}

/** An OpenAI chat JSONL file: a system message and 4 turns a line. */
export function openaiFile(gen: TextGen, turns: number): string {
  const lines: string[] = [];
  for (let i = 0; i < turns / 4; i++) {
    const messages: unknown[] = [{ role: "system", content: "You are a helpful assistant." }];
    for (let k = 0; k < 4; k++) {
      const t = gen();
      messages.push({ role: "user", content: t.query }, { role: "assistant", content: t.answer });
    }
    lines.push(JSON.stringify({ messages }));
  }
  return lines.join("\n");
}

/** A Mem0 `get_all` export (`{"results": [...]}`) of `n` memories over 50 users, with categories. */
export function mem0File(gen: TextGen, n: number): string {
  const categories = [["user_preferences"], ["professional_details"], ["travel", "user_preferences"], ["misc"]];
  const results = Array.from({ length: n }, (_, i) => {
    const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
    return {
      id: randomUUID(),
      memory: gen().answer.split(/(?<=\.)\s/)[0],
      user_id: `user-${i % 50}`,
      agent_id: null,
      hash: randomUUID().replace(/-/g, ""),
      metadata: null,
      categories: categories[i % categories.length],
      created_at: at,
      updated_at: at,
    };
  });
  return JSON.stringify({ results });
}
