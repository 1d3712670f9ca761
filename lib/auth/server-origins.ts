import { networkInterfaces } from "node:os";
import type { Env } from "./roles";

// The origins this server is reached at, which better-auth trusts for cookie-carrying writes
// (sign-out, profile, projects, keys). Derived from where serve.mjs listens (HOST, PORT), never
// from the request: Next.js rewrites 127.0.0.1 to localhost in request.url, so an origin read
// from there refused sign-out to a browser on http://127.0.0.1:3000, the address `npm start`
// prints. A loopback listener is reached as 127.0.0.1, localhost and [::1]; 0.0.0.0 or :: also
// at every address of this machine; any other HOST at that name. MEMSCOPE_PUBLIC_URL (a proxy's
// address, a DNS name) comes on top.

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];
const WILDCARDS = new Set(["0.0.0.0", "::", "[::]"]);

function bracketed(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

function isLoopbackListen(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\./.test(host);
}

/** This machine's own interface addresses (for a server listening on every interface). */
function interfaceAddresses(): string[] {
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      // Link-local IPv6 needs a zone (%eth0), which no browser puts in an Origin.
      if (a.family === "IPv6" && (a.scopeid ?? 0) !== 0) continue;
      out.push(bracketed(a.address));
    }
  }
  return out;
}

/** host:port values the server answers on, most usual first. */
export function serverHosts(env: Env = process.env): string[] {
  const port = Number(env.PORT?.trim() || 3000);
  const host = env.HOST?.trim().toLowerCase() || "127.0.0.1";
  const names = new Set<string>();
  if (isLoopbackListen(host) || WILDCARDS.has(host)) for (const n of LOOPBACK_NAMES) names.add(n);
  if (isLoopbackListen(host)) names.add(bracketed(host));
  if (WILDCARDS.has(host)) for (const a of interfaceAddresses()) names.add(a);
  else names.add(bracketed(host));
  return [...names].map((n) => `${n}:${port}`);
}

/** Every origin a Memscope page may be served from: the listener's, plus MEMSCOPE_PUBLIC_URL's. */
export function serverOrigins(env: Env = process.env): string[] {
  const out = serverHosts(env).map((h) => `http://${h}`);
  const publicUrl = env.MEMSCOPE_PUBLIC_URL?.trim();
  if (publicUrl) out.unshift(new URL(publicUrl).origin);
  return [...new Set(out)];
}
