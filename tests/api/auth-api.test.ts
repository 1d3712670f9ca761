import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppServer } from "../helpers/app-server";
import { startAppServer } from "../helpers/app-server";
import { ONE_KIND, startAppOn } from "../helpers/test-database";
import { startOidcStub } from "../helpers/oidc-stub";

// Accounts, keys and projects through the real server on each database: the first run is
// open on this machine only; once the admin exists every /api/v1 call needs a key or a
// session; keys work by scope and project; cookie writes need our own Origin.

const PASSWORD = "correct horse battery";

// Auth decisions, scopes, rate limits and the HTTP contract: one database kind (the rule is in
// tests/helpers/test-database.ts); the database access layer they use is auth-access.test.ts's, on both.
for (const kind of ONE_KIND) {
  describe(`accounts and keys over HTTP on ${kind}`, () => {
    let app: AppServer;
    let cookie = "";
    let readKey = "";
    let rwKey = "";
    let rwKeyId = "";
    type Init = Omit<RequestInit, "headers"> & { headers?: Record<string, string> };
    const call = (path: string, init: Init = {}) => fetch(`${app.url}${path}`, init);
    const asCookie = (path: string, init: Init = {}) =>
      call(path, { ...init, headers: { cookie, origin: app.url, "content-type": "application/json", ...(init.headers ?? {}) } });
    const asKey = (key: string, path: string, init: Init = {}) =>
      call(path, { ...init, headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...(init.headers ?? {}) } });

    beforeAll(async () => {
      app = await startAppOn(kind, { seed: true, env: { MEMSCOPE_KEY_RATE_LIMIT: "40/60" } });
    });
    afterAll(() => app?.stop());

    it("first run: open on this machine, with the banner state, no sign-up needed", async () => {
      expect((await call("/api/v1/conversations")).status).toBe(200);
      const state = await (await call("/api/auth/state")).json();
      expect(state).toMatchObject({ mode: "open", project: { id: "default" } });
      // Self sign-up through better-auth's own endpoint is closed (shut at /api/auth/*: lib/api/auth-endpoint-policy.ts).
      const walkIn = await call("/api/auth/sign-up/email", {
        method: "POST",
        headers: { "content-type": "application/json", origin: app.url },
        body: JSON.stringify({ email: "walkin@example.com", password: PASSWORD, name: "w" }),
      });
      expect(walkIn.status).toBe(404);
      // Keys and invitations need an account to vouch for them: none exists yet.
      const local = { "content-type": "application/json", origin: app.url };
      const key = await call("/api/v1/project/keys", { method: "POST", headers: local, body: JSON.stringify({ name: "early", scopes: ["read"] }) });
      const inv = await call("/api/v1/project/invitations", { method: "POST", headers: local, body: JSON.stringify({ email: "x@example.com", role: "viewer" }) });
      for (const r of [key, inv]) {
        expect(r.status).toBe(409);
        expect((await r.json()).error.details[0]).toMatchObject({ field: "project", message: "no owner" });
      }
    });

    it("a page on another site cannot create the admin; this machine can, and gets a session", async () => {
      const body = JSON.stringify({ email: "admin@example.com", password: PASSWORD, name: "Ada" });
      const foreign = await call("/api/auth/first-admin", { method: "POST", headers: { "content-type": "application/json", origin: "http://evil.example" }, body });
      expect(foreign.status).toBe(403);
      const short = await call("/api/auth/first-admin", { method: "POST", headers: { "content-type": "application/json", origin: app.url }, body: JSON.stringify({ email: "a@example.com", password: "short" }) });
      expect(short.status).toBe(422);
      expect((await short.json()).error.details[0].field).toBe("password");
      const res = await call("/api/auth/first-admin", { method: "POST", headers: { "content-type": "application/json", origin: app.url }, body });
      expect(res.status).toBe(201);
      const set = res.headers.getSetCookie();
      expect(set.join("\n")).toMatch(/HttpOnly/i);
      expect(set.join("\n")).toMatch(/SameSite=Lax/i);
      cookie = set.map((c) => c.split(";")[0]).join("; ");
      const again = await call("/api/auth/first-admin", { method: "POST", headers: { "content-type": "application/json", origin: app.url }, body });
      expect(again.status).toBe(409);
    });

    it("after that, /api/v1 needs a key or a session; cookie writes need our own Origin", async () => {
      expect((await call("/api/v1/conversations")).status).toBe(401);
      expect((await call("/api/auth/state").then((r) => r.json())).mode).toBe("signed-out");
      expect((await asCookie("/api/v1/conversations")).status).toBe(200);
      const me = await (await asCookie("/api/v1/project")).json();
      expect(me).toMatchObject({ project: { id: "default", role: "owner" }, actor: { kind: "account", label: "admin@example.com" }, scopes: ["read", "write", "admin"] });
      const memory = JSON.stringify({ memory_type: "fact", content: "Prefers tea" });
      const noOrigin = await call("/api/v1/users/u1/memories", { method: "POST", headers: { cookie, "content-type": "application/json" }, body: memory });
      expect(noOrigin.status).toBe(403);
      const crossSite = await call("/api/v1/users/u1/memories", {
        method: "POST",
        headers: { cookie, "content-type": "application/json", origin: "http://evil.example", "sec-fetch-site": "cross-site" },
        body: memory,
      });
      expect(crossSite.status).toBe(403);
      expect((await asCookie("/api/v1/users/u1/memories", { method: "POST", body: memory })).status).toBe(201);
    });

    it("keys: shown once, scoped, listed with creator and last use, revoked at once", async () => {
      const bad = await asCookie("/api/v1/project/keys", { method: "POST", body: JSON.stringify({ name: "x", scopes: ["root"] }) });
      expect(bad.status).toBe(422);
      const r1 = await asCookie("/api/v1/project/keys", { method: "POST", body: JSON.stringify({ name: "reader", scopes: ["read"] }) });
      expect(r1.status).toBe(201);
      readKey = (await r1.json()).key;
      const r2 = await asCookie("/api/v1/project/keys", { method: "POST", body: JSON.stringify({ name: "agent", scopes: ["read", "write"], expires_in_days: 30 }) });
      const k2 = await r2.json();
      rwKey = k2.key;
      rwKeyId = k2.id;
      expect(rwKey).toMatch(/^msk_/);

      expect((await asKey(readKey, "/api/v1/conversations")).status).toBe(200);
      const memory = JSON.stringify({ memory_type: "fact", content: "Likes hiking" });
      const denied = await asKey(readKey, "/api/v1/users/u1/memories", { method: "POST", body: memory });
      expect(denied.status).toBe(403);
      expect((await denied.json()).error.code).toBe("missing_scope");
      expect((await asKey(rwKey, "/api/v1/users/u1/memories", { method: "POST", body: memory })).status).toBe(201);
      expect((await asKey(rwKey, "/api/v1/project/keys")).status).toBe(403);
      // Projects belong to accounts: a key (even one that may write) cannot create one.
      const keyProject = await asKey(rwKey, "/api/v1/projects", { method: "POST", body: JSON.stringify({ name: "By a key" }) });
      expect(keyProject.status).toBe(403);
      expect((await keyProject.json()).error.details[0]).toMatchObject({ field: "actor", message: "key" });
      // A key sends no cookie, so no Origin is needed.
      const list = await (await asCookie("/api/v1/project/keys")).json();
      const agent = list.data.find((k: { name: string }) => k.name === "agent");
      expect(agent).toMatchObject({ scopes: ["read", "write"], created_by: "admin@example.com", start: rwKey.slice(0, 10) });
      expect(agent.last_used_at).not.toBeNull();
      expect(JSON.stringify(list)).not.toContain(rwKey);

      expect((await asCookie(`/api/v1/project/keys/${rwKeyId}`, { method: "DELETE" })).status).toBe(204);
      expect((await asKey(rwKey, "/api/v1/conversations")).status).toBe(401);
      const audit = await (await asCookie("/api/v1/project/audit")).json();
      expect(audit.data.map((e: { action: string }) => e.action)).toEqual(expect.arrayContaining(["key.created", "key.revoked", "member.added"]));
    });

    it("another project's key gets 404 for this project's data, and for ids it cannot see", async () => {
      const p = await asCookie("/api/v1/projects", { method: "POST", body: JSON.stringify({ name: "Team B" }) });
      expect(p.status).toBe(201);
      const b = await p.json();
      const kb = await asCookie("/api/v1/project/keys", { method: "POST", headers: { "x-memscope-project": b.id }, body: JSON.stringify({ name: "b-admin", scopes: ["read", "write", "admin"] }) });
      expect(kb.status).toBe(201);
      const bKey = (await kb.json()).key;
      expect((await asKey(bKey, "/api/v1/project").then((r) => r.json())).project.id).toBe(b.id);
      const convs = await (await asKey(readKey, "/api/v1/conversations")).json();
      const someId = convs.data[0].id;
      expect((await asKey(bKey, `/api/v1/conversations/${someId}`)).status).toBe(404);
      // B's own list: B's conversations only (none yet).
      const bList = await asKey(bKey, "/api/v1/conversations");
      expect(bList.status).toBe(200);
      expect((await bList.json()).data).toEqual([]);
      // B's key lists only B's keys.
      const bKeys = await (await asKey(bKey, "/api/v1/project/keys")).json();
      expect(bKeys.data.map((k: { name: string }) => k.name)).toEqual(["b-admin"]);
      // The member of default only, asking for a project they are not in: 404.
      const strangerProject = await asCookie("/api/v1/conversations", { headers: { "x-memscope-project": "no-such-project" } });
      expect(strangerProject.status).toBe(404);
    });

    it("invites a viewer by link: the viewer reads, and writes get 403", async () => {
      const inv = await asCookie("/api/v1/project/invitations", { method: "POST", body: JSON.stringify({ email: "viewer@example.com", role: "viewer" }) });
      expect(inv.status).toBe(201);
      const { id } = await inv.json();
      const info = await (await call(`/api/auth/invitation/${id}`)).json();
      expect(info).toMatchObject({ email: "viewer@example.com", role: "viewer", has_account: false });
      const join = await call(`/api/auth/invitation/${id}`, { method: "POST", headers: { "content-type": "application/json", origin: app.url }, body: JSON.stringify({ name: "Vi", password: PASSWORD }) });
      expect(join.status).toBe(201);
      const vCookie = join.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
      const h = { cookie: vCookie, origin: app.url, "content-type": "application/json" };
      expect((await call("/api/v1/conversations", { headers: h })).status).toBe(200);
      const write = await call("/api/v1/users/u1/memories", { method: "POST", headers: h, body: JSON.stringify({ memory_type: "fact", content: "x" }) });
      expect(write.status).toBe(403);
      expect((await call(`/api/auth/invitation/${id}`)).status).toBe(404); // used
    });

    it("members and the project: the last owner stays (409), roles change, members leave, invitations are cancelled, the project is renamed", async () => {
      const members = (await (await asCookie("/api/v1/project/members")).json()).data as { id: string; email: string; role: string }[];
      const owner = members.find((m) => m.email === "admin@example.com")!;
      const viewer = members.find((m) => m.email === "viewer@example.com")!;
      const demote = await asCookie(`/api/v1/project/members/${owner.id}`, { method: "PATCH", body: JSON.stringify({ role: "admin" }) });
      expect(demote.status).toBe(409);
      expect((await demote.json()).error.details[0]).toMatchObject({ field: "role", message: "last owner" });
      const leave = await asCookie(`/api/v1/project/members/${owner.id}`, { method: "DELETE" });
      expect(leave.status).toBe(409);
      expect((await leave.json()).error.details[0]).toMatchObject({ field: "id", message: "last owner" });

      const promoted = await asCookie(`/api/v1/project/members/${viewer.id}`, { method: "PATCH", body: JSON.stringify({ role: "member" }) });
      expect(promoted.status).toBe(200);
      expect(await promoted.json()).toMatchObject({ id: viewer.id, email: "viewer@example.com", role: "member" });
      expect((await asCookie(`/api/v1/project/members/${viewer.id}`, { method: "DELETE" })).status).toBe(204);
      const after = (await (await asCookie("/api/v1/project/members")).json()).data as { id: string; role: string }[];
      expect(after.map((m) => [m.id, m.role])).toEqual([[owner.id, "owner"]]);

      const inv = await (await asCookie("/api/v1/project/invitations", { method: "POST", body: JSON.stringify({ email: "late@example.com", role: "viewer" }) })).json();
      expect((await asCookie(`/api/v1/project/invitations/${inv.id}`, { method: "DELETE" })).status).toBe(204);
      expect((await call(`/api/auth/invitation/${inv.id}`)).status).toBe(404);
      expect((await asCookie(`/api/v1/project/invitations/${inv.id}`, { method: "DELETE" })).status).toBe(404);
      expect((await asCookie(`/api/v1/project/members/${viewer.id}`, { method: "DELETE" })).status).toBe(404);

      const renamed = await asCookie("/api/v1/project", { method: "PATCH", body: JSON.stringify({ name: "Team A" }) });
      expect(renamed.status).toBe(200);
      expect((await (await asCookie("/api/v1/project")).json()).project.name).toBe("Team A");

      const audit = await (await asCookie("/api/v1/project/audit?limit=500")).json();
      expect(audit.data.map((e: { action: string }) => e.action)).toEqual(expect.arrayContaining(["member.role_changed", "member.removed"]));
      const badAudit = await asCookie("/api/v1/project/audit?before=yesterday");
      expect(badAudit.status).toBe(422);
      expect((await badAudit.json()).error.details[0].field).toBe("before");
    });

    it("rate-limits a key with 429 and Retry-After: 40 requests a window pass, the 41st does not", async () => {
      // A key of its own: its window starts at its first request here. An older key's window
      // could end in the middle of the loop (windows are 60 s from a key's first request).
      const made = await asCookie("/api/v1/project/keys", { method: "POST", body: JSON.stringify({ name: "busy", scopes: ["read"] }) });
      expect(made.status).toBe(201);
      const key = (await made.json()).key;
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await asKey(key, "/api/v1/project")).status);
      expect(statuses.every((s) => s === 200), statuses.join(",")).toBe(true);
      const over = await asKey(key, "/api/v1/project");
      expect(over.status).toBe(429);
      expect((await over.json()).error.code).toBe("rate_limited");
      const retryAfter = Number(over.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    });
  });
}

