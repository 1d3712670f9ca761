"use client";
// Retention rules (settings): the rules with their last runs, a rule's preview, run now.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Answer, Body } from "../api-types";
import { keys } from "../query-keys";
import { api, ok } from "../transport";

export type RetentionRule = Answer<"/retention/rules", "get">["data"][number];
export type RetentionRun = Answer<"/retention/rules/{id}/run", "post">;
export type RetentionPreview = Answer<"/retention/rules/{id}/preview", "get">;
export type NewRetentionRule = Body<"/retention/rules", "post">;
type RulePatch = Body<"/retention/rules/{id}", "patch">;

export function useRetentionRules(enabled = true) {
  return useQuery({ queryKey: keys.retention.rules, enabled, queryFn: ({ signal }) => ok(api.GET("/retention/rules", { signal })) });
}

/** A rule's dry run, read when asked for (`enabled`); refreshed after each run. */
export function useRetentionPreview(id: string, enabled: boolean) {
  return useQuery({
    queryKey: keys.retention.preview(id),
    enabled,
    queryFn: ({ signal }) => ok(api.GET("/retention/rules/{id}/preview", { params: { path: { id } }, signal })),
  });
}

function useRefreshRetention() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: keys.retention.all });
}

export function useCreateRetentionRule() {
  const done = useRefreshRetention();
  return useMutation({ mutationFn: (b: NewRetentionRule) => ok(api.POST("/retention/rules", { body: b }), { detailsApart: true }), onSuccess: done });
}

export function useUpdateRetentionRule() {
  const done = useRefreshRetention();
  return useMutation({
    mutationFn: (v: { id: string; patch: RulePatch }) => ok(api.PATCH("/retention/rules/{id}", { params: { path: { id: v.id } }, body: v.patch })),
    onSuccess: done,
  });
}

export function useDeleteRetentionRule() {
  const done = useRefreshRetention();
  return useMutation({ mutationFn: (id: string) => ok(api.DELETE("/retention/rules/{id}", { params: { path: { id } } })), onSuccess: done });
}

/** Run now: what it removed changes memories, conversations and the audit log too. */
export function useRunRetentionRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => ok(api.POST("/retention/rules/{id}/run", { params: { path: { id } }, body: {} })),
    onSuccess: () =>
      Promise.all([keys.retention.all, keys.memories.all, keys.conversations.all, keys.turns.all, keys.project.audit].map((queryKey) => qc.invalidateQueries({ queryKey }))),
  });
}
