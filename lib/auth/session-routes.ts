import "server-only";
import { ConflictError, ForbiddenError, ValidationError, type DomainError } from "../errors/domain-errors";
import { PROJECT_COOKIE } from "./access";
import { requestOrigin } from "./same-origin";

// What the browser's session routes under /api/auth (first admin, invitation links, project
// switch) share besides withApi and their contracts (lib/api/contracts/auth.ts): cookies to
// set, the same-page rule for their writes, better-auth's refusals in our error shape.

/** Set-Cookie headers to answer with: better-auth's (a new account's session), then ours. */
export function setCookies(from: Response | null, ...more: string[]): Headers {
  const headers = new Headers();
  for (const c of from?.headers.getSetCookie() ?? []) headers.append("set-cookie", c);
  for (const c of more) headers.append("set-cookie", c);
  return headers;
}

/** The switcher's choice of project: not a credential, but httpOnly and Lax like the session. */
export function projectCookie(id: string): string {
  const secure = process.env.MEMSCOPE_PUBLIC_URL?.startsWith("https://") ? "; Secure" : "";
  return `${PROJECT_COOKIE}=${encodeURIComponent(id)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000${secure}`;
}

/** These writes act on the browser's session cookie: only a page of this server may send them. */
export function refuseOtherPages(req: Request): void {
  if (requestOrigin(req, process.env.MEMSCOPE_PUBLIC_URL) !== "same") throw new ForbiddenError("This request did not come from a Memscope page: refused");
}

/**
 * better-auth's refusal of a sign-up ({message, code}) as one of our errors. The routes check
 * the address and password first, so this is a race (the account was made meanwhile) or a rule
 * of better-auth's own.
 */
export async function signUpRefusal(res: Response): Promise<DomainError> {
  const body = (await res.json().catch(() => ({}))) as { message?: unknown; code?: unknown };
  const message = typeof body.message === "string" && body.message ? body.message : `The account could not be created (${res.status})`;
  if (String(body.code ?? "").includes("ALREADY_EXISTS")) return new ConflictError(message, [{ field: "email", message: "account exists" }]);
  return new ValidationError(message, [{ field: "body", message }]);
}
