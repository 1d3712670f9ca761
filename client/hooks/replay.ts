"use client";
// Replayed turns (POST /replay): the prompt of then, why each memory was in or out, variants.
// A replay is a read (nothing logged, nothing marked accessed), so it is cached like one and
// shared by the views that show the same turn under the same settings.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { ReplayBody } from "../api-types";
import { keys } from "../query-keys";
import { api, ok } from "../transport";

/**
 * One replay. While the next turn loads (a scrubber step), the last answer stays on screen
 * (isPlaceholderData says it is the previous one). null: nothing to replay yet.
 */
export function useReplay(body: ReplayBody | null) {
  return useQuery({
    queryKey: keys.replay.turn(body),
    enabled: !!body,
    queryFn: ({ signal }) => ok(api.POST("/replay", { body: body!, signal })),
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
}
