import { z } from "zod";
import { ROLES, SCOPES } from "./roles";

// Shapes of the project administration API (/api/v1/project...): snake_case as the rest of the
// public API. The lib/auth functions behind it keep their own names; lib/auth/project-answers.ts
// turns their rows into these.

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
  created_by: z.string().nullable(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  expires_at: z.string().nullable(),
});
export const ZKeyList = z.object({ data: z.array(ZKeySummary) });
export const ZKeyCreate = z.object({
  name: z.string().trim().min(1).max(80),
  scopes: z.array(ZScope).min(1),
  expires_in_days: z.number().int().min(1).max(3650).nullable().optional(),
});
export const ZKeyCreated = ZKeySummary.extend({ key: z.string().describe("The key itself: shown this once, stored only as a hash") });

export const ZMember = z.object({ id: z.string(), user_id: z.string(), email: z.string(), name: z.string(), role: ZRole.nullable(), created_at: z.string() });
export const ZMemberList = z.object({ data: z.array(ZMember) });
export const ZMemberRole = z.object({ role: ZRole });

export const ZInvitation = z.object({
  id: z.string(),
  email: z.string(),
  role: ZRole.nullable(),
  status: z.string(),
  expires_at: z.string(),
  created_at: z.string(),
  project_id: z.string(),
});
export const ZInvitationList = z.object({ data: z.array(ZInvitation) });
export const ZInvitationCreate = z.object({ email: z.string().trim().min(3).max(254), role: ZRole });

export const ZAuditEvent = z.object({ id: z.string(), action: z.string(), actor: z.string(), target: z.string(), details: z.unknown(), created_at: z.string() });
export const ZAuditList = z.object({ data: z.array(ZAuditEvent) });
