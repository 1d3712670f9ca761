import { randomBytes } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client";
import { ForbiddenError, ValidationError, notFound } from "../errors/domain-errors";
import { recordAudit } from "./audit";
import type { Actor } from "./project-keys";
import { addMember, parseRole } from "./project-members";
import { strongestRole, type Role } from "./roles";

// Invitations are links an admin copies and sends however they like (no mail server).
// The id is the secret in the link: 24 random bytes.

const WEEK_MS = 7 * 24 * 3600 * 1000;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export type InvitationSummary = { id: string; email: string; role: Role | null; status: string; expiresAt: string; createdAt: string; projectId: string };

/**
 * What the accept page shows whoever holds a link: the address it is for (the account it makes
 * or needs), the project's name and role, and whether that address has an account (sign in, or
 * choose a password). Nothing else: no project id, inviter or dates, since links travel by chat and mail.
 */
export type InvitationLinkView = { email: string; role: Role | null; project_name: string; has_account: boolean };

export function parseEmail(value: unknown): string {
  const email = typeof value === "string" ? value.trim().toLowerCase() : "";
  if (!EMAIL.test(email) || email.length > 254) {
    throw new ValidationError("Enter an email address", [{ field: "email", message: "not an email address" }]);
  }
  return email;
}

export async function createInvitation(prisma: PrismaClient, projectId: string, input: { email: unknown; role: unknown }, actor: Actor & { role: Role }): Promise<InvitationSummary> {
  const email = parseEmail(input.email);
  const role = parseRole(input.role);
  if (role === "owner" && actor.role !== "owner") throw new ForbiddenError("Only an owner can invite an owner");
  return prisma.$transaction(async (tx) => {
    // A new link replaces an unused one for the same person.
    await tx.invitation.updateMany({ where: { organizationId: projectId, email, status: "pending" }, data: { status: "canceled" } });
    const row = await tx.invitation.create({
      data: { id: randomBytes(24).toString("base64url"), organizationId: projectId, email, role, status: "pending", expiresAt: new Date(Date.now() + WEEK_MS), inviterId: actor.userId },
    });
    await recordAudit(tx, { projectId, action: "invitation.created", actor: actor.label, target: email, details: { role } });
    return summarize(row);
  });
}

function summarize(r: { id: string; email: string; role: string | null; status: string; expiresAt: Date; createdAt: Date; organizationId: string }): InvitationSummary {
  return { id: r.id, email: r.email, role: r.role ? strongestRole(r.role) : null, status: r.status, expiresAt: r.expiresAt.toISOString(), createdAt: r.createdAt.toISOString(), projectId: r.organizationId };
}

export async function listInvitations(prisma: PrismaClient, projectId: string): Promise<InvitationSummary[]> {
  const rows = await prisma.invitation.findMany({ where: { organizationId: projectId, status: "pending", expiresAt: { gt: new Date() } }, orderBy: { createdAt: "desc" }, take: 500 });
  return rows.map(summarize);
}

export async function cancelInvitation(prisma: PrismaClient, projectId: string, id: string, actor: Actor): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const row = await tx.invitation.findFirst({ where: { id, organizationId: projectId, status: "pending" } });
    if (!row) throw notFound("Invitation", id);
    await tx.invitation.update({ where: { id }, data: { status: "canceled" } });
    await recordAudit(tx, { projectId, action: "invitation.cancelled", actor: actor.label, target: row.email });
  });
}

/** An open invitation by its link id, or 404 (used, cancelled, expired and unknown look alike). */
export async function findOpenInvitation(prisma: PrismaClient, id: string): Promise<InvitationSummary> {
  const row = await prisma.invitation.findFirst({ where: { id, status: "pending", expiresAt: { gt: new Date() } } });
  if (!row) throw notFound("Invitation", id);
  return summarize(row);
}

/** The accept page's view of an open link, or the 404 findOpenInvitation gives. */
export async function viewInvitationLink(prisma: PrismaClient, id: string): Promise<InvitationLinkView> {
  const row = await prisma.invitation.findFirst({ where: { id, status: "pending", expiresAt: { gt: new Date() } }, include: { organization: { select: { name: true } } } });
  if (!row) throw notFound("Invitation", id);
  const account = await prisma.user.findUnique({ where: { email: row.email }, select: { id: true } });
  return { email: row.email, role: row.role ? strongestRole(row.role) : null, project_name: row.organization.name, has_account: !!account };
}

/** Makes the signed-in account a member with the invited role; the email must match. */
export async function acceptInvitation(prisma: PrismaClient, id: string, user: { id: string; email: string }): Promise<{ projectId: string; role: Role }> {
  return prisma.$transaction(async (tx) => {
    const row = await tx.invitation.findFirst({ where: { id, status: "pending", expiresAt: { gt: new Date() } } });
    if (!row) throw notFound("Invitation", id);
    if (row.email !== user.email.toLowerCase()) {
      throw new ForbiddenError(`This invitation is for ${row.email}; you are signed in as ${user.email}`);
    }
    const role = strongestRole(row.role ?? "viewer") ?? "viewer";
    const inviter = await tx.user.findUnique({ where: { id: row.inviterId }, select: { email: true } });
    await addMember(tx, row.organizationId, user.id, user.email, role, `${inviter?.email ?? "an admin"}'s invitation`);
    await tx.invitation.update({ where: { id }, data: { status: "accepted" } });
    return { projectId: row.organizationId, role };
  });
}
