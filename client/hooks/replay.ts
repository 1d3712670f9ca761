"use client";
// Replayed turns (POST /replay): the prompt of then, why each memory was in or out, variants.
// A replay is a read (nothing logged, nothing marked accessed), so it is cached like one and
// shared by the views that show the same turn under the same settings.
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { ReplayBody, ReplayResult } from "../api-types";
import { keys } from "../query-keys";
import { api, ok } from "../transport";

const STALE_MS = 60_000;

const replayQuery = (body: ReplayBody) => ({
  queryKey: keys.replay.turn(body),
  queryFn: ({ signal }: { signal: AbortSignal }) => ok(api.POST("/replay", { body, signal })),
  staleTime: STALE_MS,
});

/**
 * One replay. While the next turn loads (a scrubber step), the last answer stays on screen
 * (isPlaceholderData says it is the previous one). null: nothing to replay yet.
 */
export function useReplay(body: ReplayBody | null) {
  return useQuery({
    ...replayQuery(body!),
    queryKey: keys.replay.turn(body),
    enabled: !!body,
    placeholderData: keepPreviousData,
  });
}

/**
 * Replays the scrubber will want next, fetched one after the other, so that a step onto a turn
 * not seen before finds its replay in the cache. The chain first waits for `first` (the
 * replays the view itself is asking for: the same requests, not new ones), then asks for
 * `bodies` at once: the next turn's replay is then computed while the page renders the one
 * it just got, not after (a held arrow key waited for both, one after the other). The server
 * runs a request's statements beside another's, so the chain never asks beside the replay the
 * view is waiting for, and one already cached (or in flight) is not asked again. A new list
 * (the view moved on) stops the chain after the request in flight.
 */
export function usePrefetchReplays(first: (ReplayBody | null)[], bodies: (ReplayBody | null)[], prepare?: (answer: ReplayResult) => void) {
  const qc = useQueryClient();
  const waitFor = JSON.stringify(first);
  const wanted = JSON.stringify(bodies);
  useEffect(() => {
    let stopped = false;
    void (async () => {
      // Deduplicated with the view's own queries (an in-flight fetch is joined, a cached answer read).
      for (const body of JSON.parse(waitFor) as (ReplayBody | null)[]) {
        if (body) await qc.prefetchQuery(replayQuery(body)).catch(() => {});
        if (stopped) return;
      }
      for (const body of JSON.parse(wanted) as (ReplayBody | null)[]) {
        if (stopped) return;
        if (!body) continue;
        // Failures are left for the view to show when it asks for that turn itself.
        await qc.prefetchQuery(replayQuery(body)).catch(() => {});
        // The view's own work on that answer (keys of its messages), done now rather than at the step.
        const answer = qc.getQueryData<ReplayResult>(keys.replay.turn(body));
        if (answer && prepare && !stopped) prepare(answer);
      }
    })();
    return () => {
      stopped = true;
    };
  }, [qc, waitFor, wanted, prepare]);
}
