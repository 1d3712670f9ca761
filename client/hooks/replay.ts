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
 * Replays the scrubber will want next, fetched one after the other once `ready` (the turn on
 * screen has its own answer), so that a step onto a turn not seen before finds its replay in
 * the cache: the server runs replays one at a time, so a prefetch never runs beside the
 * replay the view is waiting for, and one already cached (or in flight) is not asked again.
 * A new list (the view moved on) stops the chain after the request in flight.
 */
export function usePrefetchReplays(bodies: (ReplayBody | null)[], ready: boolean, prepare?: (answer: ReplayResult) => void) {
  const qc = useQueryClient();
  const wanted = JSON.stringify(bodies);
  useEffect(() => {
    if (!ready) return;
    let stopped = false;
    void (async () => {
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
  }, [qc, wanted, ready, prepare]);
}
