"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { request } from "@/lib/ui/api-client";
import type { ZProfileHistory, ZProfileList, ZProfileVersion } from "@/lib/profiles/schemas";

// Hooks of the agent profiles section (/api/v1/profiles). Kept apart from settings-queries.ts
// and mechanical, so the client data layer's rewrite can move them as they are.

export type ProfileSummary = z.infer<typeof ZProfileList>["data"][number];
export type ProfileHistory = z.infer<typeof ZProfileHistory>;
export type ProfileVersion = z.infer<typeof ZProfileVersion>;

const K = { list: ["profiles"], one: (appId: string) => ["profiles", appId] };
const path = (appId: string) => `/profiles/${encodeURIComponent(appId)}`;

export const useProfiles = () => useQuery({ queryKey: K.list, queryFn: () => request<z.infer<typeof ZProfileList>>("GET", "/profiles") });
export const useProfileHistory = (appId: string | null) =>
  useQuery({ queryKey: K.one(appId ?? ""), queryFn: () => request<ProfileHistory>("GET", path(appId!)), enabled: !!appId });

export function useCreateProfileVersion() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { appId: string; settings: unknown; note?: string; effective_from?: string }) =>
      request<ProfileVersion>("POST", `${path(v.appId)}/versions`, {
        body: { settings: v.settings, ...(v.note ? { note: v.note } : {}), ...(v.effective_from ? { effective_from: v.effective_from } : {}) },
        detailsApart: true,
      }),
    onSuccess: () => qc.invalidateQueries({ queryKey: K.list }),
  });
}
