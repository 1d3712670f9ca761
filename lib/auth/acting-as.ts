import type { PrismaClient } from "../generated/prisma/client";
import { ConflictError } from "../errors/domain-errors";
import { strongestRole, type Role } from "./roles";

// Who an administrative change is recorded as, and with which role it is checked. A
// signed-in member acts as themselves; an admin key, MEMSCOPE_API_KEY or the open mode act
// as "admin" under their own label (they cannot make or unmake owners).

export type Caller = { projectId: string; actor: { kind: string; label: string; id?: string } };
export type ActingAs = { userId: string | null; label: string; role: Role };

export async function actingAs(prisma: PrismaClient, c: Caller): Promise<ActingAs> {
  if (c.actor.kind === "account" && c.actor.id) {
    const m = await prisma.member.findFirst({ where: { organizationId: c.projectId, userId: c.actor.id } });
    return { userId: c.actor.id, label: c.actor.label, role: (m && strongestRole(m.role)) || "viewer" };
  }
  return { userId: null, label: c.actor.label, role: "admin" };
}

/**
 * better-auth's key plugin wants a member who may create keys to vouch for a new key;
 * a key-holding caller is not a member, so the project's first owner vouches (the audit
 * log still names the caller).
 */
export async function vouchingUser(prisma: PrismaClient, projectId: string, as: ActingAs): Promise<string> {
  if (as.userId) return as.userId;
  const owner = await prisma.member.findFirst({ where: { organizationId: projectId, role: "owner" }, orderBy: { createdAt: "asc" } });
  if (!owner) throw new ConflictError("This project has no owner account yet: create the admin account first", [{ field: "project", message: "no owner" }]);
  return owner.userId;
}
