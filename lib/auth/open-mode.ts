import type { Env } from "./roles";
// "Open" mode: no account exists yet (and no MEMSCOPE_API_KEY), the server listens on
// 127.0.0.1 only and anyone on this machine may use it. The Host check stops a web page
// that rebinds its own domain name to 127.0.0.1 from talking to it.

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function isLocalHostHeader(host: string | null): boolean {
  if (!host) return false;
  const name = host.replace(/:\d+$/, "").toLowerCase();
  return LOCAL_HOSTS.has(name);
}

export function authDisabled(env: Env = process.env): boolean {
  return env.MEMSCOPE_AUTH?.trim().toLowerCase() === "off";
}
