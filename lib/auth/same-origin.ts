// CSRF: a browser names the page that sent a request (Origin, and in current browsers
// Sec-Fetch-Site). An unsafe request riding on a session cookie must prove it came from
// one of our own pages; a request with no browser headers at all (curl, scripts) carries
// no ambient credentials in open mode, so there only a foreign origin is refused.

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function isUnsafeMethod(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

/** The origins this server answers as: the public URL when set, and the one the request was sent to. */
export function ownOrigins(req: Request, publicUrl?: string): Set<string> {
  const out = new Set<string>();
  if (publicUrl) out.add(new URL(publicUrl).origin);
  const url = new URL(req.url);
  out.add(url.origin);
  const host = req.headers.get("host");
  if (host) out.add(`${url.protocol}//${host}`);
  return out;
}

export type OriginVerdict = "same" | "foreign" | "unknown";

export function requestOrigin(req: Request, publicUrl?: string): OriginVerdict {
  const site = req.headers.get("sec-fetch-site");
  if (site) return site === "same-origin" ? "same" : "foreign";
  const origin = req.headers.get("origin");
  if (origin) return origin !== "null" && ownOrigins(req, publicUrl).has(origin) ? "same" : "foreign";
  return "unknown";
}
