import { z } from "zod";
import {
  ZAuditList,
  ZCaller,
  ZInvitation,
  ZInvitationCreate,
  ZInvitationList,
  ZKeyCreate,
  ZKeyCreated,
  ZKeyList,
  ZMember,
  ZMemberList,
  ZMemberRole,
  ZProject,
  ZProjectCreate,
  ZProjectList,
} from "../../auth/schemas";
import { contract } from "../contract";
import { ZDateTime } from "../../http/scalars";

// The caller's project: who they are, its keys, members, invitations and audit log.
// The project is the one the key (or the signed-in member's switcher) names.

const ZDemoSeeded = z.object({
  conversations: z.number().int().describe("Demo conversations written"),
  turns: z.number().int().describe("Their turns"),
  memories: z.number().int().describe("Demo memories written (dated 1-60 days back, with logged retrievals)"),
});
const ZKeyParams = z.object({ key_id: z.string().min(1).max(200).describe("API key id") });
const ZMemberParams = z.object({ member_id: z.string().min(1).max(200).describe("Member id") });
const ZInvitationParams = z.object({ invitation_id: z.string().min(1).max(200).describe("Invitation id") });

export const whoAmI = contract({
  tag: "project", method: "GET", path: "/project", scope: "project:read",
  summary: "The caller's project, name and scopes", response: ZCaller,
});
export const renameProject = contract({
  tag: "project", method: "PATCH", path: "/project", scope: "project:admin",
  summary: "Rename the project", body: ZProjectCreate, response: ZProject, errors: [422],
});
export const listProjects = contract({
  tag: "project", method: "GET", path: "/projects", scope: "project:read",
  summary: "Projects the caller can switch to (a key sees only its own)", response: ZProjectList,
});
export const createProject = contract({
  tag: "project", method: "POST", path: "/projects", scope: "project:write",
  summary: "Create a project; the signed-in account becomes its owner (accounts only)", body: ZProjectCreate, response: ZProject, status: 201, errors: [403, 422],
});
export const listKeys = contract({
  tag: "project", method: "GET", path: "/project/keys", scope: "project:admin",
  summary: "API keys of the project: prefix, scopes, creator, last use", response: ZKeyList,
});
export const createKey = contract({
  tag: "project", method: "POST", path: "/project/keys", scope: "project:admin",
  summary: "Create an API key (returned once; stored hashed)", body: ZKeyCreate, response: ZKeyCreated, status: 201, errors: [409, 422],
});
export const revokeKey = contract({
  tag: "project", method: "DELETE", path: "/project/keys/{key_id}", scope: "project:admin",
  summary: "Revoke an API key at once", params: ZKeyParams, status: 204, errors: [404],
});
export const listMembers = contract({
  tag: "project", method: "GET", path: "/project/members", scope: "project:read",
  summary: "Members of the project and their roles", response: ZMemberList,
});
export const changeMemberRole = contract({
  tag: "project", method: "PATCH", path: "/project/members/{member_id}", scope: "project:admin",
  summary: "Change a member's role (owner, admin, member, viewer)", params: ZMemberParams, body: ZMemberRole, response: ZMember, errors: [404, 409, 422],
});
export const removeMember = contract({
  tag: "project", method: "DELETE", path: "/project/members/{member_id}", scope: "project:admin",
  summary: "Remove a member from the project", params: ZMemberParams, status: 204, errors: [404, 409],
});
export const listInvitations = contract({
  tag: "project", method: "GET", path: "/project/invitations", scope: "project:admin",
  summary: "Open invitation links", response: ZInvitationList,
});
export const createInvitation = contract({
  tag: "project", method: "POST", path: "/project/invitations", scope: "project:admin",
  summary: "Create an invitation link for an email address and role (no mail is sent: copy the link)", body: ZInvitationCreate, response: ZInvitation, status: 201, errors: [409, 422],
});
export const cancelInvitation = contract({
  tag: "project", method: "DELETE", path: "/project/invitations/{invitation_id}", scope: "project:admin",
  summary: "Cancel an invitation link", params: ZInvitationParams, status: 204, errors: [404],
});
export const listAuditEvents = contract({
  tag: "project", method: "GET", path: "/project/audit", scope: "project:admin",
  summary: "Keys created and revoked, members added, removed and re-roled: newest first",
  query: z.object({ before: ZDateTime.optional(), limit: z.coerce.number().int().min(1).max(500).optional() }),
  response: ZAuditList, errors: [422],
});

export const loadDemo = contract({
  tag: "project", method: "POST", path: "/project/demo", scope: "project:admin",
  summary: "Fill this empty project with the demo data: conversations, memories with their history and retrievals, an agent profile and its incidents (409 project_not_empty when it holds conversations or memories)",
  response: ZDemoSeeded, status: 201, errors: [409],
});

export const PROJECT_CONTRACTS = [
  whoAmI, renameProject, listProjects, createProject, listKeys, createKey, revokeKey,
  listMembers, changeMemberRole, removeMember, listInvitations, createInvitation, cancelInvitation, listAuditEvents, loadDemo,
];
