import "server-only";
import { timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { ApiError } from "./api-error";
import { ProviderError } from "../embeddings/openai-embedder";

// The one wrapper every /api/v1 route goes through: auth, body and query parsing,
// and the error shape. Handlers throw ApiError (or a ZodError) and return data.

export const MAX_BODY_BYTES = 25 * 1024 * 1024;

type Ctx<P> = { params: Promise<P> };
export type ApiRequest<P> = { req: Request; params: P; url: URL };
type Handler<P> = (r: ApiRequest<P>) => Promise<Response | unknown>;

export function json(data: unknown, status = 200): Response {
  return Response.json(data, { status });
}

export function errorResponse(e: ApiError): Response {
  return json({ error: { code: e.code, message: e.message, details: e.details } }, e.status);
}

function zodToApiError(e: z.ZodError, where: "body" | "query"): ApiError {
  const details = e.issues.map((i) => ({
    field: i.path.length ? i.path.map(String).join(".").replace(/\.(\d+)(?=\.|$)/g, "[$1]") : where,
    message: i.message,
    code: i.code,
  }));
  const first = details[0];
  return new ApiError(422, "validation_error", `Invalid ${where}: ${first.field}: ${first.message}`, details);
}

function checkAuth(req: Request) {
  const key = process.env.MEMSCOPE_API_KEY;
  if (!key) return;
  const header = req.headers.get("authorization") ?? "";
  const given = header.startsWith("Bearer ") ? header.slice(7) : (req.headers.get("x-api-key") ?? "");
  const a = Buffer.from(given);
  const b = Buffer.from(key);
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    throw new ApiError(401, "unauthorized", "Missing or wrong API key (Authorization: Bearer <MEMSCOPE_API_KEY>)");
  }
}

export function withApi<P = Record<string, never>>(handler: Handler<P>, opts: { public?: boolean } = {}) {
  return async (req: Request, ctx: Ctx<P>): Promise<Response> => {
    try {
      if (!opts.public) checkAuth(req);
      const params = ctx?.params ? await ctx.params : ({} as P);
      const out = await handler({ req, params, url: new URL(req.url) });
      return out instanceof Response ? out : json(out);
    } catch (e) {
      if (e instanceof ApiError) return errorResponse(e);
      if (e instanceof z.ZodError) return errorResponse(zodToApiError(e, "body"));
      // An embedding or chat endpoint failed: the fault is upstream, not in the request.
      if (e instanceof ProviderError) return errorResponse(new ApiError(502, "provider_error", e.message));
      console.error(`[api] ${req.method} ${req.url}`, e);
      return json({ error: { code: "internal", message: "Internal error", details: [] } }, 500);
    }
  };
}

/** Reads and parses a JSON body with a size limit; bad JSON is a 400, a bad shape a 422. */
export async function parseBody<S extends z.ZodType>(
  req: Request,
  schema: S,
  maxBytes = MAX_BODY_BYTES,
  opts: { optional?: boolean } = {},
): Promise<z.infer<S>> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const text = await readLimited(req, maxBytes);
  let raw: unknown;
  try {
    raw = text.length ? JSON.parse(text) : undefined;
  } catch {
    throw new ApiError(400, "invalid_json", "The request body is not valid JSON", [{ field: "body", message: "invalid JSON" }]);
  }
  if (raw === undefined && opts.optional) raw = {};
  if (raw === undefined) throw new ApiError(400, "invalid_json", "A JSON body is required", [{ field: "body", message: "empty body" }]);
  const r = schema.safeParse(raw);
  if (!r.success) throw zodToApiError(r.error, "body");
  return r.data;
}

export function parseQuery<S extends z.ZodType>(url: URL, schema: S): z.infer<S> {
  const raw: Record<string, string> = {};
  for (const [k, v] of url.searchParams) raw[k] = v;
  const r = schema.safeParse(raw);
  if (!r.success) throw zodToApiError(r.error, "query");
  return r.data;
}

export function parseId(value: string, what = "id"): string {
  const r = z.uuid().safeParse(value);
  if (!r.success) throw new ApiError(404, "not_found", `No ${what} ${value}`, [{ field: what, message: "not a uuid" }]);
  return r.data;
}

function tooLarge(maxBytes: number) {
  return new ApiError(413, "payload_too_large", `The request body is over ${Math.round(maxBytes / 1024 / 1024)} MiB`, [
    { field: "body", message: `limit ${maxBytes} bytes` },
  ]);
}

async function readLimited(req: Request, maxBytes: number): Promise<string> {
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A user id from the path: any non-empty string up to 200 characters. */
export function parseUserId(value: string): string {
  const v = value.trim();
  if (!v || v.length > 200) throw new ApiError(422, "validation_error", "Invalid user_id", [{ field: "user_id", message: "1 to 200 characters" }]);
  return v;
}
