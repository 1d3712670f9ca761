"use client";
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import type { Conversation, ZConversationFacets } from "@/lib/conversations/schemas";
import type { HistoryResponse, Message, ZThreadResponse } from "@/lib/messages/schemas";
import type { ModelRow } from "@/lib/models/schemas";
import { api } from "./api-client";

// Type-only imports from the shared schemas: the client bundle gets the types, not zod.

export type Page<T> = { data: T[]; next_cursor: string | null };
export type Facets = z.infer<typeof ZConversationFacets>;
export type ModelInfo = Pick<ModelRow, "model" | "encoding" | "approximate">;
export type ThreadResponse = z.infer<typeof ZThreadResponse>;
export type StatusFilter = "active" | "archived" | "all";
/** In the order the filter shows them. */
export const STATUS_FILTERS: readonly StatusFilter[] = ["all", "active", "archived"];
export type ListFilters = { q: string; app_id: string; user_id: string; status: StatusFilter };
export type HistoryParams = {
  leaf: string | null;
  model: string;
  max_token_limit: number;
  message_limit: number | null;
};

export const qk = {
  conversations: ["conversations"] as const,
  list: (f: ListFilters) => ["conversations", "list", f] as const,
  facets: ["conversations", "facets"] as const,
  conversation: (id: string) => ["conversations", "one", id] as const,
  messages: (id: string) => ["messages", id] as const,
  thread: (id: string, leaf: string | null) => ["thread", id, leaf] as const,
  history: (id: string, p: HistoryParams, format: "messages" | "text") => ["history", id, p, format] as const,
  models: ["models"] as const,
  ofUser: (user: string) => ["conversations", "of-user", user] as const,
  threadTurns: (id: string) => ["thread-turns", id] as const,
};

export function useConversationList(f: ListFilters) {
  return useInfiniteQuery({
    queryKey: qk.list(f),
    queryFn: ({ pageParam, signal }) =>
      api.get<Page<Conversation>>(
        "/conversations",
        {
          q: f.q.trim(),
          app_id: f.app_id,
          user_id: f.user_id,
          status: f.status === "all" ? undefined : f.status,
          cursor: pageParam,
          limit: 50,
        },
        signal,
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    // Keep the old rows on screen while a new filter loads: no flash to a skeleton.
    placeholderData: keepPreviousData,
  });
}

export function useFacets() {
  return useQuery({ queryKey: qk.facets, queryFn: ({ signal }) => api.get<Facets>("/conversations/facets", undefined, signal), staleTime: 60_000 });
}

export function useConversation(id: string) {
  return useQuery({ queryKey: qk.conversation(id), queryFn: ({ signal }) => api.get<Conversation>(`/conversations/${id}`, undefined, signal) });
}

/** Every turn of every branch. Pages of 1 000 until the cursor runs out (5 000-turn conversations exist). */
export function useAllMessages(id: string) {
  return useQuery({
    queryKey: qk.messages(id),
    queryFn: async ({ signal }) => {
      const all: Message[] = [];
      let cursor: string | undefined;
      do {
        const page = await api.get<Page<Message>>(`/conversations/${id}/messages`, { cursor, limit: 1000 }, signal);
        for (const m of page.data) all.push(m);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return all;
    },
    staleTime: 30_000,
  });
}

export function useThread(id: string, leaf: string | null) {
  return useQuery({
    queryKey: qk.thread(id, leaf),
    queryFn: ({ signal }) => api.get<ThreadResponse>(`/conversations/${id}/thread`, { leaf_message_id: leaf }, signal),
    placeholderData: keepPreviousData,
  });
}

export function useHistory(id: string, p: HistoryParams, format: "messages" | "text", enabled = true) {
  return useQuery({
    queryKey: qk.history(id, p, format),
    enabled,
    queryFn: ({ signal }) =>
      api.get<HistoryResponse>(
        `/conversations/${id}/history`,
        {
          leaf_message_id: p.leaf,
          model: p.model.trim() || undefined,
          max_token_limit: p.max_token_limit,
          message_limit: p.message_limit,
          format,
          // Per-turn tokens for the transcript (the JSON payload only needs the messages).
          include_turn_tokens: format === "messages" ? "true" : undefined,
        },
        signal,
      ),
    // Moving a slider must not flash the panel empty between requests.
    placeholderData: keepPreviousData,
  });
}

export function useModels() {
  return useQuery({
    queryKey: qk.models,
    queryFn: ({ signal }) => api.get<{ data: ModelInfo[] }>("/models", undefined, signal).then((r) => r.data),
    staleTime: Infinity,
  });
}

export function useSetStatus() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, status }: { id: string; status: "active" | "archived" }) =>
      api.patch<Conversation>(`/conversations/${id}`, { status }),
    onSuccess: (c) => {
      qc.setQueryData(qk.conversation(c.id), c);
      return qc.invalidateQueries({ queryKey: qk.conversations });
    },
  });
}

/** A user's newest conversations (the inspector's conversation picker). */
export function useUserConversations(user: string) {
  return useQuery({
    queryKey: qk.ofUser(user),
    enabled: !!user,
    queryFn: ({ signal }) => api.get<Page<Conversation>>("/conversations", { user_id: user, limit: 50 }, signal).then((r) => r.data),
    staleTime: 30_000,
  });
}

/**
 * The turns of the conversation's current thread, newest first, for a leaf picker: `n` is the
 * turn's place in the thread counted from its first turn (the newest of 640 is #640).
 * /thread answers newest first already.
 */
export function useThreadTurns(conversation: string) {
  return useQuery({
    queryKey: qk.threadTurns(conversation),
    enabled: !!conversation,
    queryFn: async ({ signal }) => {
      const thread = await api.get<ThreadResponse>(`/conversations/${conversation}/thread`, undefined, signal);
      // Every page of messages: a thread can be longer than one page (5 000-turn conversations exist).
      const byId = new Map<string, Message>();
      let cursor: string | undefined;
      do {
        const page = await api.get<Page<Message>>(`/conversations/${conversation}/messages`, { cursor, limit: 1000 }, signal);
        for (const m of page.data) byId.set(m.id, m);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return threadPickerTurns(thread.message_ids, byId);
    },
    staleTime: 30_000,
  });
}

/** `ids` newest first (as /thread answers): the picker's rows in that order, numbered from the oldest turn (#1). */
export function threadPickerTurns(ids: readonly string[], byId: ReadonlyMap<string, Pick<Message, "query">>) {
  return ids.map((id, i) => ({ id, n: ids.length - i, query: byId.get(id)?.query ?? "" }));
}
