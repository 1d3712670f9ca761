import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPEN_AUTH_ENDPOINTS } from "@/lib/api/auth-endpoint-policy";
import { createAuth } from "@/lib/auth/create-auth";
import type { AppServer } from "../helpers/app-server";
import { OWNER_ENV, signInOwner, type Owner } from "../helpers/owner";
import { ONE_KIND, startAppOn } from "../helpers/test-database";

// better-auth's own endpoints at /api/auth/* against Memscope's rules: a project admin calls
// each one directly, with a real session and the page's Origin. Keys, members, invitations and
// roles change only through Memscope's contracts (audited, with their actor); better-auth's
// endpoints for the same changes answer 404, and another project's ids get the answer a fresh
// id gets, there and on Memscope's own routes.

const PASSWORD = "correct horse battery";
const FRESH = "fresh-id-that-never-existed";

/** Every HTTP endpoint this better-auth build publishes, read off an instance with Memscope's options. */
function betterAuthEndpoints(): { method: string; path: string }[] {
  // The routes need no database to be listed.
  const auth = createAuth({} as never, { secret: randomBytes(32).toString("hex"), publicUrl: "http://127.0.0.1", env: {} });
  const out: { method: string; path: string }[] = [];
  for (const ep of Object.values(auth.api as Record<string, { path?: string; options?: { method?: string | string[] } }>)) {
    if (!ep?.path) continue; // server-only (no HTTP route)
    const methods = ep.options?.method ?? "GET";
    for (const method of Array.isArray(methods) ? methods : [methods]) {
      out.push({ method: method === "*" ? "POST" : method, path: ep.path.replace(/:[a-zA-Z]+/g, "oidc") });
    }
  }
  return out;
}

/** An answer with one id written as <id>, to compare a foreign id's answer with a fresh id's. */
async function answer(res: Response, id: string) {
  const text = await res.text();
  return { status: res.status, body: text.split(id).join("<id>").split(encodeURIComponent(id)).join("<id>") };
}

