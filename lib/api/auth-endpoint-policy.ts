import "server-only";
import { errorBody } from "./error-table";

// Which of better-auth's own HTTP endpoints a request may reach at /api/auth/*.
//
// Keys, members, invitations, roles and projects change only through Memscope's contracts
// (/api/v1/project/*, /api/auth/invitation/{id}), which check the role rules, keep key scopes
// and record who did it in the audit log. better-auth's plugins publish endpoints for the same
// changes (api-key/create, organization/invite-member, update-member-role, ...) that do none
// of that, and answer 403 for another project's id where a fresh id gets 404. Memscope calls
// better-auth server-side (auth.api.*), which does not go through this gate, so over HTTP only
// what the browser itself calls is let through: an allow-list, so that an endpoint a
// better-auth upgrade adds stays shut until someone decides it should be open.

export const AUTH_BASE_PATH = "/api/auth";

/** "METHOD /path below /api/auth" the pages call (components/auth/*, settings/project-settings.tsx). */
export const OPEN_AUTH_ENDPOINTS: ReadonlySet<string> = new Set([
  "POST /sign-in/email",
  // Single sign-on (lib/auth/oidc-config.ts): the sign-in button, the provider's redirect back
  // (GET, or POST for a form_post response), and better-auth's page for a failed sign-in.
  "POST /sign-in/social",
  "GET /callback/oidc",
  "POST /callback/oidc",
  "GET /error",
  "POST /sign-out",
  "POST /change-password",
]);

/** The endpoint a request names, as "METHOD /path" below /api/auth; null outside it. */
export function authEndpointOf(req: Request): string | null {
  const path = new URL(req.url).pathname;
  if (!path.startsWith(`${AUTH_BASE_PATH}/`)) return null;
  return `${req.method.toUpperCase()} ${path.slice(AUTH_BASE_PATH.length)}`;
}

/**
 * Null when better-auth may answer the request; otherwise the 404 to send. A shut endpoint
 * answers exactly like a path that never existed, whatever ids the request names, so it tells
 * nobody whether another project's key or invitation exists.
 */
export function refuseShutAuthEndpoint(req: Request): Response | null {
  const endpoint = authEndpointOf(req);
  if (endpoint && OPEN_AUTH_ENDPOINTS.has(endpoint)) return null;
  const path = new URL(req.url).pathname;
  return Response.json(errorBody("not_found", `No API route ${path}`, [{ field: "path", message: "no such route" }]), { status: 404 });
}
