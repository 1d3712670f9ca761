import { z } from "zod";
import {
  ZActorOnly,
  ZDeleteQuery,
  ZMemory,
  ZMemoryCreate,
  ZMemoryCreated,
  ZMemoryEvent,
  ZMemoryAsOfExtra,
  ZMemoryListQuery,
  ZMemoryPatch,
  ZRelation,
  ZRelationCreate,
  ZSearchInput,
  ZSearchResult,
} from "../../memories/schemas";
import { contract, page, pathId, ZPathUserId } from "../contract";

const tag = "memories";
const ZUserParams = z.object({ user_id: ZPathUserId });
const ZMemoryParams = z.object({ id: pathId("Memory") });

// as_of (issue 22): the state at an instant, rebuilt from the history. Checked by the
// handler (parseAsOf), so a bad instant is a 400 naming the field.
const ZAsOfParam = z
  .string()
  .max(64)
  .optional()
  .describe("An ISO 8601 instant with offset: answer with the state of then, rebuilt from the history (reads only; a future instant reads as now). 400 when malformed.");
// As-of answers add relations alive then and whether the state could be rebuilt exactly.
const ZMemoryMaybeAsOf = ZMemory.extend({
  relations: ZMemoryAsOfExtra.relations.optional(),
  reconstructed: ZMemoryAsOfExtra.reconstructed.optional(),
  reason: ZMemoryAsOfExtra.reason.optional(),
});
const ZSearchMaybeAsOf = ZSearchResult.extend({
  data: z.array(z.object({ memory: ZMemoryMaybeAsOf, score: z.number(), breakdown: ZSearchResult.shape.data.element.shape.breakdown, rank: z.number().int().optional() })),
  as_of: z.string().optional().describe("With as_of: the instant answered for (a future one reads as now)."),
});

export const ZMemoryCreateBody = ZMemoryCreate.extend({
  dedupe_threshold: z.number().min(0).max(1).optional().describe("Cosine at or above which a save counts as a near duplicate (default 0.95)."),
});

export const createMemory = contract({
  tag, method: "POST", path: "/users/{user_id}/memories", scope: "memories:write",
  summary: "Save a memory with dedupe: 201 when a row was made, 200 when the save landed on an existing memory",
  params: ZUserParams, body: ZMemoryCreateBody, bodyLimit: 256 * 1024, response: ZMemoryCreated,
  status: 201, alsoStatus: [200], errors: [409, 422, 502],
});

export const listMemories = contract({
  tag, method: "GET", path: "/users/{user_id}/memories", scope: "memories:read",
  summary: "List a user's memories (filters, sort, cursor pagination; as_of: as they were at an instant)",
  params: ZUserParams, query: ZMemoryListQuery.extend({ as_of: ZAsOfParam }), response: page(ZMemoryMaybeAsOf), errors: [422],
});

export const searchMemories = contract({
  tag, method: "POST", path: "/users/{user_id}/memories/search", scope: "memories:read",
  summary: "Scored retrieval with a breakdown per result (logged; a caller with write marks the results accessed unless dry_run)",
  description:
    "A read: the `read` grant may call it. Every retrieval is logged (GET /memories/{id}/accesses). Only a caller that also holds `write` marks the returned memories accessed (access_count, last_accessed_at, the recency term of later searches), and not on a dry run: a read-only key or viewer changes no ranking. `access_recorded` says which happened. With `?as_of=<instant>` the search runs as it would have then (the memories of then, the embedding model active then, decay measured from then), logs nothing and marks nothing accessed.",
  params: ZUserParams, query: z.object({ as_of: ZAsOfParam }), body: ZSearchInput, bodyLimit: 64 * 1024, response: ZSearchMaybeAsOf,
  errors: [409, 422, 502],
});

export const memoryUsers = contract({
  tag, method: "GET", path: "/memory-users", scope: "memories:read",
  summary: "Users that have memories, with total and active counts",
  response: z.object({ data: z.array(z.object({ user_id: z.string(), total: z.number().int(), active: z.number().int() })) }),
});

