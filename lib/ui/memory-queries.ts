"use client";
import { api } from "@/lib/ui/api-client";
import type { ConversationMemories, MemoryOrigin } from "@/lib/memories/provenance-schemas";
import { keepPreviousData, type InfiniteData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  userPath,
  type Access,
  type BulkAction,
  type BulkResult,
  type EmbeddingStatus,
  type Memory,
  type MemoryEvent,
  type MemoryType,
  type MemoryUser,
  type Metrics,
  type Relation,
  type ReviewItem,
} from "./memory-api";

export type Page<T> = { data: T[]; next_cursor: string | null };
export type MemoryStatusFilter = "active" | "archived" | "all";
/** In the order the filter shows them. */
export const MEMORY_STATUS_FILTERS: readonly MemoryStatusFilter[] = ["active", "archived", "all"];
export type MemorySort = "updated_at" | "created_at" | "importance_score" | "access_count" | "last_accessed_at";
export type MemoryFilters = {
  memory_type: MemoryType | "";
  status: MemoryStatusFilter;
  q: string;
  min_importance: number | null;
  max_importance: number | null;
  sort: MemorySort;
  order: "asc" | "desc";
};

export const mk = {
  all: ["memories"] as const,
  users: ["memories", "users"] as const,
  list: (user: string, f: MemoryFilters) => ["memories", "list", user, f] as const,
  one: (id: string) => ["memories", "one", id] as const,
  history: (id: string) => ["memories", "history", id] as const,
  relations: (id: string) => ["memories", "relations", id] as const,
  accesses: (id: string) => ["memories", "accesses", id] as const,
  origin: (id: string) => ["memories", "origin", id] as const,
  ofConversation: (conversationId: string) => ["memories", "conversation", conversationId] as const,
  review: (user: string, kind: string, status: "open" | "resolved" = "open") => ["memories", "review", user, kind, status] as const,
  metrics: (user: string) => ["memories", "metrics", user] as const,
  embeddings: ["embeddings", "status"] as const,
  md: (user: string, file: string) => ["memories", "md", user, file] as const,
};

export const PAGE_SIZE = 200;

export function useMemoryUsers() {
  return useQuery({
    queryKey: mk.users,
    queryFn: ({ signal }) => api.get<{ data: MemoryUser[] }>("/memory-users", undefined, signal).then((r) => r.data),
    staleTime: 30_000,
  });
}

export function useMemoryList(user: string, f: MemoryFilters) {
  return useInfiniteQuery({
    queryKey: mk.list(user, f),
    enabled: !!user,
    queryFn: ({ pageParam, signal }) =>
      api.get<Page<Memory>>(
        `${userPath(user)}/memories`,
        {
          memory_type: f.memory_type,
          status: f.status,
          q: f.q.trim(),
          min_importance: f.min_importance,
          max_importance: f.max_importance,
          sort: f.sort,
          order: f.order,
          cursor: pageParam,
          limit: PAGE_SIZE,
        },
        signal,
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    placeholderData: keepPreviousData,
  });
}

export function useMemory(id: string) {
  return useQuery({ queryKey: mk.one(id), queryFn: ({ signal }) => api.get<Memory>(`/memories/${id}`, undefined, signal) });
}

export function useMemoryHistory(id: string) {
  return useQuery({ queryKey: mk.history(id), queryFn: ({ signal }) => api.get<{ data: MemoryEvent[] }>(`/memories/${id}/history`, undefined, signal).then((r) => r.data) });
}

export function useMemoryRelations(id: string) {
  return useQuery({ queryKey: mk.relations(id), queryFn: ({ signal }) => api.get<{ data: Relation[] }>(`/memories/${id}/relations`, undefined, signal).then((r) => r.data) });
}

export function useMemoryAccesses(id: string) {
  return useQuery({ queryKey: mk.accesses(id), queryFn: ({ signal }) => api.get<{ data: Access[] }>(`/memories/${id}/accesses`, undefined, signal).then((r) => r.data) });
}

/** Where a memory came from (conversation and turn, import, merge and compression sources). */
export function useMemoryOrigin(id: string) {
  return useQuery({ queryKey: mk.origin(id), queryFn: ({ signal }) => api.get<MemoryOrigin>(`/memories/${id}/origin`, undefined, signal) });
}

/** Memories extracted from a conversation and the retrievals made for it. */
export function useConversationMemories(conversationId: string, enabled = true) {
  return useQuery({
    queryKey: mk.ofConversation(conversationId),
    queryFn: ({ signal }) => api.get<ConversationMemories>(`/conversations/${conversationId}/memories`, { retrievals: 50 }, signal),
    enabled,
  });
}

/** After any write: the memory itself is set, every list/derived view refetches. */
function useSettle() {
  const qc = useQueryClient();
  return (m?: Memory) => {
    if (m?.id) qc.setQueryData(mk.one(m.id), m);
    return qc.invalidateQueries({ queryKey: mk.all });
  };
}

export type PatchInput = {
  id: string;
  version: number;
  content?: string;
  memory_type?: MemoryType;
  structured_data?: Record<string, unknown> | null;
  importance_score?: number;
  confidence?: number;
  reason?: string;
};

/** Saves a field edit. Loaded list pages are updated in place (no refetch of 100 000 rows, no jumping row). */
export function usePatchMemory() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...body }: PatchInput) => api.patch<Memory>(`/memories/${id}`, { ...body, actor: "ui" }),
    onSuccess: (m) => {
      qc.setQueryData(mk.one(m.id), m);
      qc.setQueriesData<InfiniteData<Page<Memory>>>({ queryKey: ["memories", "list"] }, (old) =>
        old ? { ...old, pages: old.pages.map((p) => ({ ...p, data: p.data.map((r) => (r.id === m.id ? m : r)) })) } : old,
      );
      return qc.invalidateQueries({ predicate: (q) => q.queryKey[0] === "memories" && q.queryKey[1] !== "list" && q.queryKey[1] !== "one" });
    },
  });
}

