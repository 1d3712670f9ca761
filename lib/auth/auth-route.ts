import "server-only";
import { DomainError } from "../errors/domain-errors";
import { domainErrorResponse, errorBody } from "../api/error-table";
import { PROJECT_COOKIE } from "./access";

// The few /api/auth routes of Memscope's own (first admin, invitation links, project
// switch): same error shape as /api/v1, JSON bodies only.

export function authRoute(handler: (req: Request, params: Record<string, string>) => Promise<Response>) {
  return async (req: Request, ctx: { params?: Promise<Record<string, string>> }): Promise<Response> => {
    try {
      return await handler(req, ctx?.params ? await ctx.params : {});
    } catch (e) {
      if (e instanceof DomainError) return domainErrorResponse(e);
      console.error(`[auth] ${req.method} ${new URL(req.url).pathname}`, e);
      return Response.json(errorBody("internal", "Internal error"), { status: 500 });
    }
  };
}

export async function jsonBody(req: Request): Promise<Record<string, unknown>> {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") {
    throw new DomainError("unsupported_media_type", "unsupported_media_type", "Send the body as application/json", [{ field: "content-type", message: `got ${type || "none"}` }]);
  }
  const text = await req.text();
  if (text.length > 64 * 1024) throw new DomainError("too_large", "payload_too_large", "The request body is too large", [{ field: "body", message: "limit 64 KiB" }]);
  try {
    const v = JSON.parse(text || "{}");
    if (v && typeof v === "object" && !Array.isArray(v)) return v;
  } catch {
    /* answered below */
  }
  throw new DomainError("bad_request", "invalid_json", "The request body is not a JSON object", [{ field: "body", message: "invalid JSON" }]);
}

/** Passes better-auth's Set-Cookie headers on to our own response. */
export function withCookiesOf(from: Response, body: unknown, status = 200): Response {
  const res = Response.json(body, { status });
  for (const c of from.headers.getSetCookie()) res.headers.append("set-cookie", c);
  return res;
}

/** The switcher's choice of project: not a credential, but httpOnly and Lax like the session. */
export function projectCookie(id: string): string {
  const secure = process.env.MEMSCOPE_PUBLIC_URL?.startsWith("https://") ? "; Secure" : "";
  return `${PROJECT_COOKIE}=${encodeURIComponent(id)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000${secure}`;
}
