import "server-only";
import type { z } from "zod";
import type { ProjectSql } from "../db/project-sql";
import { NotFoundError, ValidationError } from "../errors/domain-errors";
import { ZProfileSettings, type ProfileVersion, type ZProfileList, type ZProfileVersionCreate } from "./schemas";

// Versioned agent profiles: rows of agent_profile_versions are only ever inserted. The
// version in force at an instant is the newest whose effective_from is at or before it.

export type ProfileVersionRow = {
  app_id: string;
  version: number;
  effective_from: Date | string;
  settings: unknown;
  note: string | null;
  created_by: string | null;
  created_at: Date | string;
};

const COLUMNS = `app_id, version, effective_from, settings, note, created_by, created_at`;

/** A stored version as the API answers it (also for a row read inside another statement: lib/replay/load-turn.ts). */
export function toVersion(r: ProfileVersionRow): ProfileVersion {
  return {
    app_id: r.app_id,
    version: Number(r.version),
    effective_from: new Date(r.effective_from).toISOString(),
    // Parsed again so versions stored before a schema default was added answer in full.
    settings: ZProfileSettings.parse(r.settings),
    note: r.note,
    created_by: r.created_by,
    created_at: new Date(r.created_at).toISOString(),
  };
}

/** Every version of an app's profile, newest first (empty when it has none). */
export async function versionsOf(sql: ProjectSql, appId: string): Promise<ProfileVersion[]> {
  const rows = await sql.query<ProfileVersionRow>(
    `SELECT ${COLUMNS} FROM agent_profile_versions WHERE project_id = $1 AND app_id = $2 ORDER BY version DESC`,
    [sql.projectId, appId],
  );
  return rows.map(toVersion);
}

/** The version in force at `at` among `newestFirst` (by effective_from, then version). */
export function inForce(newestFirst: ProfileVersion[], at: Date): ProfileVersion | null {
  let best: ProfileVersion | null = null;
  for (const v of newestFirst) {
    const t = Date.parse(v.effective_from);
    if (t > at.getTime()) continue;
    if (!best || t > Date.parse(best.effective_from) || (t === Date.parse(best.effective_from) && v.version > best.version)) best = v;
  }
  return best;
}

export async function listProfiles(sql: ProjectSql): Promise<z.infer<typeof ZProfileList>> {
  const rows = await sql.query<ProfileVersionRow>(
    `SELECT ${COLUMNS} FROM agent_profile_versions WHERE project_id = $1 ORDER BY app_id, version DESC`,
    [sql.projectId],
  );
  const byApp = new Map<string, ProfileVersion[]>();
  for (const r of rows) {
    const v = toVersion(r);
    byApp.set(v.app_id, [...(byApp.get(v.app_id) ?? []), v]);
  }
  const now = new Date();
  return {
    data: [...byApp].map(([app_id, versions]) => ({ app_id, version_count: versions.length, latest_version: versions[0].version, current: inForce(versions, now) })),
  };
}

export async function profileHistory(sql: ProjectSql, appId: string) {
  const versions = await versionsOf(sql, appId);
  if (!versions.length) throw new NotFoundError("Profile", appId, "app_id");
  return { app_id: appId, current: inForce(versions, new Date()), versions };
}

export async function profileVersion(sql: ProjectSql, appId: string, version: number): Promise<ProfileVersion> {
  const [row] = await sql.query<ProfileVersionRow>(
    `SELECT ${COLUMNS} FROM agent_profile_versions WHERE project_id = $1 AND app_id = $2 AND version = $3`,
    [sql.projectId, appId, version],
  );
  if (!row) throw new NotFoundError("Profile version", `${appId} v${version}`, "version");
  return toVersion(row);
}

/** The version in force at `at`, or null when the app had none then (or has no profile). */
export async function profileInForce(sql: ProjectSql, appId: string, at: Date): Promise<ProfileVersion | null> {
  const [row] = await sql.query<ProfileVersionRow>(
    `SELECT ${COLUMNS} FROM agent_profile_versions
      WHERE project_id = $1 AND app_id = $2 AND effective_from <= $3::timestamptz
      ORDER BY effective_from DESC, version DESC LIMIT 1`,
    [sql.projectId, appId, at.toISOString()],
  );
  return row ? toVersion(row) : null;
}

/**
 * A new version (the first one creates the profile). Serialized per app by an advisory
 * lock, so two concurrent changes get versions n and n+1, never the same number.
 */
/**
 * A new version, or (`created: false`) the newest one when it already has exactly these settings
 * and no other start is asked for: saving a form unchanged is no change to the profile.
 */
export async function createProfileVersion(sql: ProjectSql, appId: string, input: z.infer<typeof ZProfileVersionCreate>): Promise<{ version: ProfileVersion; created: boolean }> {
  return sql.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`agent_profile:${tx.projectId}:${appId}`]);
    // jsonb equality: the same settings whatever the order of their keys.
    const [last] = await tx.query<ProfileVersionRow & { same: boolean }>(
      `SELECT ${COLUMNS}, settings = $3::jsonb AS same FROM agent_profile_versions WHERE project_id = $1 AND app_id = $2 ORDER BY version DESC LIMIT 1`,
      [tx.projectId, appId, JSON.stringify(input.settings)],
    );
    if (last?.same && !input.effective_from) return { version: toVersion(last), created: false };
    if (last && input.effective_from && Date.parse(input.effective_from) < new Date(last.effective_from).getTime()) {
      const prev = new Date(last.effective_from).toISOString();
      throw new ValidationError(`effective_from ${input.effective_from} is before version ${last.version}'s (${prev})`, [
        { field: "effective_from", message: `not before ${prev} (version ${last.version})` },
      ]);
    }
    const [row] = await tx.query<ProfileVersionRow>(
      `INSERT INTO agent_profile_versions (project_id, app_id, version, effective_from, settings, note, created_by)
       VALUES ($1, $2, $3, GREATEST(coalesce($4::timestamptz, now()), coalesce($7::timestamptz, '-infinity')), $5::jsonb, $6, $8)
       RETURNING ${COLUMNS}`,
      [
        tx.projectId,
        appId,
        (last ? Number(last.version) : 0) + 1,
        input.effective_from ?? null,
        JSON.stringify(input.settings),
        input.note ?? null,
        last ? new Date(last.effective_from).toISOString() : null,
        tx.actorLabel,
      ],
    );
    return { version: toVersion(row), created: true };
  });
}

/** Every version of each of these apps' profiles, newest first per app, in one statement (an app without a profile maps to []). */
export async function versionsOfApps(sql: ProjectSql, appIds: readonly string[]): Promise<Map<string, ProfileVersion[]>> {
  const out = new Map<string, ProfileVersion[]>(appIds.map((a) => [a, []]));
  if (!appIds.length) return out;
  const rows = await sql.query<ProfileVersionRow>(`SELECT ${COLUMNS} FROM agent_profile_versions WHERE project_id = $1 AND app_id = ANY($2::text[]) ORDER BY app_id, version DESC`, [
    sql.projectId,
    [...appIds],
  ]);
  for (const r of rows) out.get(r.app_id)?.push(toVersion(r));
  return out;
}
