import "server-only";
import type { SqlRunner } from "../db/migrations";
import { BUILTIN_PRESETS, type ModelPreset } from "./model-presets";
export { ZModelPreset, ZModelPresetsInput } from "./schemas";

const KEY = "models.presets";

/** Presets saved in settings (they override built-ins of the same name). */
export async function savedPresets(sql: SqlRunner): Promise<ModelPreset[]> {
  const [row] = await sql.query<{ value: ModelPreset[] }>(`SELECT value FROM app_settings WHERE key = $1`, [KEY]);
  return row?.value ?? [];
}

export async function savePresets(sql: SqlRunner, presets: ModelPreset[]): Promise<void> {
  await sql.query(
    `INSERT INTO app_settings (key, value, updated_at) VALUES ($1, $2::jsonb, now())
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [KEY, JSON.stringify(presets)],
  );
}

/** Built-ins with saved overrides applied, plus saved models that are new. */
export async function allPresets(sql: SqlRunner): Promise<(ModelPreset & { source: "builtin" | "settings" })[]> {
  const saved = await savedPresets(sql);
  const names = new Set(saved.map((p) => p.model.toLowerCase()));
  return [
    ...saved.map((p) => ({ ...p, source: "settings" as const })),
    ...BUILTIN_PRESETS.filter((p) => !names.has(p.model)).map((p) => ({ ...p, source: "builtin" as const })),
  ];
}
