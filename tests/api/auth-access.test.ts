import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/lib/db/open-database";
import { createAuth, type Auth } from "@/lib/auth/create-auth";
import { resolveAccessWith, type AccessDeps } from "@/lib/auth/access";
import { RateLimitedError } from "@/lib/errors/domain-errors";
import { KeyRateLimiter } from "@/lib/auth/rate-limit";
import { createFirstAdmin, ensureAdminFromEnv } from "@/lib/auth/first-admin";
import { loadAuthSecret } from "@/lib/auth/auth-secret";
import { createProjectKey, listProjectKeys, revokeProjectKey } from "@/lib/auth/project-keys";
import { LAST_USED_STEP_MS } from "@/lib/auth/verify-project-key";
import { acceptInvitation, createInvitation } from "@/lib/auth/invitations";
import { changeMemberRole, listMembers } from "@/lib/auth/project-members";
import { createProject } from "@/lib/auth/projects";
import { listAudit } from "@/lib/auth/audit";
import { DATABASE_KINDS, openTestDatabase } from "../helpers/test-database";
import { removeDir } from "../helpers/temp-dir";
import { freshDataDir } from "../helpers/fresh-data-dir";

// resolveAccess and the account/key/member functions on a real database of each kind,
// with plain Request objects: who gets which project and scopes, and who is refused.
// The first run (no account yet) has a database of its own; every other test works on one
// whose admin exists from the start, and makes the keys, projects and people it needs.

const BASE = "http://127.0.0.1:3999";
const PASSWORD = "correct horse battery";
const SECRET = "s".repeat(16) + "0123456789abcdef0123";
// The server this stands for listens on port 3999: better-auth trusts its origins only.
const AUTH_ENV = { PORT: "3999" };

/** A migrated, empty database of this kind, and how to remove it. */
async function emptyDatabase(kind: (typeof DATABASE_KINDS)[number]): Promise<{ db: Database; cleanup: () => Promise<void> }> {
  if (kind === "embedded") {
    const dir = await freshDataDir(); // a copy of a migrated folder: no initdb here
    const db = await openDatabase({ kind: "pglite", dataDir: dir });
    return {
      db,
      cleanup: async () => {
        await db.close();
        removeDir(dir);
      },
    };
  }
  // A real PostgreSQL when one is configured (CI), else pglite-socket.
  const pg = await openTestDatabase("postgres");
  const db = await openDatabase({ kind: "postgres", url: pg.url! });
  return {
    db,
    cleanup: async () => {
      await db.close();
      await pg.stop();
    },
  };
}

const req = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
  new Request(`${BASE}${path}`, { ...init, headers: { host: "127.0.0.1:3999", ...(init.headers ?? {}) } });

