import { createHash } from "node:crypto";
import type { SqlRunner } from "../db/migrations";
import { LEXICAL_DIMENSIONS, LEXICAL_MODEL } from "./lexical-embedder";

// pgvector's HNSW needs fixed dimensions, and one table holds vectors of every model:
// one partial expression index per model, created the first time the model is used.

export function vectorIndexName(model: string): string {
  if (model === LEXICAL_MODEL) return "memory_embeddings_hnsw_lexical_hash_v1";
  const slug = model.toLowerCase().replace(/[^a-z0-9]+/g, "_").slice(0, 30);
  return `memory_embeddings_hnsw_${slug}_${createHash("sha1").update(model).digest("hex").slice(0, 8)}`;
}

const ensured = new Set<string>();

export async function ensureVectorIndex(sql: SqlRunner, model: string, dimensions: number): Promise<void> {
  const key = `${model}:${dimensions}`;
  if (ensured.has(key)) return;
  if (!(model === LEXICAL_MODEL && dimensions === LEXICAL_DIMENSIONS)) {
    const literal = model.replace(/'/g, "''");
    await sql.exec(
      `CREATE INDEX IF NOT EXISTS "${vectorIndexName(model)}" ON memory_embeddings
         USING hnsw ((embedding::vector(${Math.trunc(dimensions)})) vector_cosine_ops) WHERE model = '${literal}'`,
    );
  }
  ensured.add(key);
}
