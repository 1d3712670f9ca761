// Fetch helpers and client-side types for the memory API. Type-only imports from the
// shared zod contracts: the client bundle gets the types, not zod.
import type { Breakdown, Memory, MemoryEvent, MemoryType, Weights } from "@/lib/memories/schemas";
import { ApiError, type ApiErrorDetail, type Params } from "./api-client";

export type { Breakdown, Memory, MemoryEvent, MemoryType, Weights };

export type { Params };

export type Relation = {
  id: string;
  source_id: string;
  target_id: string;
  relation_type: "supports" | "contradicts" | "refines" | "merged_into" | "derived_from";
  strength: number;
  note: string | null;
  created_by: string;
  created_at: string;
  removed_at: string | null;
};

export type Access = {
  retrieval_id: string;
  query: string;
  rank: number;
  score: number;
  cosine: number;
  time_decay: number;
  importance: number;
  created_at: string;
};

export type MemoryUser = { user_id: string; total: number; active: number };

export type SearchHit = { memory: Memory; score: number; breakdown: Breakdown };
export type SearchResponse = {
  data: SearchHit[];
  embedding_model: string;
  embedding_kind: "lexical" | "openai-compatible";
  weights: Weights;
  retrieval_id: string | null;
  latency_ms: number;
};

export type EmbeddingModel = { model: string; dimensions: number; kind: "lexical" | "openai-compatible" };
export type EmbeddingStatus = {
  active_model: EmbeddingModel;
  configured_model: EmbeddingModel | null;
  configuration_error: string | null;
  job: { id: string; model: string; status: "pending" | "running" | "done" | "failed" | "cancelled"; total: number; done: number; error: string | null } | null;
};

export type BulkAction = "archive" | "restore" | "set_type" | "set_importance";
export type BulkResult = { batch_id: string; affected: number; ids: string[] };

export type { CompressPreview, CompressProposal, ExtractResult, MemoryMdDiff, MemoryMetrics as Metrics, ReviewItem, UnmergeResult, MergeResult } from "@/lib/memories/curation-schemas";

/** The current memory carried by a 409 version_conflict answer. */
export function conflictCurrent(e: unknown): Memory | null {
  if (!(e instanceof ApiError) || e.status !== 409) return null;
  const d = (e.details as (ApiErrorDetail & { current?: Memory })[]).find((x) => x.current);
  return d?.current ?? null;
}

export const userPath = (user: string) => `/users/${encodeURIComponent(user)}`;
