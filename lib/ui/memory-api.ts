// Fetch helpers and client-side types for the memory API. Type-only imports from the
// shared zod contracts: the client bundle gets the types, not zod.
import type { z } from "zod";
import type { memoryUsers, ZMemoryAccess } from "@/lib/api/contracts/memories";
import type { ZEmbeddingStatus } from "@/lib/embeddings/embedding-status";
import type { Breakdown, Memory, MemoryEvent, MemoryType, SearchResult, Weights, ZRelation } from "@/lib/memories/schemas";
import { ApiError, type ApiErrorDetail, type Params } from "./api-client";

export type { Breakdown, Memory, MemoryEvent, MemoryType, Weights };

export type { Params };

export type Relation = z.infer<typeof ZRelation>;
export type Access = z.infer<typeof ZMemoryAccess>;
export type MemoryUser = z.infer<typeof memoryUsers.response>["data"][number];
export type SearchResponse = SearchResult;
export type SearchHit = SearchResult["data"][number];
export type EmbeddingStatus = z.infer<typeof ZEmbeddingStatus>;
export type EmbeddingModel = EmbeddingStatus["active_model"];

export type BulkAction = "archive" | "restore" | "set_type" | "set_importance";

export type { BulkResult, CompressPreview, CompressProposal, ExtractResult, MemoryMdDiff, MemoryMetrics as Metrics, ReviewItem, UnmergeResult, MergeResult } from "@/lib/memories/curation-schemas";

/** The current memory carried by a 409 version_conflict answer. */
export function conflictCurrent(e: unknown): Memory | null {
  if (!(e instanceof ApiError) || e.status !== 409) return null;
  const d = (e.details as (ApiErrorDetail & { current?: Memory })[]).find((x) => x.current);
  return d?.current ?? null;
}

export const userPath = (user: string) => `/users/${encodeURIComponent(user)}`;
