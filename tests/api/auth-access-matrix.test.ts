import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppServer } from "../helpers/app-server";
import { OWNER_ENV, signInOwner } from "../helpers/owner";
import { startAppOn } from "../helpers/test-database";

// The access matrix, generated from the live openapi.json (nothing hand-listed: a new
// route is covered by default). For every operation: no credentials -> 401; a key of
// another project -> 404 for every operation on an id; a key without the operation's grant -> 403 missing_scope; a key
// with exactly that grant is let through (never 401/403), and a GET without path ids or
// required query answers 2xx.

type Op = { method: string; path: string; scope: string; grant: string | null; pathParams: string[]; requiredQuery: boolean; hasBody: boolean };

const SOME_UUID = "7b0e1f0a-0000-4000-8000-000000000000";

describe("access matrix from openapi.json", () => {
  let app: AppServer;
  let ops: Op[] = [];
  const keys: Record<string, string> = {};
  let otherProjectKey = "";

  beforeAll(async () => {
    app = await startAppOn("embedded", { seed: true, env: OWNER_ENV });
    const owner = await signInOwner(app.url);
    for (const [name, scopes] of Object.entries({ read: ["read"], write: ["write"], admin: ["admin"], readwrite: ["read", "write"], writeadmin: ["write", "admin"], readadmin: ["read", "admin"] })) {
      keys[name] = await owner.key(name, scopes);
    }
    const b = await owner.post("/projects", { name: "Elsewhere" });
    otherProjectKey = await owner.key("b-all", ["read", "write", "admin"], b.id);

    const doc = await (await fetch(`${app.url}/api/v1/openapi.json`)).json();
    for (const [path, byMethod] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(byMethod)) {
        if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
        const scope: string = op["x-scope"];
        const params: any[] = op.parameters ?? [];
        ops.push({
          method: method.toUpperCase(),
          path,
          scope,
          grant: scope === "public" ? null : scope.split(":")[1],
          pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
          requiredQuery: params.some((p) => p.in === "query" && p.required),
          hasBody: !!op.requestBody,
        });
      }
    }
  });
  afterAll(() => app?.stop());

  const url = (op: Op) => `${app.url}/api/v1${op.path.replace(/\{[^}]+\}/g, (m) => (m === "{user_id}" ? "ana%40example.com" : SOME_UUID))}`;
  const send = (op: Op, key: string | null) =>
    fetch(url(op), {
      method: op.method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(op.hasBody ? { "content-type": "application/json" } : {}) },
      body: op.hasBody ? "{}" : undefined,
    });
  /** A key holding every grant but this one. */
  const keyWithout = (grant: string) => ({ read: keys.writeadmin, write: keys.readadmin, admin: keys.readwrite })[grant]!;

  it("the document lists the operations, each with a scope", () => {
    expect(ops.length).toBeGreaterThan(40);
    for (const op of ops) expect(op.scope, `${op.method} ${op.path}`).toMatch(/^(public|\w+:(read|write|admin))$/);
  });

  it("no credentials: 401 on every operation that is not public", async () => {
    const wrong: string[] = [];
    for (const op of ops.filter((o) => o.grant)) {
      const r = await send(op, null);
      if (r.status !== 401) wrong.push(`${op.method} ${op.path}: ${r.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it("a key of another project: 404 on every operation on an id", async () => {
    const wrong: string[] = [];
    // Operations without ids (or with only a user name, a namespace each project has of its
    // own) act within the caller's project: tests/api/project-isolation.test.ts shows that
    // they reveal and change nothing of another project's.
    for (const op of ops.filter((o) => o.grant && o.pathParams.some((p) => p !== "user_id"))) {
      const r = await send(op, otherProjectKey);
      // An empty body or a missing required query parameter may be refused (422 naming the
      // field) before anything is looked up: nothing is revealed (project-isolation.test.ts
      // sends valid ones and sees the 404).
      const bodyRefused = r.status === 422 && /^Invalid (body|query)/.test((await r.json()).error.message);
      if (r.status !== 404 && !bodyRefused) wrong.push(`${op.method} ${op.path}: ${r.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it("a key of another project: 404 for this project's real member, key and invitation ids, with valid bodies", async () => {
    const own = (path: string, init: RequestInit = {}) =>
      fetch(`${app.url}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${keys.readadmin}`, "content-type": "application/json" } }).then((r) => r.json());
    const other = (method: string, path: string, body?: unknown) =>
      fetch(`${app.url}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${otherProjectKey}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((r) => r.status);
    const member = (await own("/project/members")).data[0];
    const key = (await own("/project/keys")).data[0];
    const inv = await own("/project/invitations", { method: "POST", body: JSON.stringify({ email: "x@example.com", role: "viewer" }) });
    expect(await other("PATCH", `/project/members/${member.id}`, { role: "viewer" })).toBe(404);
    expect(await other("DELETE", `/project/members/${member.id}`)).toBe(404);
    expect(await other("DELETE", `/project/keys/${key.id}`)).toBe(404);
    expect(await other("DELETE", `/project/invitations/${inv.id}`)).toBe(404);
    // And nothing changed.
    expect((await own("/project/members")).data[0]).toMatchObject({ id: member.id, role: "owner" });
    expect((await own("/project/keys")).data.map((k: { id: string }) => k.id)).toContain(key.id);
  });

  it("a key without the operation's grant: 403 missing_scope", async () => {
    const wrong: string[] = [];
    for (const op of ops.filter((o) => o.grant)) {
      const r = await send(op, keyWithout(op.grant!));
      const code = r.status === 403 ? (await r.json()).error.code : null;
      if (code !== "missing_scope") wrong.push(`${op.method} ${op.path}: ${r.status} ${code ?? ""}`);
    }
    expect(wrong).toEqual([]);
  });

  it("a key with exactly that grant is let through; GETs without ids answer 2xx", async () => {
    const wrong: string[] = [];
    for (const op of ops.filter((o) => o.grant)) {
      const r = await send(op, keys[op.grant!]);
      const body = r.status >= 400 ? await r.json().catch(() => ({})) : null;
      if (r.status === 401 || (r.status === 403 && body?.error?.code === "missing_scope") || r.status >= 500) {
        wrong.push(`${op.method} ${op.path}: ${r.status} ${body?.error?.code ?? ""}`);
      }
      const plainGet = op.method === "GET" && op.pathParams.filter((p) => p !== "user_id").length === 0 && !op.requiredQuery;
      if (plainGet && (r.status < 200 || r.status > 299)) wrong.push(`${op.method} ${op.path}: ${r.status} (expected 2xx)`);
    }
    expect(wrong).toEqual([]);
  });
});
