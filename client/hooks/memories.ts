"use client";
// Memories: users, a user's list, one memory's page (history, relations, accesses, origin),
// a conversation's memories, and the writes that change one memory.
//
// After a write the memory's own answer is set from the response, and everything derived from
// it (its history, relations, the dashboard's metrics, review queues, other pages) refetches.
import { keepPreviousData, useInfiniteQuery, useMutation, useQueries, useQuery, useQueryClient, type InfiniteData } from "@tanstack/react-query";
import type { Memory, MemoryType, Page } from "../api-types";
import { keys, type MemoryFilters as KeyFilters } from "../query-keys";
import { api, ok } from "../transport";

export type MemoryStatusFilter = KeyFilters["status"];
/** In the order the filter shows them. */
export const MEMORY_STATUS_FILTERS: readonly MemoryStatusFilter[] = ["active", "archived", "all"];
export type MemorySort = "updated_at" | "created_at" | "importance_score" | "access_count" | "last_accessed_at";
export type MemoryFilters = KeyFilters & { memory_type: MemoryType | ""; sort: MemorySort };

export const PAGE_SIZE = 200;

/** After a write: the memory itself is set, every list and derived view refetches. */
export function useSettleMemories() {
  const qc = useQueryClient();
  return (m?: Memory) => {
    if (m?.id) qc.setQueryData(keys.memories.one(m.id), m);
    return qc.invalidateQueries({ queryKey: keys.memories.all });
  };
}

export function useMemoryUsers() {
  return useQuery({
    queryKey: keys.memories.users,
    queryFn: ({ signal }) => ok(api.GET("/memory-users", { signal })).then((r) => r.data),
    staleTime: 30_000,
  });
}

export function useMemoryList(user: string, f: MemoryFilters) {
  return useInfiniteQuery({
    queryKey: keys.memories.list(user, f),
    enabled: !!user,
    queryFn: ({ pageParam, signal }) =>
      ok(
        api.GET("/users/{user_id}/memories", {
          params: {
            path: { user_id: user },
            query: {
              memory_type: f.memory_type || undefined,
              status: f.status,
              q: f.q.trim(),
              min_importance: f.min_importance ?? undefined,
              max_importance: f.max_importance ?? undefined,
              sort: f.sort,
              order: f.order,
              cursor: pageParam,
              limit: PAGE_SIZE,
            },
          },
          signal,
        }),
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    placeholderData: keepPreviousData,
  });
}

const getMemory = (id: string, signal: AbortSignal) => ok(api.GET("/memories/{id}", { params: { path: { id } }, signal }));

export function useMemory(id: string) {
  return useQuery({ queryKey: keys.memories.one(id), queryFn: ({ signal }) => getMemory(id, signal) });
}

/** Several memories by id (a relation graph's neighbours), each cached as its own page is. */
export function useMemories(ids: readonly string[]) {
  return useQueries({ queries: ids.map((id) => ({ queryKey: keys.memories.one(id), queryFn: ({ signal }: { signal: AbortSignal }) => getMemory(id, signal), staleTime: 30_000 })) });
}

export function useMemoryHistory(id: string) {
  return useQuery({ queryKey: keys.memories.history(id), queryFn: ({ signal }) => ok(api.GET("/memories/{id}/history", { params: { path: { id } }, signal })).then((r) => r.data) });
}

export function useMemoryRelations(id: string) {
  return useQuery({ queryKey: keys.memories.relations(id), queryFn: ({ signal }) => ok(api.GET("/memories/{id}/relations", { params: { path: { id } }, signal })).then((r) => r.data) });
}

export function useMemoryAccesses(id: string) {
  return useQuery({ queryKey: keys.memories.accesses(id), queryFn: ({ signal }) => ok(api.GET("/memories/{id}/accesses", { params: { path: { id } }, signal })).then((r) => r.data) });
}

/** Where a memory came from (conversation and turn, import, merge and compression sources). */
export function useMemoryOrigin(id: string) {
  return useQuery({ queryKey: keys.memories.origin(id), queryFn: ({ signal }) => ok(api.GET("/memories/{id}/origin", { params: { path: { id } }, signal })) });
}

/** Memories extracted from a conversation and the retrievals made for it. */
export function useConversationMemories(conversationId: string, enabled = true) {
  return useQuery({
    queryKey: keys.memories.ofConversation(conversationId),
    queryFn: ({ signal }) => ok(api.GET("/conversations/{id}/memories", { params: { path: { id: conversationId }, query: { retrievals: 50 } }, signal })),
    enabled,
  });
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

/**
 * Saves a field edit. Loaded list pages are updated in place (no refetch of 100 000 rows, no
 * jumping row); the memory's page is set; the rest (history, metrics, review) refetches.
 */
export function usePatchMemory() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...body }: PatchInput) => ok(api.PATCH("/memories/{id}", { params: { path: { id } }, body: { ...body, actor: "ui" } })),
    onSuccess: (m) => {
      qc.setQueryData(keys.memories.one(m.id), m);
      qc.setQueriesData<InfiniteData<Page<Memory>>>({ queryKey: keys.memories.lists }, (old) =>
        old ? { ...old, pages: old.pages.map((p) => ({ ...p, data: p.data.map((r) => (r.id === m.id ? m : r)) })) } : old,
      );
      return qc.invalidateQueries({ queryKey: keys.memories.all, predicate: (q) => q.queryKey[1] !== "list" && q.queryKey[1] !== "one" });
    },
  });
}

/** "Discard mine" after a 409: the page shows the version saved elsewhere, lists refetch. */
export function useTakeTheirs() {
  const qc = useQueryClient();
  return (current: Memory) => {
    qc.setQueryData(keys.memories.one(current.id), current);
    return qc.invalidateQueries({ queryKey: keys.memories.lists });
  };
}

export function useArchiveRestore() {
  const settle = useSettleMemories();
  return useMutation({
    mutationFn: ({ id, action, reason }: { id: string; action: "archive" | "restore"; reason?: string }) => {
      const init = { params: { path: { id } }, body: { actor: "ui" as const, ...(reason ? { reason } : {}) } };
      return ok(action === "archive" ? api.POST("/memories/{id}/archive", init) : api.POST("/memories/{id}/restore", init));
    },
    onSuccess: (m) => settle(m && typeof m === "object" && "id" in m ? m : undefined),
  });
}

export function useDeleteMemory() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => ok(api.DELETE("/memories/{id}", { params: { path: { id }, query: { confirm: "true" } } })),
    onSuccess: (_r, id) => {
      qc.removeQueries({ queryKey: keys.memories.one(id) });
      return qc.invalidateQueries({ queryKey: keys.memories.lists });
    },
  });
}

export function useAddRelation(id: string) {
  const settle = useSettleMemories();
  return useMutation({
    mutationFn: (body: { target_id: string; relation_type: "supports" | "contradicts" | "refines"; strength: number; note?: string }) =>
      ok(api.POST("/memories/{id}/relations", { params: { path: { id } }, body: { ...body, actor: "ui" } })),
    onSuccess: () => settle(),
  });
}

export function useRemoveRelation(id: string) {
  const settle = useSettleMemories();
  return useMutation({
    mutationFn: (relationId: string) => ok(api.DELETE("/memories/{id}/relations/{relation_id}", { params: { path: { id, relation_id: relationId } } })),
    onSuccess: () => settle(),
  });
}
