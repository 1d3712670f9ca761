import { randomUUID } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client";
import { ForbiddenError, ValidationError, conflict, notFound } from "../errors/domain-errors";
import { recordAudit } from "./audit";
import type { Actor } from "./project-keys";
import { isRole, ROLES, strongestRole, type Role } from "./roles";

// Members of a project and their roles. better-auth does not check role names, so every
// write here does; a project always keeps at least one owner.

export type MemberSummary = { id: string; userId: string; email: string; name: string; role: Role | null; createdAt: string };

export function parseRole(value: unknown, field = "role"): Role {
  if (!isRole(value)) {
    throw new ValidationError(`Role must be one of ${ROLES.join(", ")}`, [{ field, message: `unknown role ${String(value)}` }]);
  }
  return value;
}

export async function listMembers(prisma: PrismaClient, projectId: string): Promise<MemberSummary[]> {
  const rows = await prisma.member.findMany({ where: { organizationId: projectId }, include: { user: true }, orderBy: { createdAt: "asc" }, take: 1000 });
  return rows.map((m) => ({ id: m.id, userId: m.userId, email: m.user.email, name: m.user.name, role: strongestRole(m.role), createdAt: m.createdAt.toISOString() }));
}

type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

async function ownerCount(tx: Tx, projectId: string): Promise<number> {
  return tx.member.count({ where: { organizationId: projectId, role: "owner" } });
}

/** Only an owner hands out or takes away "owner". */
function checkOwnerChange(actorRole: Role, from: Role | null, to: Role | null) {
  if ((from === "owner" || to === "owner") && actorRole !== "owner") {
    throw new ForbiddenError("Only an owner can make or unmake an owner");
  }
}

export async function changeMemberRole(prisma: PrismaClient, projectId: string, memberId: string, role: unknown, actor: Actor & { role: Role }): Promise<MemberSummary> {
  const next = parseRole(role);
  return prisma.$transaction(async (tx) => {
    const m = await tx.member.findFirst({ where: { id: memberId, organizationId: projectId }, include: { user: true } });
    if (!m) throw notFound("Member", memberId);
    const prev = strongestRole(m.role);
    checkOwnerChange(actor.role, prev, next);
    if (prev === "owner" && next !== "owner" && (await ownerCount(tx, projectId)) <= 1) {
      throw conflict("A project keeps at least one owner: make someone else owner first", [{ field: "role", message: "last owner" }]);
    }
    await tx.member.update({ where: { id: m.id }, data: { role: next } });
    await recordAudit(tx, { projectId, action: "member.role_changed", actor: actor.label, target: m.user.email, details: { from: prev, to: next } });
    return { id: m.id, userId: m.userId, email: m.user.email, name: m.user.name, role: next, createdAt: m.createdAt.toISOString() };
  });
}

export async function removeMember(prisma: PrismaClient, projectId: string, memberId: string, actor: Actor & { role: Role }): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const m = await tx.member.findFirst({ where: { id: memberId, organizationId: projectId }, include: { user: true } });
    if (!m) throw notFound("Member", memberId);
    const prev = strongestRole(m.role);
    checkOwnerChange(actor.role, prev, null);
    if (prev === "owner" && (await ownerCount(tx, projectId)) <= 1) {
      throw conflict("A project keeps at least one owner", [{ field: "id", message: "last owner" }]);
    }
    await tx.member.delete({ where: { id: m.id } });
    await recordAudit(tx, { projectId, action: "member.removed", actor: actor.label, target: m.user.email, details: { role: prev } });
  });
}

/** Adds a user to a project (first admin, invitation accepted, project creator). */
export async function addMember(tx: Tx, projectId: string, userId: string, email: string, role: Role, actorLabel: string): Promise<string> {
  const existing = await tx.member.findFirst({ where: { organizationId: projectId, userId } });
  if (existing) return existing.id;
  const id = randomUUID();
  await tx.member.create({ data: { id, organizationId: projectId, userId, role, createdAt: new Date() } });
  await recordAudit(tx, { projectId, action: "member.added", actor: actorLabel, target: email, details: { role } });
  return id;
}