export function useArchiveRestore() {
  const settle = useSettle();
  return useMutation({
    mutationFn: ({ id, action, reason }: { id: string; action: "archive" | "restore"; reason?: string }) =>
      api.post<Memory>(`/memories/${id}/${action}`, { actor: "ui", ...(reason ? { reason } : {}) }),
    onSuccess: (m) => settle(m && typeof m === "object" && "id" in m ? m : undefined),
  });
}

export function useDeleteMemory() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete<unknown>(`/memories/${id}`, { confirm: "true" }),
    onSuccess: (_r, id) => {
      qc.removeQueries({ queryKey: mk.one(id) });
      return qc.invalidateQueries({ queryKey: ["memories", "list"] });
    },
  });
}

export function useAddRelation(id: string) {
  const settle = useSettle();
  return useMutation({
    mutationFn: (body: { target_id: string; relation_type: "supports" | "contradicts" | "refines"; strength: number; note?: string }) =>
      api.post<Relation>(`/memories/${id}/relations`, { ...body, actor: "ui" }),
    onSuccess: () => settle(),
  });
}

export function useRemoveRelation(id: string) {
  const settle = useSettle();
  return useMutation({
    mutationFn: (relationId: string) => api.delete<unknown>(`/memories/${id}/relations/${relationId}`),
    onSuccess: () => settle(),
  });
}

export function useBulk(user: string) {
  const settle = useSettle();
  return useMutation({
    mutationFn: (body: { action: BulkAction; ids: string[]; memory_type?: MemoryType; importance_score?: number }) =>
      api.post<BulkResult>(`${userPath(user)}/memories/bulk`, { ...body, actor: "ui" }),
    onSuccess: () => settle(),
  });
}

export function useBulkUndo(user: string) {
  const settle = useSettle();
  return useMutation({
    mutationFn: (batchId: string) => api.post<unknown>(`${userPath(user)}/memories/bulk/${batchId}/undo`, { actor: "ui" }),
    onSuccess: () => settle(),
  });
}

export function useMerge() {
  const settle = useSettle();
  return useMutation({
    mutationFn: (body: { ids: string[]; content: string; memory_type?: MemoryType }) => api.post<Memory>("/memories/merge", { ...body, actor: "ui" }),
    onSuccess: (m) => settle(m),
  });
}

export function useUnmerge() {
  const settle = useSettle();
  return useMutation({
    mutationFn: (id: string) => api.post<unknown>(`/memories/${id}/unmerge`, { actor: "ui" }),
    onSuccess: () => settle(),
  });
}

export function useReview(user: string, kind: string, status: "open" | "resolved" = "open") {
  return useInfiniteQuery({
    queryKey: mk.review(user, kind, status),
    enabled: !!user,
    queryFn: ({ pageParam, signal }) =>
      api.get<Page<ReviewItem>>(`${userPath(user)}/review`, { status, kind: kind || undefined, cursor: pageParam, limit: 50 }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    placeholderData: keepPreviousData,
  });
}

export function useResolveReview(user: string) {
  const settle = useSettle();
  return useMutation({
    mutationFn: ({ itemId, ...body }: { itemId: string; action: "keep" | "merge" | "archive" | "approve" | "reject"; content?: string }) =>
      api.post<unknown>(`${userPath(user)}/review/${itemId}/resolve`, { ...body, actor: "ui" }),
    onSuccess: () => settle(),
  });
}

export function useMetrics(user: string) {
  return useQuery({
    queryKey: mk.metrics(user),
    enabled: !!user,
    queryFn: ({ signal }) => api.get<Metrics>(`${userPath(user)}/memories/metrics`, undefined, signal),
  });
}

export function useEmbeddingStatus() {
  return useQuery({
    queryKey: mk.embeddings,
    queryFn: ({ signal }) => api.get<EmbeddingStatus>("/embeddings/status", undefined, signal),
    // Poll every 2 s only while a re-embedding job runs.
    refetchInterval: (q) => {
      const s = q.state.data?.job?.status;
      return s === "running" || s === "pending" ? 2000 : false;
    },
  });
}
