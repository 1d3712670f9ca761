import { z } from "zod";
import { ROLES, SCOPES } from "./roles";

// Shapes of the project administration API (/api/v1/project...).

export const ZRole = z.enum(ROLES);
export const ZScope = z.enum(SCOPES);

export const ZProject = z.object({ id: z.string(), name: z.string(), slug: z.string(), role: ZRole.nullable() });
export const ZCaller = z.object({
  project: ZProject,
  actor: z.object({ kind: z.enum(["key", "account", "bootstrap", "open"]), label: z.string() }),
  scopes: z.array(ZScope),
});
export const ZProjectList = z.object({ data: z.array(ZProject) });
export const ZProjectCreate = z.object({ name: z.string().trim().min(1).max(80) });

export const ZKeySummary = z.object({
  id: z.string(),
  name: z.string(),
  start: z.string().nullable(),
  scopes: z.array(ZScope),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
});
export const ZKeyList = z.object({ data: z.array(ZKeySummary) });
export const ZKeyCreate = z.object({
  name: z.string().trim().min(1).max(80),
  scopes: z.array(ZScope).min(1),
  expiresInDays: z.number().int().min(1).max(3650).nullable().optional(),
});
export const ZKeyCreated = ZKeySummary.extend({ key: z.string().describe("The key itself: shown this once, stored only as a hash") });

export const ZMember = z.object({ id: z.string(), userId: z.string(), email: z.string(), name: z.string(), role: ZRole.nullable(), createdAt: z.string() });
export const ZMemberList = z.object({ data: z.array(ZMember) });
export const ZMemberRole = z.object({ role: ZRole });

export const ZInvitation = z.object({
  id: z.string(),
  email: z.string(),
  role: ZRole.nullable(),
  status: z.string(),
  expiresAt: z.string(),
  createdAt: z.string(),
  projectId: z.string(),
  projectName: z.string().optional(),
});
export const ZInvitationList = z.object({ data: z.array(ZInvitation) });
export const ZInvitationCreate = z.object({ email: z.string().trim().min(3).max(254), role: ZRole });

export const ZAuditEvent = z.object({ id: z.string(), action: z.string(), actor: z.string(), target: z.string(), details: z.unknown(), createdAt: z.string() });
export const ZAuditList = z.object({ data: z.array(ZAuditEvent) });