export const getMemory = contract({
  tag, method: "GET", path: "/memories/{id}", scope: "memories:read",
  summary: "Get a memory (as_of: as it was at an instant)",
  params: ZMemoryParams, query: z.object({ as_of: ZAsOfParam }), response: ZMemoryMaybeAsOf, errors: [404],
});

export const updateMemory = contract({
  tag, method: "PATCH", path: "/memories/{id}", scope: "memories:write",
  summary: "Edit a memory (optimistic concurrency by version)",
  params: ZMemoryParams, body: ZMemoryPatch, bodyLimit: 256 * 1024, response: ZMemory, errors: [404, 409, 422, 502],
});

export const deleteMemory = contract({
  tag, method: "DELETE", path: "/memories/{id}", scope: "memories:write",
  summary: "Permanently delete an archived memory (?confirm=true); its history stays",
  params: ZMemoryParams, query: ZDeleteQuery, status: 204, errors: [404, 409, 422],
});

export const archiveMemory = contract({
  tag, method: "POST", path: "/memories/{id}/archive", scope: "memories:write",
  summary: "Archive a memory",
  params: ZMemoryParams, body: ZActorOnly, bodyOptional: true, bodyLimit: 16 * 1024, response: ZMemory, errors: [404, 422],
});

export const restoreMemory = contract({
  tag, method: "POST", path: "/memories/{id}/restore", scope: "memories:write",
  summary: "Restore an archived memory",
  params: ZMemoryParams, body: ZActorOnly, bodyOptional: true, bodyLimit: 16 * 1024, response: ZMemory, errors: [404, 422],
});

export const memoryHistory = contract({
  tag, method: "GET", path: "/memories/{id}/history", scope: "memories:read",
  summary: "Every change: who, what, why",
  params: ZMemoryParams, response: z.object({ data: z.array(ZMemoryEvent) }), errors: [404],
});

export const ZMemoryAccess = z.object({
  retrieval_id: z.uuid(),
  query: z.string(),
  conversation_id: z.uuid().nullable(),
  rank: z.number().int(),
  score: z.number(),
  cosine: z.number(),
  time_decay: z.number(),
  importance: z.number(),
  dry_run: z.boolean(),
  created_at: z.iso.datetime(),
});

export const memoryAccesses = contract({
  tag, method: "GET", path: "/memories/{id}/accesses", scope: "memories:read",
  summary: "The retrievals that returned this memory, newest first (last 100)",
  params: ZMemoryParams, response: z.object({ data: z.array(ZMemoryAccess) }), errors: [404],
});

export const listRelations = contract({
  tag, method: "GET", path: "/memories/{id}/relations", scope: "memories:read",
  summary: "Relations from and to a memory",
  params: ZMemoryParams,
  query: z.object({ include_removed: z.enum(["true", "false"]).optional().describe("Also list softly removed relations.") }),
  response: z.object({ data: z.array(ZRelation) }), errors: [404, 422],
});

export const createRelation = contract({
  tag, method: "POST", path: "/memories/{id}/relations", scope: "memories:write",
  summary: "Relate two memories of one user (supports / contradicts / refines)",
  params: ZMemoryParams, body: ZRelationCreate, bodyLimit: 64 * 1024, response: ZRelation, status: 201, errors: [404, 422],
});

export const removeRelation = contract({
  tag, method: "DELETE", path: "/memories/{id}/relations/{relation_id}", scope: "memories:write",
  summary: "Remove a relation softly (the row stays with removed_at)",
  params: ZMemoryParams.extend({ relation_id: pathId("Relation") }), response: ZRelation, errors: [404],
});

export const MEMORY_CONTRACTS = [
  createMemory, listMemories, searchMemories, memoryUsers, getMemory, updateMemory, deleteMemory, archiveMemory,
  restoreMemory, memoryHistory, memoryAccesses, listRelations, createRelation, removeRelation,
];
