import "server-only";
import { getDb } from "../db/get-db";
import type { ProjectSql } from "../db/project-sql";
import { BUILTIN_PRESETS, type ModelPreset } from "./model-presets";
export { ZModelPreset, ZModelPresetsInput } from "./schemas";

/** The app_settings key of the saved presets. */
export const PRESETS_KEY = "models.presets";

/** Presets saved in settings (they override built-ins of the same name). */
export async function savedPresets(sql: ProjectSql): Promise<ModelPreset[]> {
  const [row] = await sql.query<{ value: ModelPreset[] }>(`SELECT value FROM app_settings WHERE key = $1 AND project_id = $2`, [PRESETS_KEY, sql.projectId]);
  return row?.value ?? [];
}

// Saved presets per project, kept in this process: POST /window reads them on every request
// (a query was ~10% of a small request's server CPU) and only savePresets changes them. Only on
// the embedded database: one process owns its folder (lib/db/folder-lock.ts), so every change is
// this process's own. On PostgreSQL another instance may change them: each request reads the row.
const presetsCache = new Map<string, readonly ModelPreset[]>();
// Bumped by every save: a read that a save overtook does not fill the cache with the old value.
let presetsVersion = 0;

/**
 * savedPresets, from this process's cache on the embedded database. For a ProjectSql of the
 * process's database (dataSql); the answer is shared: frozen.
 */
export async function cachedSavedPresets(sql: ProjectSql): Promise<readonly ModelPreset[]> {
  if ((await getDb()).config.kind !== "pglite") return savedPresets(sql);
  const hit = presetsCache.get(sql.projectId);
  if (hit) return hit;
  const version = presetsVersion;
  const presets = Object.freeze((await savedPresets(sql)).map((p) => Object.freeze(p)));
  if (version === presetsVersion) presetsCache.set(sql.projectId, presets);
  return presets;
}

/** Saves a project's presets (not inside a transaction: the cache forgets them once written). */
export async function savePresets(sql: ProjectSql, presets: ModelPreset[]): Promise<void> {
  presetsVersion++;
  try {
    await sql.query(
      `INSERT INTO app_settings (project_id, key, value, updated_at) VALUES ($3, $1, $2::jsonb, now())
       ON CONFLICT (project_id, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [PRESETS_KEY, JSON.stringify(presets), sql.projectId],
    );
  } finally {
    presetsVersion++;
    presetsCache.delete(sql.projectId);
  }
}

/** Built-ins with saved overrides applied, plus saved models that are new. */
export async function allPresets(sql: ProjectSql): Promise<(ModelPreset & { source: "builtin" | "settings" })[]> {
  const saved = await savedPresets(sql);
  const names = new Set(saved.map((p) => p.model.toLowerCase()));
  return [
    ...saved.map((p) => ({ ...p, source: "settings" as const })),
    ...BUILTIN_PRESETS.filter((p) => !names.has(p.model)).map((p) => ({ ...p, source: "builtin" as const })),
  ];
}
