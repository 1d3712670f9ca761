// A tiny HTTP client for API tests: real fetches against the real server.
export type Res<T = any> = { status: number; body: T };

export function apiClient(base: string, headers: Record<string, string> = {}) {
  async function call<T = any>(method: string, path: string, body?: unknown, raw?: string): Promise<Res<T>> {
    const r = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  }
  return {
    get: <T = any>(p: string) => call<T>("GET", p),
    post: <T = any>(p: string, b?: unknown) => call<T>("POST", p, b),
    patch: <T = any>(p: string, b?: unknown) => call<T>("PATCH", p, b),
    put: <T = any>(p: string, b?: unknown) => call<T>("PUT", p, b),
    del: <T = any>(p: string) => call<T>("DELETE", p),
    raw: <T = any>(method: string, p: string, raw: string) => call<T>(method, p, undefined, raw),
  };
}
