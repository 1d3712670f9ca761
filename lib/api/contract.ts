import { z } from "zod";
import type { Grant } from "../auth/roles";

// A route's contract: what it takes, what it gives, who may call it. Route handlers pass
// their contract to `withApi`, which parses and checks with exactly these schemas, and the
// OpenAPI document is generated from the same objects, so the two cannot drift.

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type Resource = "conversations" | "memories" | "context" | "settings" | "embeddings" | "imports" | "project";
export type { Grant };
/** A route's need: public, or a grant (the resource names the tag; the grant alone is checked). */
export type Scope = "public" | `${Resource}:${Grant}`;

export type ApiContract = {
  method: Method;
  /** OpenAPI path under its server (`server`, else /api/v1), with {params}. */
  path: string;
  /**
   * The prefix the path sits under when it is not /api/v1: "/api" for the browser's session
   * routes (/api/auth/*), which better-auth's handler shares and the API keys' clients never call.
   * The OpenAPI document gives such a path its own `servers`.
   */
  server?: "/api";
  summary: string;
  description?: string;
  tag: string;
  scope: Scope;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** A body the handler reads itself as a byte stream (an uploaded file), of this content type. */
  rawBody?: { contentType: string; description: string };
  /** A POST without a body means `{}`. */
  bodyOptional?: boolean;
  /** Bytes; the default is MAX_BODY_BYTES. */
  bodyLimit?: number;
  /** The success body; absent for 204. */
  response?: z.ZodType;
  /** The success status (default 200). */
  status?: number;
  /** Other success statuses the handler may choose with `reply()` (same response schema). */
  alsoStatus?: number[];
  /** Content type of a non-JSON success body (the response schema then describes a string). */
  produces?: string;
  /** Error statuses the handler itself can answer, besides those every route can (400, 401, 403, 404 of a project, 413, 415, 429; 422 for a path, query or body field its schema refuses; 503 database_busy). */
  errors?: number[];
};

export function contract<const C extends ApiContract>(c: C): C {
  return c;
}

/** The URL path a contract answers at, with {params}: /api/v1/conversations/{id}, /api/auth/state. */
export const urlPathOf = (c: Pick<ApiContract, "path" | "server">) => `${c.server ?? "/api/v1"}${c.path}`;

export function grantOf(scope: Scope): Grant | null {
  return scope === "public" ? null : (scope.split(":")[1] as Grant);
}

export const page = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), next_cursor: z.string().nullable() });

/** Path ids: a malformed id names nothing, so it is a 404 like an unknown one. */
const ID_PARAMS = new WeakMap<z.ZodType, string>();
export function pathId(what: string): z.ZodString {
  const s = z.string().describe(`${what} id (uuid)`);
  ID_PARAMS.set(s, what);
  return s;
}
export function idParamLabel(s: z.ZodType): string | undefined {
  return ID_PARAMS.get(s);
}

// The user id of a path lives with the memories (lib/privacy reads it too, below lib/api).
export { ZPathUserId } from "../memories/schemas";
