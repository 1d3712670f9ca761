// OpenAI-compatible /v1/embeddings (OpenAI, Ollama, vLLM, TEI). Batches the inputs and
// checks what comes back, so a misconfigured endpoint fails loudly, not with bad vectors.

import { ProviderError } from "../errors/domain-errors";

export { ProviderError };

export type OpenAiEmbeddingConfig = { baseUrl: string; apiKey?: string; model: string; dimensions: number };

const BATCH = 64;

export function v1Url(baseUrl: string, path: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return base.endsWith("/v1") ? `${base}${path}` : `${base}/v1${path}`;
}

export async function embedOpenAiCompatible(cfg: OpenAiEmbeddingConfig, texts: string[]): Promise<number[][]> {
  const out: number[][] = [];
  for (let i = 0; i < texts.length; i += BATCH) {
    const input = texts.slice(i, i + BATCH);
    let res: Response;
    try {
      res = await fetch(v1Url(cfg.baseUrl, "/embeddings"), {
        method: "POST",
        headers: { "content-type": "application/json", ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}) },
        body: JSON.stringify({ model: cfg.model, input, dimensions: cfg.dimensions }),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (e) {
      throw new ProviderError(`Embedding endpoint unreachable: ${(e as Error).message}`);
    }
    if (!res.ok) {
      throw new ProviderError(`Embedding endpoint answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    }
    const body = (await res.json()) as { data?: { index?: number; embedding?: number[] }[] };
    const data = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    if (data.length !== input.length) throw new ProviderError(`Embedding endpoint returned ${data.length} vectors for ${input.length} inputs`);
    for (const d of data) {
      if (!Array.isArray(d.embedding) || d.embedding.length !== cfg.dimensions) {
        throw new ProviderError(`Embedding endpoint returned ${d.embedding?.length ?? 0} dimensions, expected ${cfg.dimensions}`);
      }
      out.push(d.embedding);
    }
  }
  return out;
}
