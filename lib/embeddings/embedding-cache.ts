import "server-only";
import { createHash } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import { toVectorLiteral, type EmbeddingProvider } from "./embedding-provider";

// Vectors of texts by (model, content hash): what an as-of search embeds (contents of the
// past, queries) is embedded once, so replaying a turn again calls no provider. The local
// lexical embedder is not cached: computing it is cheaper than reading it back.

export function contentHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * Each text's vector as pgvector text, by text; one provider call for all texts not cached yet.
 * `userId`: whose search it is; each text is noted as theirs (embedding_cache_users), so that
 * their erasure drops its vector even when the text is in no row of theirs (a query).
 */
export async function cachedVectors(sql: ProjectSql, provider: EmbeddingProvider, texts: string[], userId?: string): Promise<Map<string, string>> {
  const unique = [...new Set(texts)];
  const out = new Map<string, string>();
  if (!unique.length) return out;
  if (provider.kind === "lexical") {
    const vectors = await provider.embed(unique);
    unique.forEach((t, i) => out.set(t, toVectorLiteral(vectors[i])));
    return out;
  }
  const hashes = unique.map(contentHash);
  if (userId !== undefined) {
    await sql.query(
      `INSERT INTO embedding_cache_users (project_id, user_id, content_hash) SELECT $1, $2, h FROM unnest($3::text[]) AS h ON CONFLICT DO NOTHING`,
      [sql.projectId, userId, hashes],
    );
  }
  const rows = await sql.query<{ content_hash: string; v: string }>(
    `SELECT content_hash, embedding::text AS v FROM embedding_cache WHERE project_id = $1 AND model = $2 AND content_hash = ANY($3::text[])`,
    [sql.projectId, provider.model, hashes],
  );
  const cached = new Map(rows.map((r) => [r.content_hash, r.v]));
  const missing = unique.filter((_, i) => !cached.has(hashes[i]));
  if (missing.length) {
    const vectors = (await provider.embed(missing)).map(toVectorLiteral);
    await sql.query(
      `INSERT INTO embedding_cache (project_id, model, content_hash, dimensions, embedding)
       SELECT $1, $2, x.h, $3, x.v::vector FROM unnest($4::text[], $5::text[]) AS x(h, v)
       ON CONFLICT (project_id, model, content_hash) DO NOTHING`,
      [sql.projectId, provider.model, provider.dimensions, missing.map(contentHash), vectors],
    );
    missing.forEach((t, i) => cached.set(contentHash(t), vectors[i]));
  }
  unique.forEach((t, i) => out.set(t, cached.get(hashes[i])!));
  return out;
}