describe("start rules", () => {
  it("HOST=0.0.0.0 with no account refuses to start and says what to do", async () => {
    const err = await startAppServer({ env: { HOST: "0.0.0.0" } }).then(
      (s) => (s.stop(), null),
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/refusing to start/);
    expect(err?.message).toMatch(/MEMSCOPE_ADMIN_EMAIL/);
  });

  it("MEMSCOPE_AUTH=off starts anyway, with a warning", async () => {
    const s = await startAppServer({ env: { HOST: "0.0.0.0", MEMSCOPE_AUTH: "off" } });
    try {
      expect(s.logs()).toMatch(/WARNING: MEMSCOPE_AUTH=off/);
      expect((await fetch(`${s.url}/api/v1/conversations`)).status).toBe(200);
    } finally {
      await s.stop();
    }
  });
});

// One server for both: an admin from the environment on a server listening on every address (the
// start rule's allowed case), with an OpenID Connect provider (a local stub). Each test signs in
// for itself; neither reads what the other wrote.
describe("an admin from the environment, and single sign-on through an OpenID Connect provider (local stub)", () => {
  let stub: Awaited<ReturnType<typeof startOidcStub>>;
  let app: AppServer;
  beforeAll(async () => {
    stub = await startOidcStub({ sub: "u-42", email: "sso@example.com", name: "Sso Person" });
    app = await startAppServer({
      env: {
        HOST: "0.0.0.0",
        MEMSCOPE_ADMIN_EMAIL: "ops@example.com",
        MEMSCOPE_ADMIN_PASSWORD: PASSWORD,
        MEMSCOPE_OIDC_ISSUER: stub.issuer,
        MEMSCOPE_OIDC_CLIENT_ID: stub.clientId,
        MEMSCOPE_OIDC_CLIENT_SECRET: stub.clientSecret,
      },
    });
  });
  afterAll(async () => {
    await app?.stop();
    await stub?.stop();
  });

  it("MEMSCOPE_ADMIN_EMAIL creates the admin at start; sign-in works", async () => {
    expect((await fetch(`${app.url}/api/v1/conversations`)).status).toBe(401);
    const r = await fetch(`${app.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: app.url },
      body: JSON.stringify({ email: "ops@example.com", password: PASSWORD }),
    });
    expect(r.status).toBe(200);
    const cookie = r.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    expect((await fetch(`${app.url}/api/v1/conversations`, { headers: { cookie } })).status).toBe(200);
  });

  // Walks a whole redirect flow: generous on a busy 2-core machine.
  it("an invited person signs in with the provider and lands in the project; an uninvited one is refused", { timeout: 180_000 }, async () => {
    const jar = new Map<string, string>();
    const keep = (r: Response) => {
      for (const c of r.headers.getSetCookie()) {
        const [pair] = c.split(";");
        const i = pair.indexOf("=");
        jar.set(pair.slice(0, i), pair.slice(i + 1));
      }
    };
    const cookies = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    /** Sign-in with the provider, following redirects by hand with a cookie jar; returns the URLs visited. */
    async function ssoSignIn(): Promise<string[]> {
      jar.clear();
      const start = await fetch(`${app.url}/api/auth/sign-in/social`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: app.url },
        body: JSON.stringify({ provider: "oidc", callbackURL: "/conversations" }),
      });
      expect(start.status).toBe(200);
      keep(start);
      const visited = [(await start.json()).url as string];
      // The app may name itself localhost or 127.0.0.1: the port tells it apart from the stub.
      const isApp = (u: string) => new URL(u).port === new URL(app.url).port;
      for (let i = 0; i < 6; i++) {
        const at = visited[visited.length - 1];
        // Stop at the app's own pages: the flow is over.
        if (isApp(at) && !at.includes("/api/auth/")) break;
        const r = await fetch(at, { redirect: "manual", headers: isApp(at) ? { cookie: cookies() } : {} });
        if (isApp(at)) keep(r);
        const loc = r.headers.get("location");
        if (!loc) break;
        visited.push(new URL(loc, at).toString());
      }
      return visited;
    }

    // Not invited: no account is made.
    const refused = await ssoSignIn();
    expect(refused.at(-1)).toMatch(/error/);
    expect((await fetch(`${app.url}/api/v1/conversations`, { headers: { cookie: cookies() } })).status).toBe(401);

    // Invited by the admin: the provider's sign-in creates the account, the link makes it a member.
    const admin = await fetch(`${app.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: app.url },
      body: JSON.stringify({ email: "ops@example.com", password: PASSWORD }),
    });
    const adminCookie = admin.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const inv = await fetch(`${app.url}/api/v1/project/invitations`, {
      method: "POST",
      headers: { cookie: adminCookie, origin: app.url, "content-type": "application/json" },
      body: JSON.stringify({ email: "sso@example.com", role: "member" }),
    });
    const { id } = await inv.json();
    const done = await ssoSignIn();
    expect(new URL(done.at(-1)!).pathname).toBe("/conversations");
    const accept = await fetch(`${app.url}/api/auth/invitation/${id}`, { method: "POST", headers: { cookie: cookies(), origin: app.url, "content-type": "application/json" }, body: "{}" });
    expect(accept.status).toBe(200);
    const me = await (await fetch(`${app.url}/api/v1/project`, { headers: { cookie: cookies() } })).json();
    expect(me).toMatchObject({ actor: { kind: "account", label: "sso@example.com" }, project: { id: "default", role: "member" } });
  });
});
