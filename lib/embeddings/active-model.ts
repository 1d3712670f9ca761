import type { ProjectSql } from "../db/project-sql";
import { configuredEmbeddingProvider, lexicalProvider, providerForModel, type EmbeddingProvider } from "./embedding-provider";
import { ensureVectorIndex } from "./ensure-vector-index";
import { ConfigurationError } from "../errors/domain-errors";

// Which model's vectors retrieval reads. It changes only when a re-embedding job for
// the newly configured model has finished: until then the old vectors keep serving.

export const ACTIVE_MODEL_KEY = "embeddings.active";

export type ActiveModel = { model: string; dimensions: number; kind: EmbeddingProvider["kind"] };

export async function readActiveModel(sql: ProjectSql): Promise<ActiveModel | null> {
  const [row] = await sql.query<{ value: ActiveModel }>(`SELECT value FROM app_settings WHERE key = $1 AND project_id = $2`, [ACTIVE_MODEL_KEY, sql.projectId]);
  return row?.value ?? null;
}

export async function writeActiveModel(sql: ProjectSql, m: ActiveModel): Promise<void> {
  // Since when each model served retrieval: an as-of search scores with the model of then.
  // The first model of a project serves from the start (it is set on an empty store).
  await sql.query(
    `INSERT INTO embedding_model_changes (project_id, active_from, model, dimensions, kind)
     SELECT $1, CASE WHEN EXISTS (SELECT 1 FROM embedding_model_changes WHERE project_id = $1) THEN now() ELSE 'epoch'::timestamptz END, $2, $3, $4
      WHERE (SELECT model FROM embedding_model_changes WHERE project_id = $1 ORDER BY active_from DESC LIMIT 1) IS DISTINCT FROM $2
     ON CONFLICT (project_id, active_from) DO UPDATE SET model = EXCLUDED.model, dimensions = EXCLUDED.dimensions, kind = EXCLUDED.kind`,
    [sql.projectId, m.model, m.dimensions, m.kind],
  );
  await sql.query(
    `INSERT INTO app_settings (project_id, key, value, updated_at) VALUES ($3, $1, $2::jsonb, now())
     ON CONFLICT (project_id, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [ACTIVE_MODEL_KEY, JSON.stringify(m), sql.projectId],
  );
}

/**
 * The provider retrieval uses now. On an empty store the configured provider becomes
 * active at once; otherwise the recorded model stays until a re-embed completes.
 */
export async function activeProvider(sql: ProjectSql): Promise<EmbeddingProvider> {
  let active = await readActiveModel(sql);
  if (!active) {
    const configured = configuredEmbeddingProvider();
    active = { model: configured.model, dimensions: configured.dimensions, kind: configured.kind };
    await writeActiveModel(sql, active);
  }
  const p = providerForModel(active.model) ?? lexicalProviderIf(active.model);
  if (!p) {
    throw new ConfigurationError(
      "embeddings_misconfigured",
      `Memories are embedded with ${active.model}, which is not configured any more. Configure it again, or let the re-embedding job finish.`,
    );
  }
  await ensureVectorIndex(sql, p.model, p.dimensions);
  return p;
}

function lexicalProviderIf(model: string) {
  return model === lexicalProvider.model ? lexicalProvider : null;
}

/**
 * Providers a write must embed with: the active one, plus the configured one while a
 * re-embedding job towards it runs (so new memories are not missed by the switch).
 */
export async function writeProviders(sql: ProjectSql): Promise<EmbeddingProvider[]> {
  const active = await activeProvider(sql);
  const configured = configuredEmbeddingProvider();
  if (configured.model === active.model) return [active];
  // No index for the new model yet: the re-embedding job builds it once its vectors are
  // in (inserting into an HNSW-indexed table is many times slower).
  return [active, configured];
}
