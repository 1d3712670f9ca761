"use client";
// The memory dashboard: a user's metrics and the embedding index's status.
import { useQuery } from "@tanstack/react-query";
import { keys } from "../query-keys";
import { api, ok } from "../transport";

export function useMetrics(user: string) {
  return useQuery({
    queryKey: keys.memories.metrics(user),
    enabled: !!user,
    queryFn: ({ signal }) => ok(api.GET("/users/{user_id}/memories/metrics", { params: { path: { user_id: user } }, signal })),
  });
}

export function useEmbeddingStatus() {
  return useQuery({
    queryKey: keys.embeddings.status,
    queryFn: ({ signal }) => ok(api.GET("/embeddings/status", { signal })),
    // Poll every 2 s only while a re-embedding job runs.
    refetchInterval: (q) => {
      const s = q.state.data?.job?.status;
      return s === "running" || s === "pending" ? 2000 : false;
    },
  });
}
