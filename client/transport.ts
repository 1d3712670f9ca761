// The browser's one way to call the server. /api/v1 goes through openapi-fetch typed by the
// generated OpenAPI `paths` (the SDK's own types, sdk/typescript/src/openapi.ts): a path, its
// parameters, its body and its answer are checked against the contracts, not asserted.
// better-auth's /api/auth endpoints are not in that document; `authCall` reaches them with the
// same error shape.
import createClient from "openapi-fetch";
import type { paths } from "@/sdk/typescript/src/openapi";
import { ApiError, detailSuffix, type ApiErrorDetail } from "./api-error";

export type { paths };

export const API_BASE = "/api/v1";

/** Empty filters are left out, so the server's defaults apply (`?memory_type=` would be a 422). */
function querySerializer(query: Record<string, unknown>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === "") continue;
    qs.set(k, String(v));
  }
  return qs.toString();
}

/**
 * The typed client. Its base is resolved against the page's origin at each call, so the same
 * module serves the browser and a hook test whose document is set to a test server's address.
 */
export const api = createClient<paths>({ baseUrl: API_BASE, querySerializer });

type ErrorBody = { error?: { code?: string; message?: string; details?: ApiErrorDetail[] }; message?: string };
type Answer<D> = { data?: D; error?: unknown; response: Response };

function toApiError(response: Response, body: unknown, detailsApart: boolean): ApiError {
  const b = (typeof body === "object" && body ? body : {}) as ErrorBody;
  const details = b.error?.details ?? [];
  // Our routes answer {error: {code, message, details}}; better-auth's own {message, code}.
  const base = b.error?.message ?? b.message ?? `${response.status} ${response.statusText || "request failed"}`;
  // detailsApart: the caller shows each field's message next to its field (the inspector's forms).
  return new ApiError(detailsApart ? base : `${base}${detailSuffix(base, details)}`, response.status, b.error?.code ?? "http_error", details);
}

/**
 * The answer's data, or a thrown ApiError carrying the API's own message, code and details (an
 * error state can then say what went wrong). A fetch that could not reach the server is a
 * `network_error`; an aborted one rethrows the abort so TanStack Query drops it quietly.
 */
export async function ok<D>(pending: Promise<Answer<D>>, opts: { detailsApart?: boolean } = {}): Promise<D> {
  let answer: Answer<D>;
  try {
    answer = await pending;
  } catch (e) {
    if ((e as Error).name === "AbortError") throw e;
    throw new ApiError("Could not reach the server. Is it running?", 0, "network_error");
  }
  if (!answer.response.ok) throw toApiError(answer.response, answer.error, !!opts.detailsApart);
  return answer.data as D;
}

/** One call to better-auth's /api/auth (sign-in, state, invitations, project switch). */
export async function authCall<T>(method: "GET" | "POST", path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/api/auth${path}`, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError("Could not reach the server. Is it running?", 0, "network_error");
  }
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (a proxy's error page): the status says it.
  }
  if (!res.ok) throw toApiError(res, json, true);
  return json as T;
}
