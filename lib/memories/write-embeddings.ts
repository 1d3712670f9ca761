import type { ProjectSql } from "../db/project-sql";
import { toVectorLiteral, type EmbeddingProvider } from "../embeddings/embedding-provider";

export type MemoryVector = { provider: EmbeddingProvider; vector: number[] };

/** Embeds outside any transaction (it may call a remote endpoint). */
export async function embedForWrite(providers: EmbeddingProvider[], content: string): Promise<MemoryVector[]> {
  return Promise.all(providers.map(async (provider) => ({ provider, vector: (await provider.embed([content]))[0] })));
}

/** Upserts several memories' vectors: one statement per model, whatever the number of memories. */
export async function writeEmbeddingsMany(tx: ProjectSql, userId: string, items: { memoryId: string; vectors: MemoryVector[] }[]): Promise<void> {
  const byModel = new Map<string, { provider: EmbeddingProvider; ids: string[]; vectors: string[] }>();
  for (const it of items) {
    for (const v of it.vectors) {
      let m = byModel.get(v.provider.model);
      if (!m) byModel.set(v.provider.model, (m = { provider: v.provider, ids: [], vectors: [] }));
      m.ids.push(it.memoryId);
      m.vectors.push(toVectorLiteral(v.vector));
    }
  }
  for (const { provider, ids, vectors } of byModel.values()) {
    await tx.query(
      `INSERT INTO memory_embeddings (memory_id, model, user_id, dimensions, embedding, project_id)
       SELECT u.memory_id, $3, $4, $5, u.embedding::vector, $6 FROM unnest($1::uuid[], $2::text[]) AS u(memory_id, embedding)
       ON CONFLICT (project_id, model, memory_id) DO UPDATE SET embedding = EXCLUDED.embedding, dimensions = EXCLUDED.dimensions, created_at = now()`,
      [ids, vectors, provider.model, userId, provider.dimensions, tx.projectId],
    );
  }
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
