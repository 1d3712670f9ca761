import pgvector from "pgvector";
import { embedLexical, LEXICAL_DIMENSIONS, LEXICAL_MODEL } from "./lexical-embedder";
import { embedOpenAiCompatible } from "./openai-embedder";
import { ConfigurationError } from "../errors/domain-errors";

export type EmbeddingKind = "lexical" | "openai-compatible";

export type EmbeddingProvider = {
  kind: EmbeddingKind;
  /** Stored with every vector; retrieval never compares vectors of different models. */
  model: string;
  dimensions: number;
  embed(texts: string[]): Promise<number[][]>;
};

export const lexicalProvider: EmbeddingProvider = {
  kind: "lexical",
  model: LEXICAL_MODEL,
  dimensions: LEXICAL_DIMENSIONS,
  async embed(texts) {
    return texts.map((t) => embedLexical(t));
  },
};

/**
 * The embedder configured by env: an OpenAI-compatible endpoint (OpenAI, Ollama,
 * vLLM, TEI) when MEMSCOPE_EMBEDDINGS_BASE_URL and _MODEL are set, else the local
 * lexical embedder.
 */
export function configuredEmbeddingProvider(env: NodeJS.ProcessEnv = process.env): EmbeddingProvider {
  const baseUrl = env.MEMSCOPE_EMBEDDINGS_BASE_URL?.trim();
  const model = env.MEMSCOPE_EMBEDDINGS_MODEL?.trim();
  if (!baseUrl || !model) return lexicalProvider;
  const dimensions = Number(env.MEMSCOPE_EMBEDDINGS_DIMENSIONS || 0);
  if (!Number.isInteger(dimensions) || dimensions <= 0 || dimensions > 16000) {
    throw new ConfigurationError("embeddings_misconfigured", "MEMSCOPE_EMBEDDINGS_DIMENSIONS must be set to the model's vector size (1..16000)");
  }
  const apiKey = env.MEMSCOPE_EMBEDDINGS_API_KEY?.trim() || undefined;
  return {
    kind: "openai-compatible",
    model,
    dimensions,
    embed: (texts) => embedOpenAiCompatible({ baseUrl, apiKey, model, dimensions }, texts),
  };
}

/** The provider that made vectors of `model`, if it is one we can call now. */
export function providerForModel(model: string, env: NodeJS.ProcessEnv = process.env): EmbeddingProvider | null {
  if (model === LEXICAL_MODEL) return lexicalProvider;
  const configured = configuredEmbeddingProvider(env);
  return configured.model === model ? configured : null;
}

/**
 * A vector as pgvector's text form (bind it as a parameter and cast with ::vector).
 * pgvector refuses NaN and infinities: an embedder's non-finite component becomes 0.
 */
export function toVectorLiteral(v: number[]): string {
  return pgvector.toSql(v.map((x) => (Number.isFinite(x) ? x : 0))) as string;
}

/** A vector read back as text (`embedding::text`). */
export function fromVectorText(text: string): number[] {
  return pgvector.fromSql(text) as number[];
}
