import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { OWNER_ENV, OWNER_PASSWORD, signInOwner } from "../helpers/owner";

// What /api/auth trusts, against the production server: which origins may send cookie-carrying
// writes, whose address the limits count, and how far a stranger can slow anyone else down.
// The server is started with TEST=true on purpose: better-auth used to skip every origin and
// CSRF check when it saw that, and the app must not let any environment turn them off.
// 127.0.0.1 is a trusted proxy here (MEMSCOPE_TRUSTED_PROXIES), so a test can speak for many
// clients through X-Forwarded-For; from 127.0.0.2 and up (also this machine, but not listed)
// the header is only something a client wrote.

type Answer = { status: number; headers: http.IncomingHttpHeaders; json: any };

/** One HTTP request from a chosen local address (Linux answers on all of 127.0.0.0/8). */
function send(url: string, opts: { method?: string; headers?: Record<string, string>; body?: unknown; from?: string } = {}): Promise<Answer> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: opts.method ?? (body ? "POST" : "GET"),
        localAddress: opts.from ?? "127.0.0.1",
        headers: { ...(body ? { "content-type": "application/json" } : {}), ...opts.headers },
      },
      (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => {
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode!, headers: res.headers, json });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const cookieOf = (a: Answer) => (a.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]).join("; ");

