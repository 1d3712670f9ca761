import type { z } from "zod";
import type { AuditRow } from "./audit";
import type { InvitationSummary } from "./invitations";
import type { KeyInput, KeySummary } from "./project-keys";
import type { MemberSummary } from "./project-members";
import type { ZAuditEvent, ZInvitation, ZKeyCreate, ZKeySummary, ZMember } from "./schemas";

// The project API's answers in the public API's casing (lib/auth/schemas.ts): the functions in
// lib/auth keep their rows as better-auth and Prisma name them, the routes answer with these.

export function keyAnswer(k: KeySummary): z.infer<typeof ZKeySummary> {
  return {
    id: k.id,
    name: k.name,
    start: k.start,
    scopes: k.scopes,
    created_by: k.createdBy,
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    expires_at: k.expiresAt,
  };
}

export function keyInput(b: z.infer<typeof ZKeyCreate>): KeyInput {
  return { name: b.name, scopes: b.scopes, expiresInDays: b.expires_in_days };
}

export function memberAnswer(m: MemberSummary): z.infer<typeof ZMember> {
  return { id: m.id, user_id: m.userId, email: m.email, name: m.name, role: m.role, created_at: m.createdAt };
}

export function invitationAnswer(i: InvitationSummary): z.infer<typeof ZInvitation> {
  return { id: i.id, email: i.email, role: i.role, status: i.status, expires_at: i.expiresAt, created_at: i.createdAt, project_id: i.projectId };
}

export function auditAnswer(e: AuditRow): z.infer<typeof ZAuditEvent> {
  return { id: e.id, action: e.action, actor: e.actor, target: e.target, details: e.details, created_at: e.createdAt };
}
