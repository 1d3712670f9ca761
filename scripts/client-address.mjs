// Who is on the other end of a request, for the rate limits (lib/auth/sign-in-throttle.ts,
// lib/auth/resolve-access.ts) and better-auth's session records. It is the TCP peer's address,
// which no client can choose. X-Forwarded-For is read only when that peer is a proxy listed in
// MEMSCOPE_TRUSTED_PROXIES, and then only as far as the chain stays inside the listed proxies:
// the rightmost address a listed proxy did not add is the client. Anything a client writes in
// that header itself stays left of it and is never read.
import net from "node:net";

/** The header serve.mjs sets on every request (after dropping any copy the client sent). */
export const CLIENT_ADDRESS_HEADER = "x-memscope-client-address";

/** "::ffff:10.0.0.1" (an IPv4 client on a dual-stack socket) is 10.0.0.1. */
function plain(address) {
  const a = address.trim();
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  return m ? m[1] : a.toLowerCase();
}

/**
 * MEMSCOPE_TRUSTED_PROXIES: addresses or CIDR ranges, comma-separated ("10.0.0.0/8, ::1").
 * Returns a net.BlockList of them, or throws naming the entry that is neither.
 */
export function parseTrustedProxies(raw) {
  const list = new net.BlockList();
  for (const entry of (raw ?? "").split(",").map((s) => s.trim()).filter(Boolean)) {
    const [addr, prefix, extra] = entry.split("/");
    const family = net.isIP(plain(addr));
    const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix);
    if (!family || extra !== undefined || !/^\d+$/.test(prefix ?? String(bits)) || bits > (family === 4 ? 32 : 128)) {
      throw new Error(`MEMSCOPE_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range (like 10.0.0.0/8 or ::1)`);
    }
    list.addSubnet(plain(addr), bits, family === 4 ? "ipv4" : "ipv6");
  }
  return list;
}

function isTrusted(proxies, address) {
  const family = net.isIP(address);
  return family !== 0 && proxies.check(address, family === 4 ? "ipv4" : "ipv6");
}

/**
 * The client's address: the socket peer, or, when the peer is a trusted proxy, the rightmost
 * X-Forwarded-For entry that is not one (all trusted, or a malformed entry: the last one read).
 */
export function clientAddress(peer, forwardedFor, proxies) {
  let client = plain(peer ?? "");
  if (!client || !isTrusted(proxies, client) || !forwardedFor) return client || "unknown";
  const hops = forwardedFor.split(",").map(plain).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!net.isIP(hops[i])) return client;
    client = hops[i];
    if (!isTrusted(proxies, client)) return client;
  }
  return client;
}
