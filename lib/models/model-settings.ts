import "server-only";
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

export async function savePresets(sql: ProjectSql, presets: ModelPreset[]): Promise<void> {
  await sql.query(
    `INSERT INTO app_settings (project_id, key, value, updated_at) VALUES ($3, $1, $2::jsonb, now())
     ON CONFLICT (project_id, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [PRESETS_KEY, JSON.stringify(presets), sql.projectId],
  );
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
