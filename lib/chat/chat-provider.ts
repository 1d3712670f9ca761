import { ProviderError, v1Url } from "../embeddings/openai-embedder";

// Optional OpenAI-compatible chat model (/v1/chat/completions), used where the design
// asks a model to decide or summarize. Without one, every caller has a local rule.

export type ChatConfig = { baseUrl: string; apiKey?: string; model: string };

export function configuredChat(env: NodeJS.ProcessEnv = process.env): ChatConfig | null {
  const baseUrl = env.MEMSCOPE_CHAT_BASE_URL?.trim();
  const model = env.MEMSCOPE_CHAT_MODEL?.trim();
  if (!baseUrl || !model) return null;
  return { baseUrl, model, apiKey: env.MEMSCOPE_CHAT_API_KEY?.trim() || undefined };
}

export async function chatComplete(cfg: ChatConfig, prompt: string, opts: { json?: boolean; temperature?: number } = {}): Promise<string> {
  let res: Response;
  try {
    res = await fetch(v1Url(cfg.baseUrl, "/chat/completions"), {
      method: "POST",
      headers: { "content-type": "application/json", ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}) },
      body: JSON.stringify({
        model: cfg.model,
        temperature: opts.temperature ?? 0.3,
        messages: [{ role: "user", content: prompt }],
        ...(opts.json ? { response_format: { type: "json_object" } } : {}),
      }),
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

/** Parses a model's JSON answer, tolerating a ```json fence around it. */
export function parseJsonAnswer(text: string): unknown {
  const fenced = text.match(/```(?:json)?\s*([\s\S]*?)```/);
  const raw = (fenced ? fenced[1] : text).trim();
  try {
    return JSON.parse(raw);
  } catch {
    throw new ProviderError(`Chat model did not answer JSON: ${raw.slice(0, 200)}`);
  }
}
