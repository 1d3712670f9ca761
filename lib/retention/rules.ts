import "server-only";
import { randomUUID } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import { notFound } from "../errors/domain-errors";
import { auditRetention } from "./audit";
import type { RetentionRule, RetentionRun, RuleCreate, RuleKind, RulePatch } from "./schemas";

// A project's retention rules, stored in retention_rules (migration 20261126110000_retention).
// A rule's runs are not stored here: each is an audit event "retention.run" whose target is
// the rule id, read back for the settings page.

export type RuleRow = {
  project_id: string;
  id: string;
  kind: RuleKind;
  days: number;
  enabled: boolean;
  created_by: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  next_run_at: Date | string;
  last_run_at: Date | string | null;
};

const iso = (d: Date | string) => new Date(d).toISOString();
const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);

export const RUNS_SHOWN = 5;

function serialize(r: RuleRow, runs: RetentionRun[]): RetentionRule {
  return {
    id: r.id,
    kind: r.kind,
    days: r.days,
    enabled: r.enabled,
    created_by: r.created_by,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    next_run_at: iso(r.next_run_at),
    last_run_at: r.last_run_at ? iso(r.last_run_at) : null,
    last_runs: runs,
  };
}

/** The rule, or a 404 (an id of another project, or a malformed one, is the same 404). */
export async function requireRule(sql: ProjectSql, id: string): Promise<RuleRow> {
  if (!isUuid(id)) throw notFound("Retention rule", id);
  const [row] = await sql.query<RuleRow>(`SELECT * FROM retention_rules WHERE project_id = $1 AND id = $2::uuid`, [sql.projectId, id]);
  if (!row) throw notFound("Retention rule", id);
  return row;
}

/** A rule's newest runs, from the audit log. */
export async function lastRuns(sql: ProjectSql, ruleIds: string[], limit = RUNS_SHOWN): Promise<Map<string, RetentionRun[]>> {
  const out = new Map<string, RetentionRun[]>(ruleIds.map((id) => [id, []]));
  if (!ruleIds.length) return out;
  const rows = await sql.query<{ target: string; details: RetentionRun }>(
    `SELECT r.target, r.details FROM unnest($2::text[]) AS x(id)
       CROSS JOIN LATERAL (SELECT target, details FROM audit_events
                            WHERE project_id = $1 AND action = 'retention.run' AND target = x.id
                            ORDER BY created_at DESC, id DESC LIMIT $3) r`,
    [sql.projectId, ruleIds, limit],
  );
  for (const r of rows) out.get(r.target)?.push(r.details);
  return out;
}

export async function listRules(sql: ProjectSql): Promise<RetentionRule[]> {
  const rows = await sql.query<RuleRow>(`SELECT * FROM retention_rules WHERE project_id = $1 ORDER BY created_at, id`, [sql.projectId]);
  const runs = await lastRuns(sql, rows.map((r) => r.id));
  return rows.map((r) => serialize(r, runs.get(r.id) ?? []));
}

export async function getRule(sql: ProjectSql, id: string): Promise<RetentionRule> {
  const row = await requireRule(sql, id);
  return serialize(row, (await lastRuns(sql, [row.id])).get(row.id) ?? []);
}

/** A new rule is due at once: the next scheduler pass (or "run now") runs it. */
export async function createRule(sql: ProjectSql, input: RuleCreate, by: string): Promise<RetentionRule> {
  return sql.transaction(async (tx) => {
    const [row] = await tx.query<RuleRow>(
      `INSERT INTO retention_rules (project_id, id, kind, days, enabled, created_by) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [tx.projectId, randomUUID(), input.kind, input.days, input.enabled, by],
    );
    await auditRetention(tx, { action: "retention.rule_created", actor: by, target: row.id, details: { kind: row.kind, days: row.days, enabled: row.enabled } });
    return serialize(row, []);
  });
}

export async function updateRule(sql: ProjectSql, id: string, patch: RulePatch, by: string): Promise<RetentionRule> {
  await requireRule(sql, id);
  const row = await sql.transaction(async (tx) => {
    const [r] = await tx.query<RuleRow>(
      `UPDATE retention_rules SET days = coalesce($3, days), enabled = coalesce($4, enabled), updated_at = now()
        WHERE project_id = $1 AND id = $2::uuid RETURNING *`,
      [tx.projectId, id, patch.days ?? null, patch.enabled ?? null],
    );
    if (!r) throw notFound("Retention rule", id); // deleted meanwhile
    await auditRetention(tx, { action: "retention.rule_changed", actor: by, target: id, details: { kind: r.kind, days: r.days, enabled: r.enabled } });
    return r;
  });
  return serialize(row, (await lastRuns(sql, [id])).get(id) ?? []);
}

/** The rule goes; its runs stay in the audit log. */
export async function deleteRule(sql: ProjectSql, id: string, by: string): Promise<void> {
  const rule = await requireRule(sql, id);
  await sql.transaction(async (tx) => {
    await tx.query(`DELETE FROM retention_rules WHERE project_id = $1 AND id = $2::uuid`, [tx.projectId, id]);
    await auditRetention(tx, { action: "retention.rule_deleted", actor: by, target: id, details: { kind: rule.kind, days: rule.days } });
  });
}
