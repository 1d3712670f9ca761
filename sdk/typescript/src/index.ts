import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { components, operations, paths } from "./openapi.js";

export type { components, operations, paths };
export type MemscopeClient = Client<paths>;
export type ApiError = components["schemas"]["Error"];

export type MemscopeOptions = {
  /** Where Memscope runs, e.g. http://localhost:3000 (the client adds /api/v1). */
  baseUrl: string;
  /** An API key (Authorization: Bearer). Leave out for an open local server. */
  apiKey?: string;
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: typeof fetch;
};

/**
 * A typed client for the Memscope API: every path, parameter, body and answer is typed
 * from the OpenAPI document.
 *
 *   const memscope = createMemscope({ baseUrl: "http://localhost:3000", apiKey });
 *   const { data, error } = await memscope.GET("/conversations/{id}/history", {
 *     params: { path: { id }, query: { max_token_limit: 2000 } },
 *   });
 */
export function createMemscope(opts: MemscopeOptions): MemscopeClient {
  const client = createClient<paths>({
    baseUrl: `${opts.baseUrl.replace(/\/+$/, "")}/api/v1`,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  if (opts.apiKey) {
    const auth: Middleware = {
      onRequest({ request }) {
        request.headers.set("authorization", `Bearer ${opts.apiKey}`);
        return request;
      },
    };
    client.use(auth);
  }
  return client;
}

/** The answer's data, or a thrown Error carrying the API's error code and status. */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || data === undefined) {
    const e = (error as ApiError | undefined)?.error;
    throw Object.assign(new Error(e ? `${response.status} ${e.code}: ${e.message}` : `${response.status} ${response.statusText}`), {
      status: response.status,
      code: e?.code,
      details: e?.details ?? [],
    });
  }
  return data;
}
