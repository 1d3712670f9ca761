import "server-only";
import { createHash } from "node:crypto";
import { v1Url } from "../../embeddings/openai-embedder";
import { ProviderError } from "../../errors/domain-errors";
import type { ChatConfig } from "../../chat/chat-provider";
import type { RoleMessage } from "../schemas";
import type { Summarizer } from "./state";
import { processSummaryCache, type SummaryCache } from "./summary-cache";

// The chat model as AutoContextMemory's summarizer: the prompt goes as native chat
// messages. Summaries are cached per (conversation, model call, hash of what is sent),
// so replaying a stored conversation again (a page reload, a restart) costs no model call.

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

// Offload uuids are new on every run, and earlier summaries carry their tags into later
// prompts: the key leaves the tags' uuids out (other text is kept as sent), or a replay
// run again would miss after its first offload.
const OFFLOAD_UUID = /CONTEXT_OFFLOAD: uuid=[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

export type ModelSummarizer = { summarize: Summarizer; counts: { calls: number; cached: number }; setCall: (call: number) => void };

/**
 * conversationId: the stored conversation replayed (null for a pasted history); the
 * cache is the database's for the caller's project, or this process's.
 */
export function modelSummarizer(cfg: ChatConfig, conversationId: string | null, cache: SummaryCache = processSummaryCache): ModelSummarizer {
  const counts = { calls: 0, cached: 0 };
  let step = 0;
  const summarize: Summarizer = async (req) => {
    const hash = createHash("sha256").update(JSON.stringify([cfg.baseUrl, cfg.model, req.event, req.prompt]).replace(OFFLOAD_UUID, "CONTEXT_OFFLOAD: uuid=*")).digest("hex");
    const key = { conversationId, step, hash };
    const hit = await cache.get(key);
    if (hit !== undefined) {
      counts.cached++;
      return hit;
    }
    counts.calls++;
    const text = await complete(cfg, req.prompt);
    await cache.put(key, text, cfg.model);
    return text;
  };
  return { summarize, counts, setCall: (n) => (step = n) };
}
