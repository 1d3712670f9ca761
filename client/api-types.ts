// Names for the API's answers, read from the generated OpenAPI types (the same ones the typed
// transport checks calls against): a component's props and a hook's data are one type.
import type { paths } from "@/sdk/typescript/src/openapi";

export type { paths };

type Json<C> = C extends { content: { "application/json": infer B } } ? B : never;
/** The JSON body of a path's successful (200 or 201) answer. */
export type Answer<P extends keyof paths, M extends "get" | "post" | "put" | "patch" | "delete"> = paths[P][M] extends {
  responses: infer R;
}
  ? R extends { 200: infer A }
    ? Json<A>
    : R extends { 201: infer A }
      ? Json<A>
      : never
  : never;
/** The JSON body a path's operation takes. */
export type Body<P extends keyof paths, M extends "post" | "put" | "patch"> = paths[P][M] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;
type Row<L> = L extends { data: (infer T)[] } ? T : never;

export type Page<T> = { data: T[]; next_cursor: string | null };

// Conversations and their messages
export type Conversation = Answer<"/conversations/{id}", "get">;
export type Facets = Answer<"/conversations/facets", "get">;
export type Message = Row<Answer<"/conversations/{id}/messages", "get">>;
export type ThreadResponse = Answer<"/conversations/{id}/thread", "get">;
export type HistoryResponse = Answer<"/conversations/{id}/history", "get">;

// Models and presets
export type ModelRow = Row<Answer<"/models", "get">>;
export type ModelInfo = Pick<ModelRow, "model" | "encoding" | "approximate">;
export type Preset = Body<"/settings/models", "put">["presets"][number];

// Memories
export type Memory = Answer<"/memories/{id}", "get">;
export type MemoryType = Memory["memory_type"];
export type MemoryEvent = Row<Answer<"/memories/{id}/history", "get">>;
export type Relation = Row<Answer<"/memories/{id}/relations", "get">>;
export type MemoryAccess = Row<Answer<"/memories/{id}/accesses", "get">>;
export type MemoryUser = Row<Answer<"/memory-users", "get">>;
export type MemoryOrigin = Answer<"/memories/{id}/origin", "get">;
export type ConversationMemories = Answer<"/conversations/{id}/memories", "get">;
export type SearchResponse = Answer<"/users/{user_id}/memories/search", "post">;
export type SearchHit = SearchResponse["data"][number];
export type Weights = Required<NonNullable<Body<"/users/{user_id}/memories/search", "post">["weights"]>>;
export type EmbeddingStatus = Answer<"/embeddings/status", "get">;
export type EmbeddingModel = EmbeddingStatus["active_model"];
export type Metrics = Answer<"/users/{user_id}/memories/metrics", "get">;
export type BulkAction = Body<"/users/{user_id}/memories/bulk", "post">["action"];
export type BulkResult = Answer<"/users/{user_id}/memories/bulk", "post">;
export type ReviewItem = Row<Answer<"/users/{user_id}/review", "get">>;
export type ExtractResult = Answer<"/users/{user_id}/memories/extract", "post">;
export type CompressPreview = Answer<"/users/{user_id}/memories/compress/preview", "post">;
export type MemoryMdDiff = Answer<"/users/{user_id}/memory-md/preview", "post">;

// Imports
export type ImportJob = Answer<"/imports/{id}", "get">;
export type ImportCreate = Body<"/imports", "post">;
export type DifyApps = Answer<"/imports/dify-apps", "get">;

// Node memory (Dify's per-node documents)
export type NodeList = Answer<"/conversations/{id}/nodes", "get">;
export type NodeMemory = Answer<"/conversations/{id}/nodes/{node_id}", "get">;
export type NodeHistoryResponse = Answer<"/conversations/{id}/nodes/{node_id}/history", "get">;

// The project (settings pages)
export type Project = Answer<"/project", "get">;
export type KeySummary = Row<Answer<"/project/keys", "get">>;
export type KeyCreated = Answer<"/project/keys", "post">;
export type NewKey = Body<"/project/keys", "post">;
export type Member = Row<Answer<"/project/members", "get">>;
export type Invitation = Row<Answer<"/project/invitations", "get">>;
export type AuditEvent = Row<Answer<"/project/audit", "get">>;

// The inspector
export type Offloaded = Answer<"/offloaded/{ref}", "get">;

// Replay (a past turn)
export type ReplayBody = Body<"/replay", "post">;
export type ReplayResult = Answer<"/replay", "post">;
export type ReplayVariant = NonNullable<ReplayBody["variants"]>[number];
export type ReplayVariantResult = ReplayResult["variants"][number];
export type Why = ReplayResult["why"][number];
export type WhyRule = Why["rule"];
export type ChangeSince = ReplayResult["changes_since"]["memories"][number];
export type ChangeKind = ChangeSince["changes"][number];
