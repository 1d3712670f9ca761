"use client";
// Memory incidents (issue 38): the inbox's list and summary, a conversation's incidents (its
// turns' marks), triage (status with a note) and an incident made into an eval case.
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Answer } from "../api-types";
import { keys } from "../query-keys";
import { api, ok } from "../transport";
import type { IncidentFilters, IncidentStatus } from "../ui/incident-model";
import { useHydrated } from "../ui/use-hydrated";
import { useAuthState } from "./auth";

export type Incident = Answer<"/incidents", "get">["data"][number];
export type IncidentSummary = Answer<"/incidents/summary", "get">;

/** The chart's range, in days. */
export const SUMMARY_DAYS = 30;

export function useIncidents(f: IncidentFilters) {
  return useInfiniteQuery({
    queryKey: keys.incidents.list(f),
    queryFn: ({ pageParam, signal }) =>
      ok(
        api.GET("/incidents", {
          params: {
            query: {
              kind: f.kind || undefined,
              status: f.status === "all" ? undefined : f.status,
              severity: f.severity || undefined,
              user_id: f.user_id || undefined,
              app_id: f.app_id || undefined,
              conversation_id: f.conversation_id || undefined,
              cursor: pageParam,
              limit: 25,
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

/**
 * Counts per kind per day, the open high-severity count and the precision people judged. The
 * navigation's badge reads it too: only once the session can read the project (never on the
 * sign-in page), and every minute, so a new incident shows without a reload.
 */
export function useIncidentSummary(opts: { badge?: boolean } = {}) {
  const auth = useAuthState();
  const readable = !!auth.data && auth.data.mode !== "signed-out" && auth.data.scopes.includes("read");
  const q = useQuery({
    queryKey: keys.incidents.summary(SUMMARY_DAYS),
    enabled: readable,
    // The API's default range is the last 30 days up to today (UTC), as SUMMARY_DAYS says.
    queryFn: ({ signal }) => ok(api.GET("/incidents/summary", { signal })),
    refetchInterval: opts.badge ? 60_000 : false,
    // A badge that cannot load says nothing rather than retrying in a loop.
    retry: opts.badge ? false : undefined,
  });
  // The navigation's badge may have it before a page's <Suspense> content hydrates: unknown
  // during that render, as on the server (see useAuthState).
  return useHydrated() ? q : ({ ...q, data: undefined } as typeof q);
}

/** A conversation's incidents, of every status, for the marks on its turns (one page: a thread rarely has more). */
export function useConversationIncidents(conversationId: string) {
  return useQuery({
    queryKey: keys.incidents.ofConversation(conversationId),
    queryFn: ({ signal }) => ok(api.GET("/incidents", { params: { query: { conversation_id: conversationId, limit: 200 } }, signal })),
    staleTime: 30_000,
  });
}

export function useUpdateIncident() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { id: string; status: IncidentStatus; note: string }) =>
      ok(api.PATCH("/incidents/{id}", { params: { path: { id: v.id } }, body: { status: v.status, ...(v.note.trim() ? { note: v.note.trim() } : {}) } }), { detailsApart: true }),
    // The list, the chart, the precision and the badge all change with a status.
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.incidents.all }),
  });
}

export function useMakeEvalCase() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { id: string; setId: string }) => ok(api.POST("/incidents/{id}/eval-case", { params: { path: { id: v.id } }, body: { set_id: v.setId } }), { detailsApart: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.evals.all }),
  });
}
