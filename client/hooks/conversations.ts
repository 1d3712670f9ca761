"use client";
// Conversations: the list and its facets, one conversation, a user's newest, archiving.
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { keys, type ConversationFilters } from "../query-keys";
import { api, ok } from "../transport";

export type StatusFilter = ConversationFilters["status"];
export type ListFilters = ConversationFilters;
/** In the order the filter shows them. */
export const STATUS_FILTERS: readonly StatusFilter[] = ["all", "active", "archived"];

export function useConversationList(f: ListFilters) {
  return useInfiniteQuery({
    queryKey: keys.conversations.list(f),
    queryFn: ({ pageParam, signal }) =>
      ok(
        api.GET("/conversations", {
          params: {
            query: {
              q: f.q.trim(),
              app_id: f.app_id,
              user_id: f.user_id,
              status: f.status === "all" ? undefined : f.status,
              cursor: pageParam,
              limit: 50,
            },
          },
          signal,
        }),
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    // Keep the old rows on screen while a new filter loads: no flash to a skeleton.
    placeholderData: keepPreviousData,
  });
}

export function useFacets() {
  return useQuery({ queryKey: keys.conversations.facets, queryFn: ({ signal }) => ok(api.GET("/conversations/facets", { signal })), staleTime: 60_000 });
}

export function useConversation(id: string) {
  return useQuery({ queryKey: keys.conversations.one(id), queryFn: ({ signal }) => ok(api.GET("/conversations/{id}", { params: { path: { id } }, signal })) });
}

/** A user's 100 newest conversations: the inspector's picker and the review page's extractor share this one list. */
export function useUserConversations(user: string) {
  return useQuery({
    queryKey: keys.conversations.ofUser(user),
    enabled: !!user,
    queryFn: ({ signal }) => ok(api.GET("/conversations", { params: { query: { user_id: user, limit: 100 } }, signal })).then((r) => r.data),
    staleTime: 30_000,
  });
}

export function useSetStatus() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, status }: { id: string; status: "active" | "archived" }) =>
      ok(api.PATCH("/conversations/{id}", { params: { path: { id } }, body: { status } })),
    onSuccess: (c) => {
      qc.setQueryData(keys.conversations.one(c.id), c);
      return qc.invalidateQueries({ queryKey: keys.conversations.all });
    },
  });
}
