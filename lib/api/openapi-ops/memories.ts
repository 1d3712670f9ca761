import { z } from "zod";
import {
  ZActorOnly,
  ZDeleteQuery,
  ZMemory,
  ZMemoryCreate,
  ZMemoryCreated,
  ZMemoryEvent,
  ZMemoryListQuery,
  ZMemoryPatch,
  ZRelation,
  ZRelationCreate,
  ZSearchInput,
  ZSearchResult,
} from "../../memories/schemas";
import { page, type Op } from "./op";

const tag = "memories";

export const MEMORY_OPS: Op[] = [
  { tag, method: "post", path: "/users/{user_id}/memories", summary: "Save a memory (with dedupe)", body: ZMemoryCreate, response: ZMemoryCreated, status: 201, errors: [400, 413, 422, 502] },
  { tag, method: "get", path: "/users/{user_id}/memories", summary: "List a user's memories (filters, sort, cursor pagination)", query: ZMemoryListQuery, response: page(ZMemory), errors: [422] },
  { tag, method: "post", path: "/users/{user_id}/memories/search", summary: "Scored retrieval with a breakdown per result", body: ZSearchInput, response: ZSearchResult, errors: [400, 422, 502] },
  { tag, method: "get", path: "/memories/{id}", summary: "Get a memory", response: ZMemory, errors: [404] },
  { tag, method: "patch", path: "/memories/{id}", summary: "Edit a memory (optimistic concurrency by version)", body: ZMemoryPatch, response: ZMemory, errors: [400, 404, 409, 422] },
  { tag, method: "delete", path: "/memories/{id}", summary: "Permanently delete an archived memory (?confirm=true)", query: ZDeleteQuery, status: 204, errors: [404, 409, 422] },
  { tag, method: "post", path: "/memories/{id}/archive", summary: "Archive a memory", body: ZActorOnly, response: ZMemory, errors: [404] },
  { tag, method: "post", path: "/memories/{id}/restore", summary: "Restore an archived memory", body: ZActorOnly, response: ZMemory, errors: [404] },
  { tag, method: "get", path: "/memories/{id}/history", summary: "Every change: who, what, why", response: z.object({ data: z.array(ZMemoryEvent) }), errors: [404] },
  { tag, method: "get", path: "/memories/{id}/relations", summary: "Relations from and to a memory", response: z.object({ data: z.array(ZRelation) }), errors: [404] },
  { tag, method: "post", path: "/memories/{id}/relations", summary: "Relate two memories (supports / contradicts / refines)", body: ZRelationCreate, response: ZRelation, status: 201, errors: [404, 422] },
];
