import { describe, expect, it } from "vitest";
import { buildOpenApi } from "@/lib/api/openapi";

// The public API speaks snake_case: every body field, answer field and query or path parameter
// of the OpenAPI document (the contracts, so also the SDK). /project answered camelCase
// (createdAt, expiresInDays, userId) beside snake_case everywhere else.

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** Every property name and query/path parameter name in the document, with where it sits. */
function names(node: unknown, at: string, out: { name: string; at: string }[]) {
  if (Array.isArray(node)) {
    node.forEach((n, i) => names(n, `${at}[${i}]`, out));
    return out;
  }
  if (!node || typeof node !== "object") return out;
  const o = node as Record<string, unknown>;
  if (o.properties && typeof o.properties === "object") {
    for (const k of Object.keys(o.properties)) out.push({ name: k, at: `${at}.properties` });
  }
  if (typeof o.name === "string" && (o.in === "query" || o.in === "path")) out.push({ name: o.name, at });
  for (const [k, v] of Object.entries(o)) names(v, `${at}.${k}`, out);
  return out;
}

describe("OpenAPI casing", () => {
  it("every field and parameter of /api/v1 is snake_case", () => {
    const doc = buildOpenApi() as { paths: Record<string, unknown>; components?: unknown };
    const found = [...names(doc.paths, "paths", []), ...names(doc.components, "components", [])];
    expect(found.length).toBeGreaterThan(100);
    const bad = found.filter((f) => !SNAKE.test(f.name)).map((f) => `${f.name} at ${f.at}`);
    expect([...new Set(bad)]).toEqual([]);
  });
});
