import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { urlPathOf, type ApiContract } from "@/lib/api/contract";
import { ALL_CONTRACTS } from "@/lib/api/contracts";
import { buildOpenApi } from "@/lib/api/openapi";
import { allowedMethods } from "@/lib/api/route-table";

// Every route file under app/api answers through a contract whose method and path match the
// file, and every contract has its route: the OpenAPI document (made from the contracts)
// therefore lists exactly what the server answers, and withApi gives every route the same
// input guard, limits, error shape and status log.

const ROOT = path.resolve(__dirname, "../..");
const API_DIR = path.join(ROOT, "app/api");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
// Served without a contract on purpose, each for its reason.
const UNCONTRACTED: Record<string, string> = {
  "/api/v1/openapi.json": "the document itself",
  "/api/auth/{...all}": "better-auth's own endpoints (an allow-list: lib/api/auth-endpoint-policy.ts); their bodies are better-auth's",
  "/api/mcp": "JSON-RPC over Streamable HTTP: the MCP transport reads the body; each tool call goes through the contracted routes with the caller's key",
};

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return routeFiles(p);
    return e.name === "route.ts" ? [p] : [];
  });
}

const urlPathOfFile = (file: string) =>
  "/api/" + path.relative(API_DIR, path.dirname(file)).split(path.sep).map((s) => s.replace(/^\[(\.{3}\w+|\w+)\]$/, "{$1}")).join("/");

describe("route contracts", () => {
  it("every exported handler under app/api carries the contract of its own method and path, and every contract is served", async () => {
    const served: ApiContract[] = [];
    const files = routeFiles(API_DIR);
    expect(files.map(urlPathOfFile)).toEqual(expect.arrayContaining(["/api/auth/first-admin", "/api/auth/state", "/api/v1/ready"]));
    for (const file of files) {
      const urlPath = urlPathOfFile(file);
      if (UNCONTRACTED[urlPath]) continue;
      const mod = (await import(file)) as Record<string, unknown>;
      for (const m of METHODS) {
        const h = mod[m] as { contract?: ApiContract } | undefined;
        if (!h) continue;
        expect(h.contract, `${m} ${urlPath} is not wrapped by withApi(contract, …)`).toBeDefined();
        expect({ method: h.contract!.method, path: urlPathOf(h.contract!) }).toEqual({ method: m, path: urlPath });
        served.push(h.contract!);
      }
    }
    expect(new Set(served).size).toBe(served.length);
    const missing = ALL_CONTRACTS.filter((c) => !served.includes(c)).map((c) => `${c.method} ${urlPathOf(c)}`);
    expect(missing).toEqual([]);
  });

  it("every contract declares a scope, and writes never need only read", () => {
    for (const c of ALL_CONTRACTS) {
      expect(c.scope, `${c.method} ${c.path}`).toMatch(/^(public|[a-z]+:(read|write|admin))$/);
      if (c.method !== "GET" && c.scope.endsWith(":read")) {
        // Reads by POST (search, context, previews) are listed here so a new write cannot slip in as read.
        expect(["/users/{user_id}/memories/search", "/context", "/window", "/users/{user_id}/memory-md/preview", "/replay"]).toContain(c.path);
      }
    }
  });

  it("the OpenAPI document lists each operation with its scope, body and statuses", () => {
    const doc = buildOpenApi();
    const ops = Object.entries(doc.paths).flatMap(([p, byMethod]) => Object.keys(byMethod).filter((m) => m !== "servers").map((m) => `${m.toUpperCase()} ${p}`));
    expect(ops.sort()).toEqual(ALL_CONTRACTS.map((c) => `${c.method} ${c.path}`).sort());
    const create = doc.paths["/users/{user_id}/memories"].post as Record<string, any>;
    expect(create["x-scope"]).toBe("memories:write");
    expect(Object.keys(create.requestBody.content["application/json"].schema.properties)).toContain("dedupe_threshold");
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(["200", "201", "401", "403", "415", "422"]));
    // withApi's schema check of path fields answers 422 on a GET without a body too (a user_id of 201 characters).
    const claudeMd = doc.paths["/users/{user_id}/memory-files/MEMORY.md"].get as Record<string, any>;
    expect(Object.keys(claudeMd.responses)).toContain("422");
    const ready = doc.paths["/ready"].get as Record<string, any>;
    expect(ready.security).toEqual([]);
    expect(Object.keys(ready.responses)).not.toContain("422");
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(JSON.stringify(doc)).not.toContain("x-api-key");
    // The session routes: under /api (their own server), public, with their error statuses.
    const firstAdmin = doc.paths["/auth/first-admin"] as Record<string, any>;
    expect(firstAdmin.servers).toEqual([{ url: "/api" }]);
    expect(firstAdmin.post["x-scope"]).toBe("public");
    expect(Object.keys(firstAdmin.post.responses)).toEqual(expect.arrayContaining(["201", "403", "409", "422", "429"]));
    expect(Object.keys(firstAdmin.post.requestBody.content["application/json"].schema.properties)).toEqual(["email", "password", "name"]);
  });

  it("the proxy's method table answers 405 for what no route declares", () => {
    expect(allowedMethods("/api/v1/memories/7b0e1f0a-0000-4000-8000-000000000000")).toEqual(
      expect.arrayContaining(["GET", "PATCH", "DELETE", "HEAD", "OPTIONS"]),
    );
    expect(allowedMethods("/api/v1/memories/7b0e1f0a-0000-4000-8000-000000000000")).not.toContain("PUT");
    expect(allowedMethods("/api/v1/conversations/facets")).toEqual(["GET", "HEAD", "OPTIONS"]);
    expect(allowedMethods("/api/v1/ready")).not.toContain("POST");
    expect(allowedMethods("/api/v1/no/such/route")).toBeNull();
  });
});