for (const kind of DATABASE_KINDS) {
  describe(`first run on ${kind}`, () => {
    let db: Database;
    let auth: Auth;
    let cleanup: () => Promise<void>;
    const deps = (): AccessDeps => ({ auth, prisma: db.prisma, env: {}, limiter: new KeyRateLimiter() });

    beforeAll(async () => {
      ({ db, cleanup } = await emptyDatabase(kind));
      auth = createAuth(db.prisma, { secret: SECRET, env: AUTH_ENV });
    });
    afterAll(() => cleanup?.());

    it("is open to this machine until the first admin exists, then never again; that admin is made once", async () => {
      // Step 1: no account yet, open to this machine only.
      const a = await resolveAccessWith(deps(), req("/api/v1/conversations"));
      expect(a).toMatchObject({ projectId: "default", scopes: ["read", "write", "admin"], actor: { kind: "open" } });
      // A server that is its database's only writer keeps "no account yet" between requests (here for an hour).
      const sole = (): AccessDeps => ({ ...deps(), noAccountRecheckMs: 3_600_000 });
      expect(await resolveAccessWith(sole(), req("/api/v1/conversations"))).toMatchObject({ actor: { kind: "open" } });
      // A rebound DNS name pointing at 127.0.0.1 is not this machine's own name.
      expect(await resolveAccessWith(deps(), req("/api/v1/conversations", { headers: { host: "evil.example:3999" } }))).toBeNull();
      // A foreign page in this machine's browser cannot write even then.
      await expect(
        resolveAccessWith(deps(), req("/api/v1/users/u/memories", { method: "POST", headers: { origin: "http://evil.example" } })),
      ).rejects.toMatchObject({ kind: "forbidden" });

      // Step 2: the first admin, owner of project default; a second one is a conflict.
      const bad = createFirstAdmin({ auth, db }, { email: "not-an-email", password: PASSWORD }, "test");
      await expect(bad).rejects.toMatchObject({ kind: "validation", details: [{ field: "email" }] });
      const res = await createFirstAdmin({ auth, db }, { email: "Admin@Example.com", password: PASSWORD }, "test");
      expect(res.status).toBe(200);
      // Open mode is over at once where "no account yet" was kept: the account hook ended it.
      expect(await resolveAccessWith(sole(), req("/api/v1/conversations"))).toBeNull();
      const members = await listMembers(db.prisma, "default");
      expect(members).toMatchObject([{ email: "admin@example.com", role: "owner" }]);
      await expect(createFirstAdmin({ auth, db }, { email: "b@example.com", password: PASSWORD }, "test")).rejects.toMatchObject({ kind: "conflict" });

      // Step 3: open mode is over.
      expect(await resolveAccessWith(deps(), req("/api/v1/conversations"))).toBeNull();
    });
  });

  // Two sign-ups at once (or two instances starting with MEMSCOPE_ADMIN_EMAIL): one owner.
  // On PostgreSQL each caller has a handle of its own, as two instances would.
  describe(`first admins at once on ${kind}`, () => {
    let db: Database;
    let second: Database;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      ({ db, cleanup } = await emptyDatabase(kind));
      second = db.config.kind === "postgres" ? await openDatabase(db.config, { migrate: false }) : db;
    });
    afterAll(async () => {
      if (second !== db) await second?.close();
      await cleanup?.();
    });

    it("two instances' first start agree on one generated session secret", async () => {
      // A race is a matter of timing: several rounds.
      for (let round = 0; round < 10; round++) {
        await db.prisma.authSetting.deleteMany({ where: { key: "session_secret" } });
        const secrets = await Promise.all([loadAuthSecret(db.prisma, {}), loadAuthSecret(second.prisma, {})]);
        expect(secrets[0]).toHaveLength(43);
        expect(secrets[1]).toBe(secrets[0]);
      }
    });

    it("two sign-ups racing make one owner; the other is a conflict", async () => {
      const [authA, authB] = [db, second].map((d) => createAuth(d.prisma, { secret: SECRET, env: AUTH_ENV }));
      const results = await Promise.allSettled([
        createFirstAdmin({ auth: authA, db }, { email: "one@example.com", password: PASSWORD }, "test"),
        createFirstAdmin({ auth: authB, db: second }, { email: "two@example.com", password: PASSWORD }, "test"),
      ]);
      const made = results.filter((r) => r.status === "fulfilled" && r.value.ok);
      const refused = results.filter((r) => r.status === "rejected");
      expect(made).toHaveLength(1);
      expect(refused).toMatchObject([{ reason: { kind: "conflict" } }]);
      expect(await db.prisma.user.count()).toBe(1);
      expect(await listMembers(db.prisma, "default")).toMatchObject([{ role: "owner" }]);
      // Two instances starting with the same MEMSCOPE_ADMIN_EMAIL after that: neither makes one.
      const env = { MEMSCOPE_ADMIN_EMAIL: "env@example.com", MEMSCOPE_ADMIN_PASSWORD: PASSWORD };
      expect(await Promise.all([ensureAdminFromEnv({ auth: authA, db }, env), ensureAdminFromEnv({ auth: authB, db: second }, env)])).toEqual([null, null]);
      expect(await db.prisma.user.count()).toBe(1);
    });
  });

  describe(`access on ${kind}`, () => {
    let db: Database;
    let auth: Auth;
    let cleanup: () => Promise<void>;
    let admin: { id: string; email: string };
    const env: Record<string, string> = {};
    const deps = (): AccessDeps => ({ auth, prisma: db.prisma, env, limiter: new KeyRateLimiter() });

    beforeAll(async () => {
      ({ db, cleanup } = await emptyDatabase(kind));
      auth = createAuth(db.prisma, { secret: SECRET, env: AUTH_ENV });
      await createFirstAdmin({ auth, db }, { email: "admin@example.com", password: PASSWORD }, "test");
      admin = await db.prisma.user.findUniqueOrThrow({ where: { email: "admin@example.com" }, select: { id: true, email: true } });
    });
    afterAll(() => cleanup?.());

    async function signIn(email: string): Promise<string> {
      const res = await auth.api.signInEmail({ body: { email, password: PASSWORD }, asResponse: true });
      expect(res.status).toBe(200);
      return res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    }

    it("refuses self sign-up through better-auth's endpoint", async () => {
      const res = await auth.handler(
        new Request(`${BASE}/api/auth/sign-up/email`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: BASE },
          body: JSON.stringify({ email: "walkin@example.com", password: PASSWORD, name: "w" }),
        }),
      );
      expect(res.status).toBe(403);
      expect(await db.prisma.user.count({ where: { email: "walkin@example.com" } })).toBe(0);
    });

    it("gives a signed-in owner admin+write+read on default, and refuses cookie writes from another origin", async () => {
      const cookie = await signIn("admin@example.com");
      const a = await resolveAccessWith(deps(), req("/api/v1/conversations", { headers: { cookie } }));
      expect(a).toMatchObject({ projectId: "default", scopes: ["read", "write", "admin"], actor: { kind: "account", label: "admin@example.com" } });
      const post = (headers: Record<string, string>) => resolveAccessWith(deps(), req("/api/v1/users/u/memories", { method: "POST", headers: { cookie, ...headers } }));
      await expect(post({})).rejects.toMatchObject({ kind: "forbidden" });
      await expect(post({ origin: "http://evil.example" })).rejects.toMatchObject({ kind: "forbidden" });
      await expect(post({ "sec-fetch-site": "cross-site", origin: BASE })).rejects.toMatchObject({ kind: "forbidden" });
      expect(await post({ origin: BASE })).toMatchObject({ projectId: "default" });
      expect(await post({ "sec-fetch-site": "same-origin" })).toMatchObject({ projectId: "default" });
    });

    it("better-auth's own endpoints refuse cookie writes from any origin but the server's, though Vitest sets TEST=true", async () => {
      expect(process.env.TEST).toBe("true"); // what made better-auth skip these checks before
      const cookie = await signIn("admin@example.com");
      const post = (path: string, body: unknown, headers: Record<string, string>) =>
        auth.handler(req(`/api/auth${path}`, { method: "POST", headers: { cookie, "content-type": "application/json", ...headers }, body: JSON.stringify(body) }));
      const writes: [string, unknown][] = [
        ["/update-user", { name: "renamed by evil" }],
        ["/organization/create", { name: "Evil project", slug: "evil-project" }],
        ["/organization/set-active", { organizationId: null }],
        ["/api-key/create", { name: "stolen", organizationId: "default" }],
        ["/sign-out", {}],
      ];
      const foreign: Record<string, string>[] = [{ origin: "http://evil.example" }, { origin: "http://127.0.0.1:4000" }, { origin: "null" }, {}];
      for (const headers of foreign) {
        for (const [path, body] of writes) expect((await post(path, body, headers)).status, `${path} ${JSON.stringify(headers)}`).toBe(403);
      }
      expect(await db.prisma.organization.count({ where: { name: "Evil project" } })).toBe(0);
      expect(await db.prisma.apikey.count({ where: { name: "stolen" } })).toBe(0);
      // The server's own origins may: 127.0.0.1 and localhost on its port.
      expect((await post("/update-user", { name: "Admin" }, { origin: BASE })).status).toBe(200);
      expect((await post("/update-user", { name: "Admin" }, { origin: "http://localhost:3999" })).status).toBe(200);
      expect((await db.prisma.user.findUniqueOrThrow({ where: { email: "admin@example.com" } })).name).toBe("Admin");
    });

    it("keys: the key decides the project and scopes; revoked keys stop at once; audit records both", async () => {
      const actor = { userId: admin.id, label: admin.email };
      await expect(createProjectKey({ auth, prisma: db.prisma }, "default", { name: "x", scopes: ["root"] }, actor)).rejects.toMatchObject({
        kind: "validation",
        details: [{ field: "scopes" }],
      });
      const ro = await createProjectKey({ auth, prisma: db.prisma }, "default", { name: "reader", scopes: ["read"], expiresInDays: 30 }, actor);
      expect(ro.key).toMatch(/^msk_/);
      const stored = await db.prisma.apikey.findUniqueOrThrow({ where: { id: ro.id } });
      expect(stored.key).not.toContain(ro.key.slice(4)); // only a hash is kept
      const a = await resolveAccessWith(deps(), req("/api/v1/conversations", { headers: { authorization: `Bearer ${ro.key}` } }));
      expect(a).toMatchObject({ projectId: "default", scopes: ["read"], actor: { kind: "key", label: "reader" } });

      const other = await createProject(db.prisma, "Other team", { userId: admin.id, email: admin.email });
      const ok = await createProjectKey({ auth, prisma: db.prisma }, other.id, { name: "other-rw", scopes: ["read", "write"] }, actor);
      expect(await resolveAccessWith(deps(), req("/x", { headers: { authorization: `Bearer ${ok.key}` } }))).toMatchObject({ projectId: other.id, scopes: ["read", "write"] });

      const listed = (await listProjectKeys(db.prisma, "default")).find((k) => k.name === "reader");
      expect(listed).toMatchObject({ name: "reader", scopes: ["read"], createdBy: "admin@example.com", start: ro.key.slice(0, 10) });
      expect(listed!.lastUsedAt).not.toBeNull();
      await expect(revokeProjectKey(db.prisma, other.id, ro.id, actor)).rejects.toMatchObject({ kind: "not_found" });
      await revokeProjectKey(db.prisma, "default", ro.id, actor);
      expect(await resolveAccessWith(deps(), req("/x", { headers: { authorization: `Bearer ${ro.key}` } }))).toBeNull();
      expect(await resolveAccessWith(deps(), req("/x", { headers: { authorization: "Bearer msk_nonsense" } }))).toBeNull();
      const audit = await listAudit(db.prisma, "default");
      expect(audit.map((e) => e.action)).toEqual(expect.arrayContaining(["key.created", "key.revoked", "member.added"]));
      expect(audit.find((e) => e.action === "key.revoked")).toMatchObject({ actor: "admin@example.com", target: "reader" });
    });

    it("a key's use is stamped at most once a minute, yet a revoked, disabled or expired key is refused on its very next request", async () => {
      const k = await createProjectKey({ auth, prisma: db.prisma }, "default", { name: "exporter", scopes: ["write"] }, { userId: admin.id, label: admin.email });
      const use = () => resolveAccessWith(deps(), req("/api/v1/traces", { method: "POST", headers: { authorization: `Bearer ${k.key}` } }));
      const row = () => db.prisma.apikey.findUniqueOrThrow({ where: { id: k.id }, select: { lastRequest: true, updatedAt: true } });
      const t0 = Date.now();
      expect(await use()).toMatchObject({ projectId: "default", scopes: ["write"], actor: { kind: "key", id: k.id } });
      const first = await row();
      expect(first.lastRequest!.getTime()).toBeGreaterThanOrEqual(t0 - 1000);
      // Within the minute: the request is let in and the row is not written again.
      for (let i = 0; i < 3; i++) expect(await use()).not.toBeNull();
      expect(await row()).toEqual(first);
      // A use older than the step moves to now, and the key page says so.
      await db.prisma.apikey.update({ where: { id: k.id }, data: { lastRequest: new Date(t0 - LAST_USED_STEP_MS - 5000) } });
      expect(await use()).not.toBeNull();
      expect((await row()).lastRequest!.getTime()).toBeGreaterThanOrEqual(t0 - 1000);
      expect(Date.parse((await listProjectKeys(db.prisma, "default")).find((x) => x.id === k.id)!.lastUsedAt!)).toBeGreaterThanOrEqual(t0 - 1000);
      // Disabled, expired: refused on the next request, and let in again once undone (nothing cached either way).
      await db.prisma.apikey.update({ where: { id: k.id }, data: { enabled: false } });
      expect(await use()).toBeNull();
      await db.prisma.apikey.update({ where: { id: k.id }, data: { enabled: true, expiresAt: new Date(Date.now() - 1000) } });
      expect(await use()).toBeNull();
      await db.prisma.apikey.update({ where: { id: k.id }, data: { expiresAt: new Date(Date.now() + 86_400_000) } });
      expect(await use()).not.toBeNull();
      // Revoked right after a request that was let in: the next one is refused.
      await revokeProjectKey(db.prisma, "default", k.id, { userId: admin.id, label: admin.email });
      expect(await use()).toBeNull();
    });

    it("rate-limits a key with 429 and Retry-After", async () => {
      const k = await createProjectKey({ auth, prisma: db.prisma }, "default", { name: "busy", scopes: ["read"] }, { userId: admin.id, label: admin.email });
      const d = { ...deps(), env: { MEMSCOPE_KEY_RATE_LIMIT: "2/60" } };
      const r = () => resolveAccessWith(d, req("/x", { headers: { authorization: `Bearer ${k.key}` } }));
      await r();
      await r();
      const err = await r().catch((e) => e);
      expect(err).toBeInstanceOf(RateLimitedError);
      expect(err.retryAfterSeconds).toBeGreaterThan(0);
    });

    it("MEMSCOPE_API_KEY is the bootstrap admin key of default", async () => {
      const bootstrap = "bootstrap-secret-0123456789abcdef0123";
      const d = { ...deps(), env: { MEMSCOPE_API_KEY: bootstrap } };
      expect(await resolveAccessWith(d, req("/x", { headers: { authorization: `Bearer ${bootstrap}` } }))).toMatchObject({
        projectId: "default",
        scopes: ["read", "write", "admin"],
        actor: { kind: "bootstrap" },
      });
      expect(await resolveAccessWith(d, req("/x", { headers: { authorization: `Bearer ${bootstrap.slice(0, -1)}` } }))).toBeNull();
    });

    it("an invited viewer reads only; another project is 404; role names are checked", async () => {
      const actor = { userId: admin.id, label: admin.email, role: "owner" as const };
      await expect(createInvitation(db.prisma, "default", { email: "v@example.com", role: "superuser" }, actor)).rejects.toMatchObject({ kind: "validation", details: [{ field: "role" }] });
      const inv = await createInvitation(db.prisma, "default", { email: "v@example.com", role: "viewer" }, actor);
      const signup = await auth.api.signUpEmail({ body: { email: "v@example.com", password: PASSWORD, name: "V" }, asResponse: true });
      expect(signup.status).toBe(200);
      const viewer = await db.prisma.user.findUniqueOrThrow({ where: { email: "v@example.com" } });
      await expect(acceptInvitation(db.prisma, inv.id, { id: admin.id, email: admin.email })).rejects.toMatchObject({ kind: "forbidden" });
      await acceptInvitation(db.prisma, inv.id, { id: viewer.id, email: viewer.email });
      const cookie = await signIn("v@example.com");
      expect(await resolveAccessWith(deps(), req("/x", { headers: { cookie } }))).toMatchObject({ projectId: "default", scopes: ["read"] });
      const other = await createProject(db.prisma, "Viewer's other team", { userId: admin.id, email: admin.email });
      await expect(resolveAccessWith(deps(), req("/x", { headers: { cookie, "x-memscope-project": other.id } }))).rejects.toMatchObject({ kind: "not_found" });

      const vm = (await listMembers(db.prisma, "default")).find((m) => m.email === "v@example.com")!;
      await expect(changeMemberRole(db.prisma, "default", vm.id, "root", actor)).rejects.toMatchObject({ kind: "validation" });
      const owner = (await listMembers(db.prisma, "default")).find((m) => m.role === "owner")!;
      await expect(changeMemberRole(db.prisma, "default", owner.id, "viewer", actor)).rejects.toMatchObject({ kind: "conflict" });
      await changeMemberRole(db.prisma, "default", vm.id, "member", actor);
      expect(await resolveAccessWith(deps(), req("/x", { headers: { cookie } }))).toMatchObject({ scopes: ["read", "write"] });
      const audit = await listAudit(db.prisma, "default");
      expect(audit[0]).toMatchObject({ action: "member.role_changed", actor: "admin@example.com", target: "v@example.com", details: { from: "viewer", to: "member" } });
    });
  });
}

