import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { ConfigurationError } from "../errors/domain-errors";
import { readActiveModel, type ActiveModel } from "./active-model";
import { configuredEmbeddingProvider, lexicalProvider, providerForModel, type EmbeddingProvider } from "./embedding-provider";

// The embedding model retrieval used at an instant: embedding_model_changes records each
// switch (writeActiveModel). Reads only: an as-of search never records a model.

export async function activeModelAt(sql: ProjectSql, asOf: string): Promise<ActiveModel> {
  const [row] = await sql.query<ActiveModel>(
    `SELECT model, dimensions, kind FROM embedding_model_changes WHERE project_id = $1 AND active_from <= $2::timestamptz ORDER BY active_from DESC LIMIT 1`,
    [sql.projectId, asOf],
  );
  if (row) return { model: row.model, dimensions: Number(row.dimensions), kind: row.kind };
  // No model recorded yet (nothing was ever embedded in this project): the one a first
  // search would pick.
  const active = await readActiveModel(sql);
  if (active) return active;
  const c = configuredEmbeddingProvider();
  return { model: c.model, dimensions: c.dimensions, kind: c.kind };
}

/** The provider of a past model, when it is still configured (else 409, as a live search). */
export function providerOfModel(m: ActiveModel): EmbeddingProvider {
  const p = providerForModel(m.model) ?? (m.model === lexicalProvider.model ? lexicalProvider : null);
  if (!p) {
    throw new ConfigurationError(
      "embeddings_misconfigured",
      `Memories were searched with ${m.model} at that instant, which is not configured any more: configure it again to search as of then.`,
    );
  }
  return p;
}
