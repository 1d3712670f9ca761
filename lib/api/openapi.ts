import { z } from "zod";
import { ALL_CONTRACTS } from "./contracts";
import { grantOf, type ApiContract } from "./contract";
import { ZErrorBody } from "./error-table";

// The OpenAPI document, generated from the route contracts that `withApi` parses and checks
// with, so it cannot drift from what the API accepts and answers.

function schema(s: z.ZodType, io: "input" | "output") {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(s, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

const ERROR_TEXT: Record<number, string> = {
  400: "Unreadable input: bad JSON, NUL or lone surrogates, nesting over 64, over 1000 keys, a forged cursor",
  401: "Missing or wrong API key",
  403: "The key or member lacks the scope, or a cross-site cookie request",
  404: "Unknown id (or another project's)",
  409: "Conflicts with the current state",
  413: "Body over the route's limit",
  415: "The body is not application/json",
  422: "Invalid field (details name it)",
  429: "Rate limited (Retry-After)",
  502: "The embedding or chat endpoint failed",
  503: "The database is not ready, or kept refusing the work for contention with concurrent requests (database_busy: retry after Retry-After)",
};

function operation(c: ApiContract) {
  const parameters: unknown[] = [];
  const pathProps = c.params ? ((schema(c.params, "input") as { properties?: Record<string, unknown> }).properties ?? {}) : {};
  for (const [, name] of c.path.matchAll(/\{(\w+)\}/g)) {
    const s = (pathProps[name] as Record<string, unknown>) ?? { type: "string" };
    parameters.push({ name, in: "path", required: true, schema: s.description?.toString().endsWith("(uuid)") ? { ...s, format: "uuid" } : s });
  }
  if (c.query) {
    const js = schema(c.query, "input") as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, s] of Object.entries(js.properties ?? {})) {
      parameters.push({ name, in: "query", required: js.required?.includes(name) ?? false, schema: s });
    }
  }
  const success = c.response
    ? { description: "OK", content: { [c.produces ?? "application/json"]: { schema: schema(c.response, "output") } } }
    : { description: "No content" };
  const responses: Record<string, unknown> = {};
  for (const status of [c.status ?? 200, ...(c.alsoStatus ?? [])]) responses[String(status)] = success;
  const grant = grantOf(c.scope);
  // 503 database_busy: a deadlock or serialization failure that outlasted the retry rule
  // (lib/db/retry-contention.ts); any route that reaches the database, from the key check on.
  const common = grant ? [400, 401, 403, 429, 503] : [];
  if (c.body || c.rawBody) common.push(413, 415, 422);
  // withApi checks path and query fields against their schemas before the handler: a value
  // outside them (a user_id of 201 characters, a limit of -5) is a 422 naming the field.
  if (c.params || c.query) common.push(422);
  for (const code of [...new Set([...common, ...(c.errors ?? [])])].sort()) {
    responses[String(code)] = { description: ERROR_TEXT[code] ?? "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
  }
  return {
    operationId: operationId(c),
    summary: c.summary,
    ...(c.description ? { description: c.description } : {}),
    tags: [c.tag],
    "x-scope": c.scope,
    security: grant ? [{ bearer: [] }, { session: [] }] : [],
    parameters,
    ...(c.rawBody ? { requestBody: { required: true, description: c.rawBody.description, content: { [c.rawBody.contentType]: { schema: { type: "string", format: "binary" } } } } } : {}),
    ...(c.body ? { requestBody: { required: !c.bodyOptional, content: { "application/json": { schema: schema(c.body, "input") } } } } : {}),
    responses,
  };
}

function operationId(c: ApiContract): string {
  const words = c.path.replace(/\{(\w+)\}/g, "by_$1").split(/[/_.-]+/).filter(Boolean);
  return [c.method.toLowerCase(), ...words].map((w, i) => (i ? w[0].toUpperCase() + w.slice(1) : w)).join("");
}

export function buildOpenApi() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const c of ALL_CONTRACTS) {
    // A path outside /api/v1 (the session routes under /api/auth) names its own server.
    paths[c.path] ??= c.server ? { servers: [{ url: c.server }] } : {};
    paths[c.path][c.method.toLowerCase()] = operation(c);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Memscope API",
      version: "1",
      description:
        "Inspect and curate the memory of LLM agents. Authenticate with `Authorization: Bearer <key>`; each operation's `x-scope` names what the key must hold (read < write < admin). Errors are `{error: {code, message, details}}`. The `auth` operations are the browser's session routes, served under /api (their own `servers`), not /api/v1.",
    },
    servers: [{ url: "/api/v1" }],
    components: {
      schemas: { Error: schema(ZErrorBody, "output") },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An API key (or MEMSCOPE_API_KEY, the bootstrap key)." },
        session: { type: "apiKey", in: "cookie", name: "memscope.session_token", description: "A signed-in member's session (same-origin requests only; `__Secure-memscope.session_token` when MEMSCOPE_PUBLIC_URL is https)." },
      },
    },
    paths,
  };
}

export const API_OPERATIONS = ALL_CONTRACTS.map((c) => ({ method: c.method, path: c.path, server: c.server, summary: c.summary, tag: c.tag, scope: c.scope }));
