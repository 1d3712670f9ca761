import { z } from "zod";
import { int32, ZDateTime } from "../http/scalars";
import { ZUserIdInput } from "../http/user-id";

// Contracts of the memory API, shared by routes (parsing), OpenAPI and the UI.
// Client-safe: zod only.

export const MEMORY_TYPES = ["preference", "fact", "pattern", "skill"] as const;
export const ZMemoryType = z.enum(MEMORY_TYPES);
export type MemoryType = z.infer<typeof ZMemoryType>;

export const MEMORY_STATUSES = ["active", "archived"] as const;
export const ZMemoryStatus = z.enum(MEMORY_STATUSES);

export const CURATOR_RELATION_TYPES = ["supports", "contradicts", "refines"] as const;
export const RELATION_TYPES = [...CURATOR_RELATION_TYPES, "merged_into", "derived_from"] as const;

export const ZActor = z.enum(["ui", "api", "system"]);
export type Actor = z.infer<typeof ZActor>;

const ZUnit = z.number().min(0).max(1);
const ZUserId = ZUserIdInput;
/** A user id from the path: any non-empty string up to 200 characters (an unreachable one is a 404 anyway). */
export const ZPathUserId = z.string().trim().min(1, "1 to 200 characters").max(200, "1 to 200 characters");
export const ZContent = z.string().trim().min(1, "content must not be empty").max(20_000);
const ZStructured = z.record(z.string(), z.unknown());

export const ZMemoryCreate = z
  .object({
    memory_type: ZMemoryType,
    content: ZContent,
    structured_data: ZStructured.nullish(),
    importance_score: ZUnit.optional(),
    confidence: ZUnit.optional(),
    source_session_id: z.uuid().nullish(),
    app_id: z.string().trim().min(1).max(200).nullish(),
    actor: ZActor.optional().describe("Who makes the change (history); api by default."),
  })
  .strict();
export type MemoryCreate = z.infer<typeof ZMemoryCreate>;

export const ZMemoryPatch = z
  .object({
    version: int32(1).describe("The version you edited; a stale one answers 409 with the current memory."),
    memory_type: ZMemoryType.optional(),
    content: ZContent.optional(),
    structured_data: ZStructured.nullable().optional(),
    importance_score: ZUnit.optional(),
    confidence: ZUnit.optional(),
    reason: z.string().max(2000).optional(),
    actor: ZActor.optional(),
  })
  .strict();
export type MemoryPatch = z.infer<typeof ZMemoryPatch>;

export const ZMemoryListQuery = z
  .object({
    memory_type: ZMemoryType.optional(),
    status: z.enum([...MEMORY_STATUSES, "all"]).default("active"),
    q: z.string().trim().max(500).optional().describe("Text filter: every word must start a word of the content (\"espres dark\" finds \"Dark espresso\"); text without letters or digits matches as a substring."),
    min_importance: z.coerce.number().min(0).max(1).optional(),
    max_importance: z.coerce.number().min(0).max(1).optional(),
    sort: z.enum(["updated_at", "created_at", "importance_score", "access_count", "last_accessed_at"]).default("updated_at"),
    order: z.enum(["desc", "asc"]).default("desc"),
    cursor: z.string().max(500).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
  })
  .strict();
export type MemoryListQuery = z.infer<typeof ZMemoryListQuery>;

