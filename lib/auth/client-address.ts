// The client's address as scripts/serve.mjs found it (the socket's peer, or the client a proxy
// listed in MEMSCOPE_TRUSTED_PROXIES forwarded; scripts/client-address.mjs). serve.mjs drops
// any copy a client sends, so this header is the only place the app learns it. A server not
// started by serve.mjs (next dev) has none: every caller is then "unknown", one shared bucket.

/** Same name as CLIENT_ADDRESS_HEADER in scripts/client-address.mjs (a unit test holds them equal). */
export const CLIENT_ADDRESS_HEADER = "x-memscope-client-address";

export function clientAddressOf(headers: Headers): string {
  return headers.get(CLIENT_ADDRESS_HEADER)?.trim() || "unknown";
}
