import { z } from "zod";
import { ZProject, ZRole, ZScope } from "../../auth/schemas";
import { contract } from "../contract";

// The browser's session routes of Memscope's own under /api/auth (better-auth's endpoints
// share the prefix: app/api/auth/[...all]). They are public (no key grants them): each
// handler decides from the session, the Origin and the bootstrap key. Bodies are small forms.

const AUTH_BODY_LIMIT = 64 * 1024;
const auth = { tag: "auth", server: "/api", scope: "public" } as const;

const ZModeState = z.enum(["open", "off", "signed-in", "signed-out"]);

export const ZAuthState = z.object({
  mode: ZModeState.describe("open: no account yet, this machine only; off: MEMSCOPE_AUTH=off; signed-in; signed-out"),
  user: z.object({ email: z.string(), name: z.string() }).nullable(),
  project: ZProject.nullable().describe("The project the switcher chose (cookie), else the first"),
  projects: z.array(ZProject),
  scopes: z.array(ZScope).describe("What the caller may do in `project`"),
  needs_bootstrap_key: z.boolean().describe("MEMSCOPE_API_KEY is set: creating the first admin needs it"),
  sso: z.object({ name: z.string() }).nullable(),
});

export const authState = contract({
  ...auth, method: "GET", path: "/auth/state",
  summary: "What the browser shows: signed in or not, the open-mode banner, projects for the switcher",
  response: ZAuthState,
});

export const firstAdminState = contract({
  ...auth, method: "GET", path: "/auth/first-admin",
  summary: "Whether the first admin exists, and whether making it needs the bootstrap key",
  response: z.object({ account_exists: z.boolean(), needs_bootstrap_key: z.boolean() }),
});

export const ZNewAccount = z.object({
  email: z.string().max(254).describe("The account's email (normalized to lower case)"),
  password: z.string().describe("10 to 128 characters"),
  name: z.string().max(1000).optional().describe("Shown name (first 100 characters); default: the email's local part"),
});

export const createFirstAdmin = contract({
  ...auth, method: "POST", path: "/auth/first-admin",
  summary: "Create the first admin (owner of project default) and sign it in",
  description:
    "Only while no account exists. With MEMSCOPE_API_KEY set, send it as `Authorization: Bearer`: a wrong one counts against the " +
    "same per-address limit as wrong API keys (429 with Retry-After). Without it, only a page of this server on this machine may call.",
  body: ZNewAccount, bodyLimit: AUTH_BODY_LIMIT,
  response: z.object({ id: z.string(), email: z.string(), project: z.string(), role: ZRole }),
  status: 201, errors: [403, 409, 422, 429],
});

const ZLinkParams = z.object({ id: z.string().min(1).max(200).describe("The invitation link's id (its secret)") });

export const viewInvitationLink = contract({
  ...auth, method: "GET", path: "/auth/invitation/{id}",
  summary: "What the accept page shows the holder of an invitation link",
  params: ZLinkParams,
  response: z.object({ email: z.string(), role: ZRole.nullable(), project_name: z.string(), has_account: z.boolean() }),
  errors: [404],
});

export const acceptInvitationLink = contract({
  ...auth, method: "POST", path: "/auth/invitation/{id}",
  summary: "Accept an invitation: signed in as the invited address (200), or by creating that account (201, signed in)",
  params: ZLinkParams,
  body: ZNewAccount.omit({ email: true }).partial(), bodyOptional: true, bodyLimit: AUTH_BODY_LIMIT,
  response: z.object({ project_id: z.string(), role: ZRole }),
  alsoStatus: [201], errors: [403, 404, 409, 422],
});

export const switchProject = contract({
  ...auth, method: "POST", path: "/auth/project",
  summary: "Choose the project the browser works in (an httpOnly cookie), if the signed-in account is a member",
  body: z.object({ project_id: z.string().trim().min(1, "required").max(200) }), bodyLimit: AUTH_BODY_LIMIT,
  response: z.object({ project_id: z.string() }),
  errors: [403, 404, 422],
});

export const AUTH_CONTRACTS = [authState, firstAdminState, createFirstAdmin, viewInvitationLink, acceptInvitationLink, switchProject];
