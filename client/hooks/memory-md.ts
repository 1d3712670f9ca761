"use client";
// memory.md and learnings.md: a user's memories as a Markdown file, the diff an edit would make,
// and applying it.
import { useMutation, useQuery } from "@tanstack/react-query";
import { keys } from "../query-keys";
import { api, ok } from "../transport";
import { useSettleMemories } from "./memories";

export type MemoryMdFile = "memory" | "learnings";

export function useMemoryMd(user: string, file: MemoryMdFile) {
  return useQuery({
    queryKey: keys.memories.md(user, file),
    enabled: !!user,
    queryFn: ({ signal }) => ok(api.GET("/users/{user_id}/memory-md", { params: { path: { user_id: user }, query: { file } }, parseAs: "text", signal })),
    staleTime: Infinity,
  });
}

export function usePreviewMemoryMd(user: string) {
  return useMutation({
    mutationFn: (v: { file: MemoryMdFile; text: string }) => ok(api.POST("/users/{user_id}/memory-md/preview", { params: { path: { user_id: user } }, body: v })),
  });
}

export function useApplyMemoryMd(user: string) {
  const settle = useSettleMemories();
  return useMutation({
    mutationFn: (v: { file: MemoryMdFile; text: string }) => ok(api.POST("/users/{user_id}/memory-md/apply", { params: { path: { user_id: user } }, body: { ...v, actor: "ui" } })),
    onSuccess: () => settle(),
  });
}
