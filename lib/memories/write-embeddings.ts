import type { ProjectSql } from "../db/project-sql";
import { toVectorLiteral, type EmbeddingProvider } from "../embeddings/embedding-provider";

export type MemoryVector = { provider: EmbeddingProvider; vector: number[] };

/** Embeds outside any transaction (it may call a remote endpoint). */
export async function embedForWrite(providers: EmbeddingProvider[], content: string): Promise<MemoryVector[]> {
  return Promise.all(providers.map(async (provider) => ({ provider, vector: (await provider.embed([content]))[0] })));
}

/** Upserts a memory's vectors, one per model. */
export async function writeEmbeddings(tx: ProjectSql, memoryId: string, userId: string, vectors: MemoryVector[]): Promise<void> {
  for (const v of vectors) {
    await tx.query(
      `INSERT INTO memory_embeddings (memory_id, model, user_id, dimensions, embedding, project_id)
       VALUES ($1, $2, $3, $4, $5::vector, $6)
       ON CONFLICT (project_id, model, memory_id) DO UPDATE SET embedding = EXCLUDED.embedding, dimensions = EXCLUDED.dimensions, created_at = now()`,
      [memoryId, v.provider.model, userId, v.provider.dimensions, toVectorLiteral(v.vector), tx.projectId],
    );
  }
}