describe("what /api/auth trusts", () => {
  let server: AppServer;
  let port = 0;
  let owner: Awaited<ReturnType<typeof signInOwner>>;

  beforeAll(async () => {
    server = await startAppServer({ env: { ...OWNER_ENV, TEST: "true", MEMSCOPE_TRUSTED_PROXIES: "127.0.0.1" } });
    port = Number(new URL(server.url).port);
    owner = await signInOwner(server.url);
  });
  afterAll(() => server?.stop());

  /** A new member of project default with its own email (an invitation accepted over the API). */
  async function newMember(email: string): Promise<void> {
    const inv = await owner.post("/project/invitations", { email, role: "member" });
    const r = await send(`${server.url}/api/auth/invitation/${inv.id}`, { body: { name: email, password: OWNER_PASSWORD }, headers: { origin: server.url } });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
  }

  /** Who the cookie signs in as: GET /api/v1/project (401 once signed out). */
  const whoAmI = (cookie: string) => send(`${server.url}/api/v1/project`, { headers: { cookie } });

  function signIn(email: string, password: string, opts: { origin?: string; forwardedFor?: string; from?: string } = {}) {
    const origin = opts.origin ?? server.url;
    return send(`${server.url}/api/auth/sign-in/email`, {
      body: { email, password },
      from: opts.from,
      headers: { origin, ...(opts.forwardedFor ? { "x-forwarded-for": opts.forwardedFor } : {}) },
    });
  }

  it("signs in and out from every origin the server answers at: 127.0.0.1, localhost, [::1]", async () => {
    await newMember("origins@example.com");
    for (const host of ["127.0.0.1", "localhost", "[::1]"]) {
      const origin = `http://${host}:${port}`;
      const inn = await signIn("origins@example.com", OWNER_PASSWORD, { origin });
      expect(inn.status, `sign-in from ${origin}: ${JSON.stringify(inn.json)}`).toBe(200);
      const cookie = cookieOf(inn);
      const out = await send(`${server.url}/api/auth/sign-out`, { body: {}, headers: { cookie, origin } });
      expect(out.status, `sign-out from ${origin}`).toBe(200);
      expect((await whoAmI(cookie)).status, `signed out at ${origin}`).toBe(401);
    }
    // Another port of this machine is another origin.
    const other = await signIn("origins@example.com", OWNER_PASSWORD, { origin: `http://127.0.0.1:${port + 1}` });
    expect(other.status).toBe(403);
    expect(other.json).toMatchObject({ code: "INVALID_ORIGIN" });
  });

  it("refuses cookie-carrying writes to /api/auth from another origin or none (CSRF), even with TEST=true", async () => {
    await newMember("csrf@example.com");
    const inn = await signIn("csrf@example.com", OWNER_PASSWORD);
    expect(inn.status).toBe(200);
    const cookie = cookieOf(inn);
    // The endpoints of better-auth's that the app lets through (lib/api/auth-endpoint-policy.ts)
    // must refuse; the rest answer 404 before better-auth sees them, and a refusal is enough there
    // (auth-access.test.ts sends them to the better-auth instance itself).
    const writes: [string, unknown, number[]][] = [
      ["/api/auth/sign-out", {}, [403]],
      ["/api/auth/change-password", { currentPassword: OWNER_PASSWORD, newPassword: "changed by evil 123" }, [403]],
      ["/api/auth/update-user", { name: "renamed by evil" }, [403, 404]],
      ["/api/auth/organization/create", { name: "Evil project", slug: "evil-project" }, [403, 404]],
      ["/api/auth/api-key/create", { name: "stolen", organizationId: "default" }, [403, 404]],
    ];
    const origins: Record<string, string>[] = [{ origin: "http://evil.example" }, { origin: `http://127.0.0.1:${port + 1}` }, { origin: "null" }, {}];
    for (const [i, headers] of origins.entries()) {
      for (const [path, body, refusals] of writes) {
        // Each round from an address of its own: better-auth allows 3 password changes per address in 10 s.
        const r = await send(`${server.url}${path}`, { body, from: `127.0.1.${i + 1}`, headers: { cookie, ...headers } });
        expect(refusals, `${path} with ${JSON.stringify(headers)}: ${r.status} ${JSON.stringify(r.json)}`).toContain(r.status);
      }
    }
    // Nothing happened: still signed in, same password, no stolen key.
    expect((await whoAmI(cookie)).json.actor).toMatchObject({ label: "csrf@example.com" });
    expect((await signIn("csrf@example.com", OWNER_PASSWORD)).status).toBe(200);
    const keys = await send(`${server.url}/api/v1/project/keys`, { headers: { cookie: owner.cookie } });
    expect(JSON.stringify(keys.json)).not.toContain("stolen");
    // From our own page, the same cookie may: the refusals above were the origin's doing.
    const out = await send(`${server.url}/api/auth/sign-out`, { body: {}, headers: { cookie, origin: server.url } });
    expect(out.status).toBe(200);
    expect((await whoAmI(cookie)).status).toBe(401);
  });

  it("counts sign-in failures by the socket's address: X-Forwarded-For from a client is not read", async () => {
    await newMember("spoofed@example.com");
    const statuses: number[] = [];
    for (let i = 1; i <= 12; i++) {
      const r = await signIn("spoofed@example.com", "wrong password!!", { from: "127.0.0.2", forwardedFor: `198.51.100.${i}` });
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual([429, 429]);
    const blocked = await signIn("spoofed@example.com", OWNER_PASSWORD, { from: "127.0.0.2", forwardedFor: "198.51.100.200" });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
    expect(blocked.json).toMatchObject({ code: "TOO_MANY_SIGN_IN_ATTEMPTS" });
    // Another machine is not held up by that one's 15 minutes: at most the account's short
    // back-off (ten failures in a row), then in.
    const other = await signIn("spoofed@example.com", OWNER_PASSWORD, { from: "127.0.0.3" });
    if (other.status === 429) {
      expect(Number(other.headers["retry-after"])).toBeLessThanOrEqual(2);
      await new Promise((r) => setTimeout(r, Number(other.headers["retry-after"]) * 1000));
    }
    expect((await signIn("spoofed@example.com", OWNER_PASSWORD, { from: "127.0.0.3" })).status).toBe(200);
  });

  it("wrong passwords for a made-up account do not keep anyone else out, on this address or another", async () => {
    await newMember("bystander@example.com");
    for (const from of ["127.0.0.4", "127.0.0.4", "127.0.0.4", "127.0.0.4"]) {
      expect((await signIn("nobody-at-all@example.com", "wrong password!!", { from })).status).toBe(401);
    }
    expect((await signIn("bystander@example.com", OWNER_PASSWORD, { from: "127.0.0.4" })).status).toBe(200);
    expect((await signIn("bystander@example.com", OWNER_PASSWORD, { from: "127.0.0.5" })).status).toBe(200);
  });

  it("a stranger on many addresses slows an account for a second or so, never on an address it signed in from", async () => {
    await newMember("target@example.com");
    const stranger = async (round: number) => {
      // Ten wrong passwords, each from another address (the first one behind a hop the
      // client made up: the proxy's own entry, the rightmost, is what counts).
      for (let i = 1; i <= 10; i++) {
        const forwardedFor = i === 1 ? `192.0.2.10, 203.0.${round}.1` : `203.0.${round}.${i}`;
        expect((await signIn("target@example.com", "wrong password!!", { forwardedFor })).status).toBe(401);
      }
    };
    // The member signs in once from home, behind the trusted proxy.
    expect((await signIn("target@example.com", OWNER_PASSWORD, { forwardedFor: "192.0.2.10" })).status).toBe(200);

    await stranger(113);
    // From a new address: a short wait, then in.
    const held = await signIn("target@example.com", OWNER_PASSWORD, { forwardedFor: "192.0.2.77" });
    expect(held.status).toBe(429);
    const wait = Number(held.headers["retry-after"]);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(2);
    await new Promise((r) => setTimeout(r, wait * 1000));
    expect((await signIn("target@example.com", OWNER_PASSWORD, { forwardedFor: "192.0.2.77" })).status).toBe(200);

    await stranger(114);
    // From home: straight in, while a new address would wait.
    expect((await signIn("target@example.com", OWNER_PASSWORD, { forwardedFor: "192.0.2.99" })).status).toBe(429);
    expect((await signIn("target@example.com", OWNER_PASSWORD, { forwardedFor: "192.0.2.10" })).status).toBe(200);
  });

  it("the session routes answer through their contracts: statuses, snake_case fields, a body limit in bytes", async () => {
    const same = { origin: server.url };
    const switchTo = (body: unknown, headers: Record<string, string> = same) => send(`${server.url}/api/auth/project`, { body, headers: { cookie: owner.cookie, ...headers } });
    const switched = await switchTo({ project_id: "default" });
    expect([switched.status, switched.json]).toEqual([200, { project_id: "default" }]);
    expect(switched.headers["set-cookie"]?.join("\n")).toMatch(/memscope_project=default;.*HttpOnly/);
    expect((await switchTo({ project_id: "default" }, { origin: "http://evil.example" })).status).toBe(403);
    const unnamed = await switchTo({});
    expect([unnamed.status, unnamed.json.error.details[0].field]).toEqual([422, "project_id"]);
    expect((await switchTo({ project_id: "no-such-project" })).status).toBe(404);
    // 64 KiB of body, counted in bytes: 40 000 "é" are 80 000 bytes (and fewer than 65 536 characters).
    const big = await switchTo({ project_id: "é".repeat(40_000) });
    expect([big.status, big.json.error.code]).toEqual([413, "payload_too_large"]);

    const email = "joiner@example.com";
    const link = (id: string) => `${server.url}/api/auth/invitation/${id}`;
    const inv = await owner.post("/project/invitations", { email, role: "viewer" });
    expect((await send(link("no-such-link"))).status).toBe(404);
    expect((await send(link(inv.id))).json).toEqual({ email, role: "viewer", project_name: "Default", has_account: false });
    expect((await send(link(inv.id), { body: { password: OWNER_PASSWORD }, headers: { origin: "http://evil.example" } })).status).toBe(403);
    const short = await send(link(inv.id), { body: { password: "short" }, headers: same });
    expect([short.status, short.json.error.details[0].field]).toEqual([422, "password"]);
    const joined = await send(link(inv.id), { body: { name: "Jo", password: OWNER_PASSWORD }, headers: same });
    expect([joined.status, joined.json]).toEqual([201, { project_id: "default", role: "viewer" }]);
    const jo = cookieOf(joined);
    expect((await send(link(inv.id), { body: {}, headers: same })).status).toBe(404); // used

    // A second project invites the same address: without a session, sign in first (409); with it, joined (200).
    const second = await owner.post("/projects", { name: "Second" });
    const inv2 = await owner.post("/project/invitations", { email, role: "member" }, second.id);
    expect((await send(link(inv2.id), { body: { password: OWNER_PASSWORD }, headers: same })).status).toBe(409);
    const notTheirs = await owner.post("/project/invitations", { email: "someone-else@example.com", role: "member" }, second.id);
    expect((await send(link(notTheirs.id), { body: {}, headers: { ...same, cookie: jo } })).status).toBe(403);
    const accepted = await send(link(inv2.id), { body: {}, headers: { ...same, cookie: jo } });
    expect([accepted.status, accepted.json]).toEqual([200, { project_id: second.id, role: "member" }]);
    expect(accepted.headers["set-cookie"]?.join("\n")).toContain(`memscope_project=${second.id}`);
  });

  it("limits wrong bearer tokens per address: 429 with Retry-After, other addresses unaffected", async () => {
    const key = await owner.key("trust-reader", ["read"]);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await send(`${server.url}/api/v1/conversations`, { from: "127.0.0.6", headers: { authorization: `Bearer msk_wrong${i}` } });
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual([429, 429]);
    const held = await send(`${server.url}/api/v1/conversations`, { from: "127.0.0.6", headers: { authorization: `Bearer ${key}` } });
    expect(held.status).toBe(429);
    expect(Number(held.headers["retry-after"])).toBeGreaterThan(0);
    expect(held.json.error).toMatchObject({ code: "rate_limited" });
    const elsewhere = await send(`${server.url}/api/v1/conversations`, { from: "127.0.0.7", headers: { authorization: `Bearer ${key}` } });
    expect(elsewhere.status).toBe(200);
  });
});

describe("the bootstrap key", () => {
  const BOOTSTRAP = "bootstrap-key-for-the-first-admin-0123456789";

  it("first admin: wrong keys count against the address's wrong-key limit, shared with /api/v1; the right key makes the admin once", async () => {
    const server = await startAppServer({ env: { MEMSCOPE_API_KEY: BOOTSTRAP } });
    try {
      const firstAdmin = (key: string | null, from: string) =>
        send(`${server.url}/api/auth/first-admin`, { body: { email: "root@example.com", password: OWNER_PASSWORD }, from, headers: key ? { authorization: `Bearer ${key}` } : {} });
      const conversations = (key: string, from: string) => send(`${server.url}/api/v1/conversations`, { from, headers: { authorization: `Bearer ${key}` } });
      expect((await send(`${server.url}/api/auth/first-admin`)).json).toEqual({ account_exists: false, needs_bootstrap_key: true });
      const keyless = await firstAdmin(null, "127.0.0.20");
      expect(keyless.status).toBe(403);
      expect(keyless.json.error.details[0]).toMatchObject({ field: "authorization" });

      // Six wrong keys at /api/v1 and four at first-admin: the address has spent its ten (BEARER_FAILURES).
      for (let i = 0; i < 6; i++) expect((await conversations(`wrong-${i}`, "127.0.0.21")).status).toBe(401);
      for (let i = 0; i < 4; i++) expect((await firstAdmin(`wrong-${i}`, "127.0.0.21")).status).toBe(403);
      const held = await firstAdmin(BOOTSTRAP, "127.0.0.21");
      expect(held.status).toBe(429);
      expect(Number(held.headers["retry-after"])).toBeGreaterThan(0);
      expect(held.json.error).toMatchObject({ code: "rate_limited" });
      // And the other way round: ten wrong keys at first-admin hold the address at /api/v1.
      for (let i = 0; i < 10; i++) expect((await firstAdmin(`wrong-${i}`, "127.0.0.22")).status).toBe(403);
      expect((await conversations(BOOTSTRAP, "127.0.0.22")).status).toBe(429);

      const made = await firstAdmin(BOOTSTRAP, "127.0.0.23");
      expect(made.status).toBe(201);
      expect(made.json).toMatchObject({ email: "root@example.com", project: "default", role: "owner" });
      expect(cookieOf(made)).toMatch(/session_token=/);
      expect((await firstAdmin(BOOTSTRAP, "127.0.0.23")).status).toBe(409);
    } finally {
      await server.stop();
    }
  });

  it("is refused at start when shorter than 32 characters, with a message that says so", async () => {
    const err = await startAppServer({ env: { MEMSCOPE_API_KEY: "short-key-1234567890" } }).then(
      (s) => s.stop().then(() => null),
      (e: Error) => e,
    );
    expect(err?.message).toContain("server exited (1)");
    expect(err?.message).toContain("MEMSCOPE_API_KEY is 20 characters long; the bootstrap key needs at least 32");
  });
});
