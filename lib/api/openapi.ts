import { z } from "zod";
import {
  ZConversation,
  ZConversationCreate,
  ZConversationFacets,
  ZConversationListQuery,
  ZConversationPatch,
} from "../conversations/schemas";
import {
  ZBatchInput,
  ZHistoryQuery,
  ZHistoryResponse,
  ZMessage,
  ZMessageListQuery,
  ZThreadQuery,
  ZThreadResponse,
  ZTurnInput,
} from "../messages/schemas";

// The OpenAPI document is generated from the same zod schemas the routes parse with,
// so it cannot drift from what the API accepts.

type Op = {
  method: "get" | "post" | "patch" | "delete";
  path: string;
  summary: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  response?: z.ZodType;
  status?: number;
  errors?: number[];
};

const page = (item: z.ZodType) => z.object({ data: z.array(item), next_cursor: z.string().nullable() });

const OPS: Op[] = [
  { method: "get", path: "/conversations", summary: "List conversations (filters, cursor pagination)", query: ZConversationListQuery, response: page(ZConversation), errors: [422] },
  { method: "post", path: "/conversations", summary: "Create a conversation", body: ZConversationCreate, response: ZConversation, status: 201, errors: [400, 409, 413, 422] },
  { method: "get", path: "/conversations/facets", summary: "Distinct app and user ids", response: ZConversationFacets },
  { method: "get", path: "/conversations/{id}", summary: "Get a conversation", response: ZConversation, errors: [404] },
  { method: "patch", path: "/conversations/{id}", summary: "Rename, archive or restore", body: ZConversationPatch, response: ZConversation, errors: [400, 404, 422] },
  { method: "delete", path: "/conversations/{id}", summary: "Soft-delete a conversation", status: 204, errors: [404] },
  { method: "get", path: "/conversations/{id}/messages", summary: "Every turn of every branch, oldest first", query: ZMessageListQuery, response: page(ZMessage), errors: [404, 422] },
  { method: "post", path: "/conversations/{id}/messages", summary: "Append one turn", body: ZTurnInput, response: ZMessage, status: 201, errors: [400, 404, 409, 413, 422] },
  { method: "post", path: "/conversations/{id}/messages/batch", summary: "Import up to 10 000 turns in one transaction", body: ZBatchInput, response: z.object({ data: z.array(ZMessage), count: z.number().int() }), status: 201, errors: [400, 404, 409, 413, 422] },
  { method: "get", path: "/conversations/{id}/thread", summary: "The thread by Dify's rules, newest first", query: ZThreadQuery, response: ZThreadResponse, errors: [404, 422] },
  { method: "get", path: "/conversations/{id}/history", summary: "Token-buffer history (Dify TokenBufferMemory)", query: ZHistoryQuery, response: ZHistoryResponse, errors: [404, 422] },
];

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
    if (op.path.includes("{id}")) parameters.push({ name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } });
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

export const API_OPERATIONS = OPS.map((o) => ({ method: o.method.toUpperCase(), path: o.path, summary: o.summary }));