// Which endpoints answer and what they refuse: one database kind (the rule is in tests/helpers/test-database.ts).
for (const kind of ONE_KIND) {
  describe(`better-auth's endpoints and Memscope's rules on ${kind}`, () => {
    let app: AppServer;
    let owner: Owner;
    let alice = ""; // admin of the default project, not a member of project B
    let b = { project: "", keyId: "", invitationId: "", memberId: "" };
    let a = { keyId: "", invitationId: "", aliceMemberId: "", ownerMemberId: "" };

    type Init = Omit<RequestInit, "headers"> & { headers?: Record<string, string> };
    const call = (path: string, init: Init = {}) => fetch(`${app.url}${path}`, init);
    const as = (cookie: string, path: string, init: Init = {}) =>
      call(path, { ...init, headers: { cookie, origin: app.url, "content-type": "application/json", ...(init.headers ?? {}) } });
    const json = (v: unknown) => JSON.stringify(v);

    /** Invites `email` to the default project as `role` and accepts the link: the new account's session. */
    async function join(email: string, role: string): Promise<string> {
      const inv = await owner.post("/project/invitations", { email, role });
      const res = await call(`/api/auth/invitation/${inv.id}`, { method: "POST", headers: { "content-type": "application/json", origin: app.url }, body: json({ name: email.split("@")[0], password: PASSWORD }) });
      expect(res.status).toBe(201);
      return res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    }

    /** Keys, members, invitations and audit rows of a project, as its owner reads them. */
    async function snapshot(project: string) {
      const h = { "x-memscope-project": project };
      const read = async (p: string) => (await (await as(owner.cookie, `/api/v1/project/${p}`, { headers: h })).json()).data;
      return { keys: await read("keys"), members: await read("members"), invitations: await read("invitations"), audit: await read("audit") };
    }

    beforeAll(async () => {
      app = await startAppOn(kind, { env: OWNER_ENV });
      owner = await signInOwner(app.url);
      b.project = (await owner.post("/projects", { name: "Other team" })).id;
      b.keyId = (await owner.post("/project/keys", { name: "b-key", scopes: ["read"] }, b.project)).id;
      b.invitationId = (await owner.post("/project/invitations", { email: "bob@example.com", role: "member" }, b.project)).id;
      b.memberId = (await snapshot(b.project)).members[0].id;

      alice = await join("alice@example.com", "admin");
      a.keyId = (await owner.post("/project/keys", { name: "a-key", scopes: ["read"] })).id;
      a.invitationId = (await owner.post("/project/invitations", { email: "carol@example.com", role: "viewer" })).id;
      const members = (await snapshot("default")).members as { id: string; email: string }[];
      a.aliceMemberId = members.find((m) => m.email === "alice@example.com")!.id;
      a.ownerMemberId = members.find((m) => m.email === OWNER_ENV.MEMSCOPE_ADMIN_EMAIL)!.id;
    });
    afterAll(() => app?.stop());

    it("refuses better-auth's key, member, invitation and role changes from a project admin, for their own project too, and nothing changes or goes unaudited", async () => {
      const before = { a: await snapshot("default"), b: await snapshot(b.project) };
      const tries: [string, unknown][] = [
        ["/api/auth/api-key/create", { name: "sneaky", organizationId: "default" }],
        ["/api/auth/api-key/update", { keyId: a.keyId, name: "renamed", enabled: false }],
        ["/api/auth/api-key/delete", { keyId: a.keyId }],
        ["/api/auth/organization/invite-member", { email: "mallory@example.com", role: "owner", organizationId: "default" }],
        ["/api/auth/organization/update-member-role", { memberId: a.aliceMemberId, role: "owner", organizationId: "default" }],
        ["/api/auth/organization/remove-member", { memberIdOrEmail: a.ownerMemberId, organizationId: "default" }],
        ["/api/auth/organization/cancel-invitation", { invitationId: a.invitationId }],
        ["/api/auth/organization/update", { organizationId: "default", data: { name: "Taken" } }],
        ["/api/auth/organization/create", { name: "Side", slug: "side" }],
        ["/api/auth/organization/delete", { organizationId: b.project }],
        ["/api/auth/organization/leave", { organizationId: "default" }],
        ["/api/auth/organization/set-active", { organizationId: b.project }],
      ];
      for (const [path, body] of tries) {
        const res = await as(alice, path, { method: "POST", body: json(body) });
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expect((await res.json()).error.code).toBe("not_found");
      }
      expect({ a: await snapshot("default"), b: await snapshot(b.project) }).toEqual(before);
    });

    it("answers every better-auth endpoint the pages do not call with the 404 of a path that never existed", async () => {
      const endpoints = betterAuthEndpoints();
      // The list really is better-auth's (a renamed export would otherwise pass this test empty).
      expect(endpoints.map((e) => `${e.method} ${e.path}`)).toEqual(expect.arrayContaining(["POST /api-key/create", "POST /organization/invite-member", "POST /sign-in/email"]));
      for (const open of OPEN_AUTH_ENDPOINTS) expect(endpoints.map((e) => `${e.method} ${e.path}`)).toContain(open);

      const ids = { id: b.keyId, keyId: b.keyId, invitationId: b.invitationId, memberId: b.memberId, memberIdOrEmail: b.memberId, organizationId: b.project, userId: "x", role: "owner", name: "n", email: "m@example.com", slug: "s", token: "t" };
      const query = new URLSearchParams(ids as Record<string, string>).toString();
      const never = async (method: string) => answer(await as(alice, "/api/auth/no-such-endpoint", method === "GET" ? { method } : { method, body: json(ids) }), "/no-such-endpoint");
      for (const { method, path } of endpoints) {
        if (OPEN_AUTH_ENDPOINTS.has(`${method} ${path}`)) continue;
        const res = await as(alice, `/api/auth${path}${method === "GET" ? `?${query}` : ""}`, method === "GET" ? { method } : { method, body: json(ids) });
        expect({ endpoint: `${method} ${path}`, ...(await answer(res, path)) }).toEqual({ endpoint: `${method} ${path}`, ...(await never(method)) });
      }
      // Nothing reached B.
      const bNow = await snapshot(b.project);
      expect(bNow.keys.map((k: { id: string }) => k.id)).toEqual([b.keyId]);
      expect(bNow.invitations.map((i: { id: string }) => i.id)).toEqual([b.invitationId]);
      expect(bNow.members.map((m: { id: string }) => m.id)).toEqual([b.memberId]);
    });

    it("gives another project's key, invitation, member and project the answer a fresh id gets", async () => {
      const pairs: [string, string, (id: string) => Promise<Response>][] = [
        // better-auth's, named in the review
        ["api-key/get", b.keyId, (id) => as(alice, `/api/auth/api-key/get?id=${encodeURIComponent(id)}`)],
        ["api-key/update", b.keyId, (id) => as(alice, "/api/auth/api-key/update", { method: "POST", body: json({ keyId: id, name: "x" }) })],
        ["api-key/delete", b.keyId, (id) => as(alice, "/api/auth/api-key/delete", { method: "POST", body: json({ keyId: id }) })],
        ["get-invitation", b.invitationId, (id) => as(alice, `/api/auth/organization/get-invitation?id=${encodeURIComponent(id)}`)],
        ["accept-invitation", b.invitationId, (id) => as(alice, "/api/auth/organization/accept-invitation", { method: "POST", body: json({ invitationId: id }) })],
        ["reject-invitation", b.invitationId, (id) => as(alice, "/api/auth/organization/reject-invitation", { method: "POST", body: json({ invitationId: id }) })],
        ["cancel-invitation", b.invitationId, (id) => as(alice, "/api/auth/organization/cancel-invitation", { method: "POST", body: json({ invitationId: id }) })],
        // Memscope's own
        ["revoke key", b.keyId, (id) => as(alice, `/api/v1/project/keys/${encodeURIComponent(id)}`, { method: "DELETE" })],
        ["change role", b.memberId, (id) => as(alice, `/api/v1/project/members/${encodeURIComponent(id)}`, { method: "PATCH", body: json({ role: "viewer" }) })],
        ["remove member", b.memberId, (id) => as(alice, `/api/v1/project/members/${encodeURIComponent(id)}`, { method: "DELETE" })],
        ["cancel invitation", b.invitationId, (id) => as(alice, `/api/v1/project/invitations/${encodeURIComponent(id)}`, { method: "DELETE" })],
        ["project header", b.project, (id) => as(alice, "/api/v1/project/keys", { headers: { "x-memscope-project": id } })],
        ["project switch", b.project, (id) => as(alice, "/api/auth/project", { method: "POST", body: json({ project_id: id }) })],
      ];
      for (const [what, theirs, send] of pairs) {
        const foreign = await answer(await send(theirs), theirs);
        const fresh = await answer(await send(FRESH), FRESH);
        expect({ what, ...foreign }).toEqual({ what, ...fresh });
        expect({ what, status: foreign.status }).toEqual({ what, status: 404 });
      }
      const bNow = await snapshot(b.project);
      expect([bNow.keys.length, bNow.invitations.length, bNow.members.length]).toEqual([1, 1, 1]);
    });

    it("records every change made through Memscope's contracts with the member who made it", async () => {
      const h = (body?: unknown, method = "POST") => ({ method, ...(body === undefined ? {} : { body: json(body) }) });
      const key = await (await as(alice, "/api/v1/project/keys", h({ name: "alice-key", scopes: ["read", "write"] }))).json();
      const inv = await (await as(alice, "/api/v1/project/invitations", h({ email: "dan@example.com", role: "viewer" }))).json();
      const accepted = await call(`/api/auth/invitation/${inv.id}`, { method: "POST", headers: { "content-type": "application/json", origin: app.url }, body: json({ name: "Dan", password: PASSWORD }) });
      expect(accepted.status).toBe(201);
      const dan = ((await snapshot("default")).members as { id: string; email: string }[]).find((m) => m.email === "dan@example.com")!;
      expect((await as(alice, `/api/v1/project/members/${dan.id}`, h({ role: "member" }, "PATCH"))).status).toBe(200);
      expect((await as(alice, `/api/v1/project/members/${dan.id}`, h(undefined, "DELETE"))).status).toBe(204);
      const inv2 = await (await as(alice, "/api/v1/project/invitations", h({ email: "eve@example.com", role: "viewer" }))).json();
      expect((await as(alice, `/api/v1/project/invitations/${inv2.id}`, h(undefined, "DELETE"))).status).toBe(204);
      expect((await as(alice, `/api/v1/project/keys/${key.id}`, h(undefined, "DELETE"))).status).toBe(204);

      const mine = new Set(["alice-key", "dan@example.com", "eve@example.com"]);
      const audit = ((await snapshot("default")).audit as { action: string; actor: string; target: string }[]).filter((e) => mine.has(e.target)).reverse();
      expect(audit.map((e) => [e.action, e.actor, e.target])).toEqual([
        ["key.created", "alice@example.com", "alice-key"],
        ["invitation.created", "alice@example.com", "dan@example.com"],
        ["member.added", "alice@example.com's invitation", "dan@example.com"],
        ["member.role_changed", "alice@example.com", "dan@example.com"],
        ["member.removed", "alice@example.com", "dan@example.com"],
        ["invitation.created", "alice@example.com", "eve@example.com"],
        ["invitation.cancelled", "alice@example.com", "eve@example.com"],
        ["key.revoked", "alice@example.com", "alice-key"],
      ]);
    });

    it("tells an invitation link's holder only what the accept page shows", async () => {
      const inv = await owner.post("/project/invitations", { email: "fay@example.com", role: "member" });
      const res = await call(`/api/auth/invitation/${inv.id}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ email: "fay@example.com", role: "member", project_name: "Default", has_account: false });
      const fresh = await answer(await call(`/api/auth/invitation/${FRESH}`), FRESH);
      expect((await as(owner.cookie, `/api/v1/project/invitations/${inv.id}`, { method: "DELETE" })).status).toBe(204);
      expect(await answer(await call(`/api/auth/invitation/${inv.id}`), inv.id)).toEqual(fresh);
    });

    it("keeps the pages' own better-auth calls working: password change, sign-out, sign-in", async () => {
      const gil = await join("gil@example.com", "viewer");
      const change = await as(gil, "/api/auth/change-password", { method: "POST", body: json({ currentPassword: PASSWORD, newPassword: `${PASSWORD}!`, revokeOtherSessions: true }) });
      expect(change.status).toBe(200);
      const renewed = change.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ") || gil;
      expect((await as(renewed, "/api/auth/sign-out", { method: "POST", body: "{}" })).status).toBe(200);
      const signIn = (password: string) =>
        call("/api/auth/sign-in/email", { method: "POST", headers: { "content-type": "application/json", origin: app.url }, body: json({ email: "gil@example.com", password }) });
      expect((await signIn(PASSWORD)).status).toBe(401);
      expect((await signIn(`${PASSWORD}!`)).status).toBe(200);
    });

    it("names the session cookie in the OpenAPI document as sign-in sets it", async () => {
      const names = owner.cookie.split("; ").map((c) => c.split("=")[0]);
      const session = names.find((n) => n.endsWith(".session_token"));
      expect(session).toBeDefined();
      const doc = await (await call("/api/v1/openapi.json")).json();
      expect(doc.components.securitySchemes.session.name).toBe(session);
    });
  });
}
