"use client";
// The retrieval playground: a ranked search with each score's breakdown.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { Body } from "../api-types";
import { keys } from "../query-keys";
import { api, ok } from "../transport";

export type SearchInput = Body<"/users/{user_id}/memories/search", "post">;

/** `dry_run` searches leave access counts alone, so their answers may be reused for 30 s. */
export function useMemorySearch(user: string, body: SearchInput) {
  return useQuery({
    queryKey: keys.memories.search(user, body),
    enabled: !!user && !!body.query.trim(),
    queryFn: () => ok(api.POST("/users/{user_id}/memories/search", { params: { path: { user_id: user } }, body })),
    placeholderData: keepPreviousData,
    staleTime: body.dry_run ? 30_000 : 0,
    retry: false,
  });
}
