import type { Env } from "./roles";
// Single sign-on through any OpenID Connect provider, configured by env. All three
// variables or none: a half-configured provider is an error at start, not a broken button.

export type OidcConfig = { issuer: string; discoveryUrl: string; clientId: string; clientSecret: string; name: string };

export function readOidcConfig(env: Env = process.env): OidcConfig | null {
  const issuer = env.MEMSCOPE_OIDC_ISSUER?.trim();
  const clientId = env.MEMSCOPE_OIDC_CLIENT_ID?.trim();
  const clientSecret = env.MEMSCOPE_OIDC_CLIENT_SECRET?.trim();
  if (!issuer && !clientId && !clientSecret) return null;
  const missing = [
    ["MEMSCOPE_OIDC_ISSUER", issuer],
    ["MEMSCOPE_OIDC_CLIENT_ID", clientId],
    ["MEMSCOPE_OIDC_CLIENT_SECRET", clientSecret],
  ]
    .filter(([, v]) => !v)
    .map(([k]) => k);
  if (missing.length) throw new Error(`Single sign-on needs ${missing.join(" and ")} as well (or none of the MEMSCOPE_OIDC_* variables).`);
  const base = issuer!.replace(/\/+$/, "");
  return {
    issuer: base,
    discoveryUrl: `${base}/.well-known/openid-configuration`,
    clientId: clientId!,
    clientSecret: clientSecret!,
    name: env.MEMSCOPE_OIDC_NAME?.trim() || "Single sign-on",
  };
}
