import "server-only";
import { createHash } from "node:crypto";
import { v1Url } from "../../embeddings/openai-embedder";
import { ProviderError } from "../../errors/domain-errors";
import type { ChatConfig } from "../../chat/chat-provider";
import type { RoleMessage } from "../schemas";
import type { Summarizer } from "./state";

// The chat model as AutoContextMemory's summarizer: the prompt goes as native chat
// messages. Summaries are cached in process per (scope, call, prompt), so replaying a
// stored conversation again (a page reload) costs no model call.

const CACHE_LIMIT = 5000;
const cache = new Map<string, string>();

/** A tool result whose call is not in the prompt cannot go as a tool message; it goes as text. */
function sendable(prompt: RoleMessage[]): unknown[] {
  const calls = new Set(prompt.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []));
  return prompt.map((m) => {
    if (m.role === "tool" && !calls.has(m.tool_call_id ?? "")) return { role: "user", content: `Tool result:\n${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}` };
    if (m.tool_calls?.length)
      return { role: "assistant", content: m.content || null, tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })) };
    return m;
  });
}

async function complete(cfg: ChatConfig, prompt: RoleMessage[]): Promise<string> {
  let res: Response;
  try {
    res = await fetch(v1Url(cfg.baseUrl, "/chat/completions"), {
      method: "POST",
      headers: { "content-type": "application/json", ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}) },
      body: JSON.stringify({ model: cfg.model, messages: sendable(prompt) }),
      signal: AbortSignal.timeout(120_000),
    });
  } catch (e) {
    throw new ProviderError(`Chat endpoint unreachable: ${(e as Error).message}`);
  }
  if (!res.ok) throw new ProviderError(`Chat endpoint answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const body = (await res.json()) as { choices?: { message?: { content?: string } }[] };
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== "string") throw new ProviderError("Chat endpoint returned no message content");
  return content;
}

export type ModelSummarizer = { summarize: Summarizer; counts: { calls: number; cached: number }; setCall: (call: number) => void };

/** scope: what the cache is per (a conversation and leaf for a replay, null for an inline preview). */
export function modelSummarizer(cfg: ChatConfig, scope: string | null): ModelSummarizer {
  const counts = { calls: 0, cached: 0 };
  let call = 0;
  const summarize: Summarizer = async (req) => {
    const key = createHash("sha256")
      .update(JSON.stringify([cfg.baseUrl, cfg.model, scope, scope ? call : null, req.prompt]))
      .digest("hex");
    const hit = cache.get(key);
    if (hit !== undefined) {
      counts.cached++;
      return hit;
    }
    counts.calls++;
    const text = await complete(cfg, req.prompt);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(key, text);
    return text;
  };
  return { summarize, counts, setCall: (n) => (call = n) };
}
