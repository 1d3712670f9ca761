import { randomUUID } from "node:crypto";
import type { Prisma, PrismaClient } from "../generated/prisma/client";

// Changes to who may reach a project, and erasures of personal data, for its admins to read back.

export type AuditAction =
  | "key.created"
  | "key.revoked"
  | "member.added"
  | "member.removed"
  | "member.role_changed"
  | "invitation.created"
  | "invitation.cancelled"
  // A person's data erased (lib/privacy): details hold the receipt, without personal data.
  | "user.erased"
  | "text.erased"
  // Retention (lib/retention): a rule's changes, and each run with its counts (target: the rule id).
  | "retention.rule_created"
  | "retention.rule_changed"
  | "retention.rule_deleted"
  | "retention.run"
  // Memory incidents (lib/incidents): a status judged (target: the incident), a scan started (target: the job).
  | "incident.judged"
  | "incident.scan_started";

type Tx = Pick<PrismaClient, "auditEvent">;

export async function recordAudit(
  tx: Tx,
  e: { projectId: string; action: AuditAction; actor: string; target: string; details?: Prisma.InputJsonValue },
): Promise<void> {
  await tx.auditEvent.create({ data: { id: randomUUID(), ...e } });
}

export type AuditRow = { id: string; action: string; actor: string; target: string; details: unknown; createdAt: string };

/** Newest first, `before` is the createdAt of the last row already shown. */
export async function listAudit(prisma: PrismaClient, projectId: string, opts: { limit?: number; before?: Date } = {}): Promise<AuditRow[]> {
  const rows = await prisma.auditEvent.findMany({
    where: { projectId, ...(opts.before ? { createdAt: { lt: opts.before } } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: Math.min(Math.max(opts.limit ?? 100, 1), 500),
  });
  return rows.map((r) => ({ id: r.id, action: r.action, actor: r.actor, target: r.target, details: r.details, createdAt: r.createdAt.toISOString() }));
}