export const ZMemory = z.object({
  id: z.string(),
  app_id: z.string().nullable(),
  user_id: z.string(),
  memory_type: ZMemoryType,
  content: z.string(),
  structured_data: ZStructured.nullable(),
  source_session_id: z.string().nullable(),
  importance_score: z.number(),
  access_count: z.number().int(),
  last_accessed_at: z.string().nullable(),
  status: ZMemoryStatus,
  confidence: z.number(),
  version: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Memory = z.infer<typeof ZMemory>;

export const DEDUPE_ACTIONS = ["created", "duplicate", "replaced", "merged", "kept_both"] as const;
export const ZDedupe = z.object({
  action: z.enum(DEDUPE_ACTIONS),
  similar_id: z.string().optional(),
  similarity: z.number().optional(),
  reason: z.string().optional(),
});
export type Dedupe = z.infer<typeof ZDedupe>;

export const ZMemoryCreated = ZMemory.extend({ dedupe: ZDedupe });

export const ZWeights = z
  .object({
    similarity: z.number().min(0).max(10).default(0.6),
    recency: z.number().min(0).max(10).default(0.2),
    importance: z.number().min(0).max(10).default(0.2),
  })
  .strict();
export type Weights = z.infer<typeof ZWeights>;
export const DEFAULT_WEIGHTS: Weights = { similarity: 0.6, recency: 0.2, importance: 0.2 };

export const ZSearchInput = z
  .object({
    query: z.string().trim().min(1).max(5000),
    k: z.number().int().min(1).max(100).default(10),
    memory_types: z.array(ZMemoryType).min(1).optional(),
    weights: ZWeights.partial().optional(),
    min_score: z.number().min(-10).max(10).optional(),
    status: ZMemoryStatus.default("active"),
    dry_run: z.boolean().default(false),
    conversation_id: z.uuid().optional(),
  })
  .strict();
export type SearchInput = z.infer<typeof ZSearchInput>;

export const ZBreakdown = z.object({
  cosine: z.number(),
  time_decay: z.number(),
  importance: z.number(),
  days_since_access: z.number(),
  similarity_term: z.number(),
  recency_term: z.number(),
  importance_term: z.number(),
  final: z.number(),
  matched_by: z.array(z.enum(["vector", "text"])),
});
export type Breakdown = z.infer<typeof ZBreakdown>;

export const ZSearchResult = z.object({
  data: z.array(z.object({ memory: ZMemory, score: z.number(), breakdown: ZBreakdown })),
  embedding_model: z.string(),
  embedding_kind: z.enum(["lexical", "openai-compatible"]),
  weights: ZWeights,
  retrieval_id: z.string().nullable(),
  latency_ms: z.number(),
  access_recorded: z
    .boolean()
    .describe("True when the returned memories were marked accessed (access_count, last_accessed_at): the caller holds write and dry_run was false. A read-only caller's search is logged but changes no ranking."),
  // Which way the vector candidates were found: "exact" (a scan of the user's own rows,
  // for a user with few memories), "hnsw" (the approximate index), "hnsw_wide" (its
  // answer looked thin; a wider walk of the index replaced it), "hnsw_then_exact" (that
  // looked thin too; an exact scan of the user's rows replaced it); "hnsw_user",
  // "hnsw_user_wide", "hnsw_user_then_exact": the same steps on the HNSW index of the
  // user's own rows (users with at least MEMSCOPE_USER_VECTOR_INDEX_MIN memories).
  vector_path: z.enum(["exact", "hnsw", "hnsw_wide", "hnsw_then_exact", "hnsw_user", "hnsw_user_wide", "hnsw_user_then_exact"]),
});
export type SearchResult = z.infer<typeof ZSearchResult>;

export const ZDeleteQuery = z.object({ confirm: z.enum(["true", "false"]).optional() }).strict();

export const ZRelationCreate = z
  .object({
    target_id: z.uuid(),
    relation_type: z.enum(CURATOR_RELATION_TYPES),
    strength: ZUnit.default(0.5),
    note: z.string().max(1000).optional(),
    actor: ZActor.optional(),
  })
  .strict();

export const ZRelation = z.object({
  id: z.string(),
  source_id: z.string(),
  target_id: z.string(),
  relation_type: z.enum(RELATION_TYPES),
  strength: z.number(),
  note: z.string().nullable(),
  created_by: ZActor,
  created_at: z.string(),
  removed_at: z.string().nullable(),
});

export const ZMemoryEvent = z.object({
  id: z.string(),
  memory_id: z.string(),
  event_type: z.string(),
  actor: ZActor,
  /** Who: the account's email or the API key's name (null for events from before accounts, and the system's own). */
  actor_label: z.string().nullable(),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
  reason: z.string().nullable(),
  batch_id: z.string().nullable(),
  created_at: z.string(),
});
export type MemoryEvent = z.infer<typeof ZMemoryEvent>;

export const ZActorOnly = z.object({ actor: ZActor.optional(), reason: z.string().max(2000).optional() }).strict();

// ---- As of an instant (issue 22): a memory's state at T, rebuilt from its history ----

export const ZAsOf = ZDateTime.describe("An instant (ISO 8601). The answer is the state at that instant, rebuilt from the history; a future instant reads as now.");

export const ZMemoryAsOfExtra = {
  relations: z.array(ZRelation).describe("With as_of: the relations alive at that instant, from and to this memory."),
  reconstructed: z
    .boolean()
    .describe("With as_of: false when the history cannot say what this memory was then (written before history was kept, changed outside Memscope): `reason` says why."),
  reason: z.string().nullable().describe("With as_of: why the state could not be rebuilt exactly (null when it was)."),
};

export const ZMemoryAsOf = ZMemory.extend(ZMemoryAsOfExtra);
export type MemoryAsOf = z.infer<typeof ZMemoryAsOf>;
export type Relation = z.infer<typeof ZRelation>;
