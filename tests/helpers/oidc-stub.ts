import http from "node:http";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { freePort } from "./free-port";

// A small OpenID Connect provider on 127.0.0.1 for tests: discovery, an authorize endpoint
// that signs in `user` at once (no login page), token (RS256 id_token), userinfo and JWKS.

export type OidcStub = { issuer: string; clientId: string; clientSecret: string; stop(): Promise<void> };

export async function startOidcStub(user: { sub: string; email: string; name: string }): Promise<OidcStub> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = "memscope-test";
  const clientSecret = "stub-secret-0123456789";
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  const codes = new Map<string, { nonce?: string }>();

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const readBody = (req: http.IncomingMessage) =>
    new Promise<string>((resolve) => {
      let b = "";
      req.on("data", (d) => (b += d));
      req.on("end", () => resolve(b));
    });

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    if (url.pathname === "/.well-known/openid-configuration") {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/userinfo`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        code_challenge_methods_supported: ["S256"],
        scopes_supported: ["openid", "email", "profile"],
      });
    }
    if (url.pathname === "/jwks") return json(res, 200, { keys: [jwk] });
    if (url.pathname === "/authorize") {
      if (url.searchParams.get("client_id") !== clientId) return json(res, 400, { error: "invalid_client" });
      const code = `code-${Math.random().toString(36).slice(2)}`;
      codes.set(code, { nonce: url.searchParams.get("nonce") ?? undefined });
      const back = new URL(url.searchParams.get("redirect_uri")!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (url.pathname === "/token" && req.method === "POST") {
      const form = new URLSearchParams(await readBody(req));
      const basic = req.headers.authorization?.startsWith("Basic ") ? Buffer.from(req.headers.authorization.slice(6), "base64").toString() : "";
      const okClient = basic === `${clientId}:${clientSecret}` || (form.get("client_id") === clientId && form.get("client_secret") === clientSecret);
      const grant = codes.get(form.get("code") ?? "");
      if (!okClient || !grant) return json(res, 400, { error: "invalid_grant" });
      codes.delete(form.get("code")!);
      const idToken = await new SignJWT({ email: user.email, email_verified: true, name: user.name, ...(grant.nonce ? { nonce: grant.nonce } : {}) })
        .setProtectedHeader({ alg: "RS256", kid: "k1" })
        .setIssuer(issuer)
        .setAudience(clientId)
        .setSubject(user.sub)
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(privateKey);
      return json(res, 200, { access_token: `at-${user.sub}`, token_type: "Bearer", expires_in: 300, id_token: idToken, scope: "openid email profile" });
    }
    if (url.pathname === "/userinfo") {
      if (req.headers.authorization !== `Bearer at-${user.sub}`) return json(res, 401, { error: "invalid_token" });
      return json(res, 200, { sub: user.sub, email: user.email, email_verified: true, name: user.name });
    }
    json(res, 404, { error: "not_found" });
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return { issuer, clientId, clientSecret, stop: () => new Promise((r) => server.close(() => r())) };
}
