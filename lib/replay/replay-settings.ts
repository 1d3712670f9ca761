import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { profileInForce, profileVersion } from "../profiles/profile-versions";
import { ZProfileSettings, type ProfileSettings, type ProfileVersion } from "../profiles/schemas";
import type { SettingsOverrides } from "./schemas";

export type ProfileUsed = {
  source: "profile" | "default";
  app_id: string;
  version: number | null;
  effective_from: string | null;
  overridden: string[];
};

/** When an app had no profile yet: POST /context's defaults with its default message_window. */
export const DEFAULT_SETTINGS: ProfileSettings = ZProfileSettings.parse({ strategy: { type: "message_window" } });

/** The profile version asked for, or the one in force at `at`, or the defaults. */
export async function baseSettings(sql: ProjectSql, appId: string, at: Date, version?: number): Promise<{ settings: ProfileSettings; profile: ProfileUsed }> {
  return settingsOf(appId, version !== undefined ? await profileVersion(sql, appId, version) : await profileInForce(sql, appId, at));
}

/** The settings of a version read already (a replay's turn statement reads the one in force at the turn), or the defaults. */
export function settingsOf(appId: string, v: ProfileVersion | null): { settings: ProfileSettings; profile: ProfileUsed } {
  if (!v) return { settings: DEFAULT_SETTINGS, profile: { source: "default", app_id: appId, version: null, effective_from: null, overridden: [] } };
  return { settings: v.settings, profile: { source: "profile", app_id: appId, version: v.version, effective_from: v.effective_from, overridden: [] } };
}

/** Settings with the overrides applied (memory and weights field by field), and the dotted names it changed. */
export function applyOverrides(settings: ProfileSettings, o: SettingsOverrides | undefined): { settings: ProfileSettings; overridden: string[] } {
  if (!o) return { settings, overridden: [] };
  const overridden: string[] = [];
  const out: ProfileSettings = { ...settings, memory: { ...settings.memory } };
  for (const key of ["model", "strategy", "system_prompt", "reserved_output_tokens"] as const) {
    if (o[key] === undefined) continue;
    (out as Record<string, unknown>)[key] = o[key];
    overridden.push(key);
  }
  const { weights, ...memory } = o.memory ?? {};
  for (const [key, value] of Object.entries(memory)) {
    if (value === undefined) continue;
    (out.memory as Record<string, unknown>)[key] = value;
    overridden.push(`memory.${key}`);
  }
  if (weights) {
    out.memory.weights = { ...settings.memory.weights };
    for (const [key, value] of Object.entries(weights)) {
      if (value === undefined) continue;
      (out.memory.weights as Record<string, number>)[key] = value;
      overridden.push(`memory.weights.${key}`);
    }
  }
  return { settings: out, overridden };
}
