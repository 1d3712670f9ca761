import type { Env } from "./roles";
import { timingSafeEqual } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client";
import { ForbiddenError, NotFoundError, RateLimitedError } from "../errors/domain-errors";
import type { Auth } from "./create-auth";
import { authDisabled, isLocalHostHeader } from "./open-mode";
import { KeyRateLimiter, readRateLimit } from "./rate-limit";
import { isGrant, grantsForRole, SCOPES, strongestRole, type Grant } from "./roles";
import { isUnsafeMethod, requestOrigin } from "./same-origin";
import { verifyProjectKey } from "./verify-project-key";
import { noAccountYet } from "./account-presence";

export { anyAccountExists, NO_ACCOUNT_RECHECK_MS } from "./account-presence";

// Who is asking, for which project, allowed to do what. One function the API wrapper
// calls with the request; null means "no usable credentials" (401). Everything it needs
// comes in `deps`, so tests drive it with a real database and plain Request objects.

export type Access = {
  projectId: string;
  scopes: Grant[];
  actor: { kind: "key" | "account" | "bootstrap" | "open"; label: string; id?: string };
};

export type AccessDeps = {
  auth: Auth;
  prisma: PrismaClient;
  env?: Env;
  limiter: KeyRateLimiter;
  /**
   * How long the open-mode check may keep "no account yet" between requests (noAccountYet):
   * only where this process is the database's only writer (the embedded folder is locked to
   * one process), else 0 (read on every request).
   */
  noAccountRecheckMs?: number;
};

export const PROJECT_HEADER = "x-memscope-project";
export const PROJECT_COOKIE = "memscope_project";
export { DEFAULT_PROJECT_ID } from "../db/project-sql";
import { DEFAULT_PROJECT_ID } from "../db/project-sql";
/** Key permissions are stored as {api: ["read", ...]}. */
export const KEY_PERMISSION = "api";

export async function resolveAccessWith(deps: AccessDeps, req: Request): Promise<Access | null> {
  const env = deps.env ?? process.env;
  const publicUrl = env.MEMSCOPE_PUBLIC_URL?.trim() || undefined;
  const bearer = readBearer(req);
  if (bearer !== null) return keyAccess(deps, env, bearer);

  // A session comes only from its cookie (no bearer plugin): without a Cookie header there is none to look up.
  const session = req.headers.has("cookie") ? await deps.auth.api.getSession({ headers: req.headers }).catch(() => null) : null;
  if (session) {
    if (isUnsafeMethod(req.method) && requestOrigin(req, publicUrl) !== "same") {
      throw new ForbiddenError("This request did not come from a Memscope page (Origin / Sec-Fetch-Site): refused");
    }
    return accountAccess(deps, req, session.user.id, session.user.email, session.session.activeOrganizationId ?? null);
  }

  if (authDisabled(env) || (!env.MEMSCOPE_API_KEY && (await noAccountYet(deps.prisma, deps.noAccountRecheckMs ?? 0)))) {
    if (!authDisabled(env) && !isLocalHostHeader(req.headers.get("host"))) return null;
    // No credentials exist to steal here, but a foreign page in this machine's browser must still not write.
    if (isUnsafeMethod(req.method) && requestOrigin(req, publicUrl) === "foreign") {
      throw new ForbiddenError("This request came from another site's page: refused");
    }
    const projectId = (await requestedProject(deps.prisma, req)) ?? DEFAULT_PROJECT_ID;
    return {
      projectId,
      scopes: [...SCOPES],
      actor: { kind: "open", label: authDisabled(env) ? "MEMSCOPE_AUTH=off" : "this machine (no accounts yet)" },
    };
  }
  return null;
}

/** The bearer token, "" for an Authorization header of another kind, null without one. */
export function readBearer(req: Request): string | null {
  // One documented way in: Authorization: Bearer (x-api-key is not read).
  const header = req.headers.get("authorization");
  if (!header) return null;
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  return m ? m[1].trim() : "";
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Whether `key` is MEMSCOPE_API_KEY (compared in constant time). */
export function isBootstrapKey(key: string, env: Env = process.env): boolean {
  const bootstrap = env.MEMSCOPE_API_KEY?.trim();
  return !!key && !!bootstrap && sameSecret(key, bootstrap);
}

async function keyAccess(deps: AccessDeps, env: Env, key: string): Promise<Access | null> {
  if (!key) return null;
  if (isBootstrapKey(key, env)) {
    return { projectId: DEFAULT_PROJECT_ID, scopes: [...SCOPES], actor: { kind: "bootstrap", label: "MEMSCOPE_API_KEY" } };
  }
  const k = await verifyProjectKey(deps.prisma, key);
  if (!k) return null;
  const decision = deps.limiter.take(k.id, readRateLimit(env));
  if (!decision.ok) {
    throw new RateLimitedError(`Key "${k.name}" is over its request limit; retry in ${decision.retryAfterSeconds} s`, decision.retryAfterSeconds);
  }
  return { projectId: k.referenceId, scopes: keyScopes(k.permissions), actor: { kind: "key", label: k.name ?? k.start ?? "API key", id: k.id } };
}

export function keyScopes(permissions: unknown): Grant[] {
  const parsed = typeof permissions === "string" ? safeJson(permissions) : permissions;
  const list = (parsed as Record<string, unknown> | null)?.[KEY_PERMISSION];
  return Array.isArray(list) ? SCOPES.filter((s) => list.includes(s) && isGrant(s)) : [];
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}

/** The project a browser asked for (header from the client, else the switcher's cookie). */
function requestedProjectId(req: Request): string | null {
  const header = req.headers.get(PROJECT_HEADER)?.trim();
  if (header) return header.slice(0, 200);
  const cookie = req.headers.get("cookie") ?? "";
  const m = new RegExp(`(?:^|;\\s*)${PROJECT_COOKIE}=([^;]+)`).exec(cookie);
  return m ? decodeURIComponent(m[1]).slice(0, 200) : null;
}

async function requestedProject(prisma: PrismaClient, req: Request): Promise<string | null> {
  const id = requestedProjectId(req);
  if (!id) return null;
  const p = await prisma.organization.findUnique({ where: { id }, select: { id: true } });
  if (!p) throw new NotFoundError("Project", id, "project");
  return p.id;
}

async function accountAccess(deps: AccessDeps, req: Request, userId: string, email: string, active: string | null): Promise<Access> {
  const asked = requestedProjectId(req) ?? active;
  const membership = asked
    ? await deps.prisma.member.findFirst({ where: { userId, organizationId: asked } })
    : await deps.prisma.member.findFirst({ where: { userId }, orderBy: { createdAt: "asc" } });
  if (!membership) {
    // Another project's data looks the same as no data: 404, never 403.
    if (asked) throw new NotFoundError("Project", asked, "project");
    throw new ForbiddenError("Your account is not a member of any project yet: ask an admin for an invitation");
  }
  const role = strongestRole(membership.role);
  return {
    projectId: membership.organizationId,
    scopes: role ? grantsForRole(role) : [],
    actor: { kind: "account", label: email, id: userId },
  };
}
