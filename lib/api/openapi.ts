import { z } from "zod";
import { CONTEXT_OPS } from "./openapi-ops/context";
import { CONVERSATION_OPS } from "./openapi-ops/conversations";
import { EMBEDDING_OPS } from "./openapi-ops/embeddings";
import { MEMORY_OPS } from "./openapi-ops/memories";
import { MEMORY_CURATION_OPS } from "./openapi-ops/memory-curation";
import { NODE_MEMORY_OPS } from "./openapi-ops/node-memory";
import type { Op } from "./openapi-ops/op";

// The OpenAPI document is generated from the same zod schemas the routes parse with,
// so it cannot drift from what the API accepts.

const OPS: Op[] = [...CONVERSATION_OPS, ...MEMORY_OPS, ...MEMORY_CURATION_OPS, ...EMBEDDING_OPS, ...CONTEXT_OPS, ...NODE_MEMORY_OPS];

const ZError = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.array(z.object({ field: z.string().optional(), message: z.string() }).loose()),
  }),
});

function schema(s: z.ZodType, io: "input" | "output") {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(s, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

export function buildOpenApi() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPS) {
    const parameters: unknown[] = [];
    for (const [, name] of op.path.matchAll(/\{(\w+)\}/g)) {
      parameters.push({ name, in: "path", required: true, schema: name === "id" ? { type: "string", format: "uuid" } : { type: "string" } });
    }
    if (op.query) {
      const js = schema(op.query, "input") as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, s] of Object.entries(js.properties ?? {})) {
        parameters.push({ name, in: "query", required: js.required?.includes(name) ?? false, schema: s });
      }
    }
    const responses: Record<string, unknown> = {
      [String(op.status ?? 200)]: op.response
        ? { description: "OK", content: { "application/json": { schema: schema(op.response, "output") } } }
        : { description: "No content" },
    };
    for (const code of op.errors ?? []) {
      responses[String(code)] = { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
    }
    responses["401"] = { description: "Missing or wrong API key (when MEMSCOPE_API_KEY is set)" };
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      summary: op.summary,
      tags: [op.tag],
      parameters,
      ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: schema(op.body, "input") } } } } : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Memscope API", version: "1", description: "Inspect and curate the memory of LLM agents." },
    servers: [{ url: "/api/v1" }],
    components: {
      schemas: { Error: schema(ZError, "output") },
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
    security: [{ bearer: [] }, {}],
    paths,
  };
}

export const API_OPERATIONS = OPS.map((o) => ({ method: o.method.toUpperCase(), path: o.path, summary: o.summary, tag: o.tag }));
