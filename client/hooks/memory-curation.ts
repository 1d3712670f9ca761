"use client";
// Curating a user's memories: bulk edits and their undo, merge and unmerge, the review queue,
// extraction from a conversation and compression of old memories. Each write refreshes every
// memory view (useSettleMemories).
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery } from "@tanstack/react-query";
import type { Body, BulkAction, MemoryType, paths } from "../api-types";
import { keys } from "../query-keys";
import { api, ok } from "../transport";
import { useSettleMemories } from "./memories";

export type ReviewKind = NonNullable<NonNullable<paths["/users/{user_id}/review"]["get"]["parameters"]["query"]>["kind"]>;

export function useBulk(user: string) {
  const settle = useSettleMemories();
  return useMutation({
    mutationFn: (body: { action: BulkAction; ids: string[]; memory_type?: MemoryType; importance_score?: number }) =>
      ok(api.POST("/users/{user_id}/memories/bulk", { params: { path: { user_id: user } }, body: { ...body, actor: "ui" } })),
    onSuccess: () => settle(),
  });
}

export function useBulkUndo(user: string) {
  const settle = useSettleMemories();
  return useMutation({
    mutationFn: (batchId: string) => ok(api.POST("/users/{user_id}/memories/bulk/{batch_id}/undo", { params: { path: { user_id: user, batch_id: batchId } }, body: { actor: "ui" } })),
    onSuccess: () => settle(),
  });
}

/** The merged text an LLM (or the fallback) proposes for `ids`: asked once per set of sources. */
export function useMergeSuggestion(ids: readonly string[]) {
  return useQuery({
    queryKey: keys.memories.mergeSuggestion(ids),
    enabled: ids.length >= 2,
    queryFn: () => ok(api.POST("/memories/merge/suggest", { body: { ids: [...ids] } })),
    staleTime: Infinity,
    retry: false,
  });
}

export function useMerge() {
  const settle = useSettleMemories();
  return useMutation({
    mutationFn: (body: { ids: string[]; content: string; memory_type?: MemoryType }) => ok(api.POST("/memories/merge", { body: { ...body, actor: "ui" } })),
    onSuccess: (m) => settle(m),
  });
}

export function useUnmerge() {
  const settle = useSettleMemories();
  return useMutation({
    mutationFn: (id: string) => ok(api.POST("/memories/{id}/unmerge", { params: { path: { id } }, body: { actor: "ui" } })),
    onSuccess: () => settle(),
  });
}

/** `kind`: "" for every kind. */
export function useReview(user: string, kind: ReviewKind | "", status: "open" | "resolved" = "open") {
  return useInfiniteQuery({
    queryKey: keys.memories.review(user, kind, status),
    enabled: !!user,
    queryFn: ({ pageParam, signal }) =>
      ok(
        api.GET("/users/{user_id}/review", {
          params: { path: { user_id: user }, query: { status, kind: kind || undefined, cursor: pageParam, limit: 50 } },
          signal,
        }),
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    placeholderData: keepPreviousData,
  });
}

export function useResolveReview(user: string) {
  const settle = useSettleMemories();
  return useMutation({
    mutationFn: ({ itemId, ...body }: { itemId: string; action: "keep" | "merge" | "archive" | "approve" | "reject"; content?: string }) =>
      ok(api.POST("/users/{user_id}/review/{item_id}/resolve", { params: { path: { user_id: user, item_id: itemId } }, body: { ...body, actor: "ui" } })),
    onSuccess: () => settle(),
  });
}

/** Queues candidate memories read from a conversation's current thread. */
export function useExtractMemories(user: string) {
  const settle = useSettleMemories();
  return useMutation({
    mutationFn: (conversationId: string) => ok(api.POST("/users/{user_id}/memories/extract", { params: { path: { user_id: user } }, body: { conversation_id: conversationId } })),
    onSuccess: () => settle(),
  });
}

export type CompressPreviewInput = Body<"/users/{user_id}/memories/compress/preview", "post">;
export type CompressProposalInput = Body<"/users/{user_id}/memories/compress/apply", "post">["proposals"][number];

export function useCompressPreview(user: string) {
  return useMutation({
    mutationFn: (body: CompressPreviewInput) => ok(api.POST("/users/{user_id}/memories/compress/preview", { params: { path: { user_id: user } }, body })),
  });
}

/**
 * Applies proposals one group per request, so a progress bar can be real: `onGroup` after each.
 * Every memory view refreshes at the end, whether all groups went through or one failed.
 */
export function useCompressApply(user: string) {
  const settle = useSettleMemories();
  return async (proposals: CompressProposalInput[], onGroup: (done: number, archived: number) => void): Promise<number> => {
    let archived = 0;
    try {
      for (let i = 0; i < proposals.length; i++) {
        const r = await ok(api.POST("/users/{user_id}/memories/compress/apply", { params: { path: { user_id: user } }, body: { proposals: [proposals[i]], actor: "ui" } }));
        archived += r.counts?.archived ?? proposals[i].source_ids.length;
        onGroup(i + 1, archived);
      }
      return archived;
    } finally {
      void settle();
    }
  };
}
