import { expect } from "vitest";
import { demoConversations, type DemoConversation } from "@/lib/demo/demo-data";
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
 * The demo memories are not written here: the seed back-dates them and logs their retrievals
 * below the API, which a client cannot do.
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
