import "server-only";
import { randomUUID } from "node:crypto";
import type { AuditAction } from "../auth/audit";
import type { ProjectSql } from "../db/project-sql";

/** An audit event of the project (the audit page lists them), written in the caller's transaction. */
export async function recordAuditSql(sql: ProjectSql, e: { action: AuditAction; actor: string; target: string; details: unknown }): Promise<void> {
  await sql.query(`INSERT INTO audit_events (id, project_id, action, actor, target, details) VALUES ($1, $2, $3, $4, $5, $6::jsonb)`, [
    randomUUID(),
    sql.projectId,
    e.action,
    e.actor,
    e.target,
    JSON.stringify(e.details),
  ]);
}
