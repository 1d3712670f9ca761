import { expect } from "vitest";
import { demoConversations, type DemoConversation } from "@/lib/demo/demo-data";
import { DEMO_MEMORIES } from "@/lib/demo/demo-memories";
import { toolAgentDemo } from "@/lib/demo/demo-tool-agent";
import type { apiClient } from "./api-client";

/**
 * The demo conversations (lib/demo/demo-data.ts and demo-tool-agent.ts, the ones a seeded server
 * writes at start) written into a browser file's own project through the public API: each one
 * created with its id, then its turns in one batch, oldest first (POST .../messages/batch, the
 * same insertTurns the seed calls, with the same ids, parents, dates and tool calls). Ids are
 * unique within a project only, so every file's project holds the demo under the demo's ids.
 * For a file on the shared server (browser-shared.ts) that reads demo conversations, instead
 * of a server of its own started on a seeded data folder. `ids`: only these (default: all).
 * The demo memories are written by writeDemoConversationMemories (only those a conversation's
 * page shows); the others stay with a seeded server: the seed back-dates them and logs their
 * retrievals below the API, which a client cannot do.
 */
export async function writeDemoConversations(api: ReturnType<typeof apiClient>, ids?: readonly string[], now = Date.now()): Promise<void> {
  const all: DemoConversation[] = [...demoConversations(now), toolAgentDemo(now)];
  const chosen = ids ? all.filter((d) => ids.includes(d.conversation.id!)) : all;
  if (ids) expect(chosen.map((d) => d.conversation.id).sort(), "demo conversation ids").toEqual([...ids].sort());
  await Promise.all(
    chosen.map(async (d) => {
      const made = await api.post("/conversations", d.conversation);
      expect(made.status, `creating demo conversation ${d.conversation.id}: ${JSON.stringify(made.body)}`).toBe(201);
      const batch = await api.post(`/conversations/${d.conversation.id}/messages/batch`, { messages: d.turns, return: "minimal" });
      expect(batch.status, `demo turns of ${d.conversation.id}: ${JSON.stringify(batch.body).slice(0, 300)}`).toBe(201);
    }),
  );
}

/**
 * What a demo conversation's Memories tab shows, through the public API: the demo memories that
 * name a demo conversation as their source (saved with source_session_id), and their logged
 * retrievals as searches made for that conversation (as many as the seed logs, with the query it
 * logs them with). The rows are the same kinds a seeded server shows (extracted memories with
 * their type, retrievals with their hits and scores); their dates are today's, not back-dated.
 * Write the conversations first (writeDemoConversations).
 */
export async function writeDemoConversationMemories(api: ReturnType<typeof apiClient>): Promise<void> {
  const learned = DEMO_MEMORIES.filter((m) => m.session);
  for (const m of learned) {
    const r = await api.post(`/users/${encodeURIComponent(m.user)}/memories`, {
      memory_type: m.type,
      content: m.content,
      structured_data: m.structured ?? null,
      importance_score: m.importance,
      source_session_id: m.session,
      actor: "system",
    });
    expect(r.status, `demo memory "${m.content}": ${JSON.stringify(r.body)}`).toBe(201);
  }
  for (const m of learned) {
    for (let k = 0; k < (m.accessCount ?? 0); k++) {
      const r = await api.post(`/users/${encodeURIComponent(m.user)}/memories/search`, { query: m.query ?? m.content, k: 5, conversation_id: m.session });
      expect(r.status, `demo retrieval for "${m.content}": ${JSON.stringify(r.body)}`).toBe(200);
    }
  }
}

/**
 * A demo user's memories (lib/demo/demo-memories.ts) through the public API, for a page that
 * retrieves them (the inspector's memories section): each saved with its type, content,
 * structured data, importance and source conversation. Unlike the seed's, they are dated today,
 * have no logged retrievals, and the demo's near duplicate may be merged into its original by
 * the write's own dedupe (200) instead of queued for review: for files that assert what a
 * retrieval includes, not the memories pages' ages, counts or review queue.
 */
export async function writeDemoUserMemories(api: ReturnType<typeof apiClient>, user: string): Promise<void> {
  for (const m of DEMO_MEMORIES.filter((d) => d.user === user)) {
    const r = await api.post(`/users/${encodeURIComponent(m.user)}/memories`, {
      memory_type: m.type,
      content: m.content,
      structured_data: m.structured ?? null,
      importance_score: m.importance,
      source_session_id: m.session ?? null,
      actor: "system",
    });
    expect([200, 201], `demo memory "${m.content}": ${JSON.stringify(r.body)}`).toContain(r.status);
  }
}
