import { createAccessControl } from "better-auth/plugins/access";

// Project roles (a project is a better-auth organization). The library does not check
// role names given to addMember/updateMemberRole against these, so parseRole does.

export const ROLES = ["owner", "admin", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/** What a key or member may do: `read` < `write` < `admin` (a key lists its grants as its `scopes`). */
export const SCOPES = ["read", "write", "admin"] as const;
export type Grant = (typeof SCOPES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

export function isGrant(value: unknown): value is Grant {
  return typeof value === "string" && (SCOPES as readonly string[]).includes(value);
}

/** What a member of a role may do through the API. */
export function grantsForRole(role: Role): Grant[] {
  switch (role) {
    case "owner":
    case "admin":
      return ["read", "write", "admin"];
    case "member":
      return ["read", "write"];
    case "viewer":
      return ["read"];
  }
}

/** A stored role string (possibly "member,viewer" as the library allows) to its strongest known role. */
export function strongestRole(stored: string): Role | null {
  const parts = stored.split(",").map((s) => s.trim());
  for (const r of ROLES) if (parts.includes(r)) return r;
  return null;
}

const statements = {
  organization: ["update", "delete"],
  member: ["create", "update", "delete"],
  invitation: ["create", "cancel"],
  ac: ["create", "read", "update", "delete"],
  apiKey: ["create", "read", "update", "delete"],
} as const;

export const accessControl = createAccessControl(statements);

const manage = {
  member: ["create", "update", "delete"],
  invitation: ["create", "cancel"],
  ac: ["read"],
  apiKey: ["create", "read", "update", "delete"],
} as const;

export const roleDefinitions = {
  owner: accessControl.newRole({ ...manage, organization: ["update", "delete"] }),
  admin: accessControl.newRole({ ...manage, organization: ["update"] }),
  member: accessControl.newRole({}),
  viewer: accessControl.newRole({}),
};

/** Environment variables as read here (process.env, or a plain object in tests). */
export type Env = Record<string, string | undefined>;
