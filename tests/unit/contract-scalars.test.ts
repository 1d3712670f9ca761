import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ALL_CONTRACTS } from "@/lib/api/contracts";

// Every number and date a route takes is range-checked by its schema, so no body, query or
// path can carry a value its column cannot hold into SQL (issue 37: profile_version
// 2147483648 and created_at 300000-01-01 answered 500). A schema added without the shared
// integer and date schemas (lib/http/scalars.ts) fails here, naming the route and field.

type Json = { type?: string | string[]; format?: string; pattern?: string; minimum?: number; maximum?: number; exclusiveMinimum?: number; exclusiveMaximum?: number; [k: string]: unknown };

function walk(node: unknown, path: string, out: { path: string; node: Json }[]) {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${path}[${i}]`, out));
  const n = node as Json;
  out.push({ path, node: n });
  for (const [k, v] of Object.entries(n)) {
    if (k === "properties" && v && typeof v === "object") for (const [p, s] of Object.entries(v)) walk(s, `${path}.${p}`, out);
    else if (typeof v === "object") walk(v, `${path}/${k}`, out);
  }
}

function inputs() {
  const nodes: { route: string; path: string; node: Json }[] = [];
  for (const c of ALL_CONTRACTS) {
    for (const part of ["params", "query", "body"] as const) {
      const schema = c[part as keyof typeof c] as z.ZodType | undefined;
      if (!schema) continue;
      const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
      const out: { path: string; node: Json }[] = [];
      walk(json, part, out);
      for (const o of out) nodes.push({ route: `${c.method} ${c.path}`, ...o });
    }
  }
  return nodes;
}

const INT64 = 2 ** 63;

describe("contract scalars", () => {
  const nodes = inputs();

  it("every integer a route takes has a minimum and a maximum within int64 (int32 for int columns)", () => {
    const unbounded = nodes
      .filter(({ node }) => (node.type === "integer" || (Array.isArray(node.type) && node.type.includes("integer"))) && node.const === undefined)
      .filter(({ node }) => {
        const min = node.minimum ?? node.exclusiveMinimum;
        const max = node.maximum ?? node.exclusiveMaximum;
        if (min === undefined || max === undefined) return true;
        // int32 unless the schema says it is a bigint column's (lib/http/scalars.ts int64()).
        const [lo, hi] = node["x-int"] === "int64" ? [-INT64, INT64] : [-(2 ** 31), 2 ** 31 - 1];
        return max > hi || min < lo;
      })
      .map((x) => `${x.route} ${x.path}`);
    expect(unbounded).toEqual([]);
  });

  it("every number a route takes is finite and bounded", () => {
    const unbounded = nodes
      .filter(({ node }) => node.type === "number" && node.const === undefined)
      .filter(({ node }) => (node.minimum ?? node.exclusiveMinimum) === undefined || (node.maximum ?? node.exclusiveMaximum) === undefined)
      .map((x) => `${x.route} ${x.path}`);
    expect(unbounded).toEqual([]);
  });

  it("every date-time a route takes is the one strict RFC 3339 schema (four-digit years, ranges checked)", () => {
    const loose = nodes.filter(({ node }) => node.format === "date-time" && node["x-date"] !== "rfc3339").map((x) => `${x.route} ${x.path}`);
    expect(loose).toEqual([]);
  });
});
