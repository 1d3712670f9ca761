// An agent loop on Memscope: read the token-buffer history of a conversation, ask a chat
// model (any OpenAI-compatible endpoint), append the turn, and read it back next time.
//
//   MEMSCOPE_URL=http://localhost:3000 MEMSCOPE_API_KEY=... \
//   CHAT_BASE_URL=https://api.openai.com/v1 CHAT_API_KEY=... CHAT_MODEL=gpt-4o-mini \
//   npx tsx sdk/typescript/examples/agent-loop.ts "What did I say about flights?"
import { createMemscope, must } from "../src/index.js";

const memscope = createMemscope({ baseUrl: process.env.MEMSCOPE_URL ?? "http://localhost:3000", apiKey: process.env.MEMSCOPE_API_KEY });
const model = process.env.CHAT_MODEL ?? "gpt-4o-mini";

async function chat(messages: { role: string; content: unknown }[]): Promise<string> {
  const base = process.env.CHAT_BASE_URL;
  if (!base) return `(no CHAT_BASE_URL set: this is where ${model} would answer ${messages.length} messages)`;
  const res = await fetch(`${base.replace(/\/+$/, "")}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${process.env.CHAT_API_KEY ?? ""}` },
    body: JSON.stringify({ model, messages }),
  });
  if (!res.ok) throw new Error(`chat model answered ${res.status}`);
  const j = (await res.json()) as { choices: { message: { content: string } }[] };
  return j.choices[0].message.content;
}

export async function agentTurn(conversationId: string, query: string): Promise<string> {
  // What the agent remembers of this conversation, under a 2 000-token budget (Dify's rule).
  const history = await must(
    memscope.GET("/conversations/{id}/history", { params: { path: { id: conversationId }, query: { max_token_limit: 2000, model } } }),
  );
  const answer = await chat([...(history.messages ?? []), { role: "user", content: query }]);
  await must(
    memscope.POST("/conversations/{id}/messages", {
      params: { path: { id: conversationId } },
      body: { query, answer, parent_message_id: history.thread_message_ids[0] ?? null },
    }),
  );
  return answer;
}

async function main() {
  const query = process.argv[2] ?? "Hello!";
  const conversation = await must(memscope.POST("/conversations", { body: { app_id: "example-agent", end_user_id: "me", name: "Agent loop example" } }));
  console.log(await agentTurn(conversation.id, query));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
