// Typed fetch helper for client components. Throws ApiError carrying the API's own
// message so error states can show what actually went wrong.

export const API_BASE = "/api/v1";

export type ApiErrorDetail = { field?: string; message: string };

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly details: ApiErrorDetail[] = [],
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export type Params = Record<string, string | number | boolean | null | undefined>;

/** Builds `/api/v1{path}?…`, leaving out empty params so defaults apply server-side. */
export function apiUrl(path: string, params?: Params): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) {
    if (v === undefined || v === null || v === "") continue;
    qs.set(k, String(v));
  }
  const s = qs.toString();
  return `${API_BASE}${path}${s ? `?${s}` : ""}`;
}

/**
 * The details worth appending to an error message: not those it already says
 * ("Invalid query: leaf: Invalid UUID" + "leaf: Invalid UUID"), nor a bare "unknown id" next to "… does not exist".
 */
export function detailSuffix(message: string, details: ApiErrorDetail[]): string {
  const extra = details
    .map((d) => (d.field ? `${d.field}: ${d.message}` : d.message))
    .filter((t, i) => !message.includes(t) && !message.includes(details[i].message) && details[i].message !== "unknown id");
  const unique = [...new Set(extra)];
  return unique.length ? ` (${unique.join("; ")})` : "";
}

/** A client error (4xx) will not change on retry: no "Try again" for it. */
export function isClientError(e: unknown): boolean {
  return e instanceof ApiError && e.status >= 400 && e.status < 500;
}

/** One API call; `text: true` returns a successful body as text (markdown exports). */
export async function request<T>(
  method: string,
  path: string,
  opts: { params?: Params; body?: unknown; signal?: AbortSignal; text?: boolean; detailsApart?: boolean } = {},
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(apiUrl(path, opts.params), {
      method,
      signal: opts.signal,
      headers: opts.body === undefined ? undefined : { "content-type": "application/json" },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
  } catch (e) {
    if ((e as Error).name === "AbortError") throw e;
    throw new ApiError("Could not reach the server. Is it running?", 0, "network_error");
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  if (res.ok && opts.text) return text as T;
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    // Non-JSON body (e.g. a proxy error page): fall through with the status text.
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string; details?: ApiErrorDetail[] } } | undefined)?.error;
    const base = err?.message ?? `${res.status} ${res.statusText || "request failed"}`;
    throw new ApiError(
      // detailsApart: the caller shows each field's message next to its field (the inspector's forms).
      opts.detailsApart ? base : `${base}${detailSuffix(base, err?.details ?? [])}`,
      res.status,
      err?.code ?? "http_error",
      err?.details ?? [],
    );
  }
  return json as T;
}

/** The one fetch layer of the client: every component and hook calls the API through this. */
export const api = {
  get: <T>(path: string, params?: Params, signal?: AbortSignal) => request<T>("GET", path, { params, signal }),
  /** A successful body as text (markdown exports). */
  text: (path: string, params?: Params, signal?: AbortSignal) => request<string>("GET", path, { params, signal, text: true }),
  post: <T>(path: string, body: unknown = {}, params?: Params, opts: { signal?: AbortSignal; detailsApart?: boolean } = {}) =>
    request<T>("POST", path, { body, params, ...opts }),
  put: <T>(path: string, body: unknown, opts: { detailsApart?: boolean } = {}) => request<T>("PUT", path, { body, ...opts }),
  patch: <T>(path: string, body: unknown) => request<T>("PATCH", path, { body }),
  delete: <T = void>(path: string, params?: Params) => request<T>("DELETE", path, { params }),
};

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
