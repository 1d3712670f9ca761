"use client";
// Agent profiles (/profiles): the settings each app ran with, one version per change.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Answer, Body } from "../api-types";
import { keys } from "../query-keys";
import { api, ok } from "../transport";

export type ProfileSummary = Answer<"/profiles", "get">["data"][number];
export type ProfileHistory = Answer<"/profiles/{app_id}", "get">;
export type ProfileVersion = Answer<"/profiles/{app_id}/versions", "post">;
type NewVersion = Body<"/profiles/{app_id}/versions", "post">;

export function useProfiles() {
  return useQuery({
    queryKey: keys.profiles.list,
    queryFn: ({ signal }) => ok(api.GET("/profiles", { signal })),
  });
}

export function useProfileHistory(appId: string | null) {
  return useQuery({
    queryKey: keys.profiles.one(appId ?? ""),
    enabled: !!appId,
    queryFn: ({ signal }) => ok(api.GET("/profiles/{app_id}", { params: { path: { app_id: appId! } }, signal })),
  });
}

export function useCreateProfileVersion() {
  const qc = useQueryClient();
  return useMutation({
    // 201: a new version; 200: the settings were the newest version's already, nothing was made.
    mutationFn: async (v: { appId: string; settings: unknown; note?: string; effective_from?: string }): Promise<ProfileVersion & { created: boolean }> => {
      const pending = api.POST("/profiles/{app_id}/versions", {
        params: { path: { app_id: v.appId } },
        body: {
          settings: v.settings as NewVersion["settings"],
          ...(v.note ? { note: v.note } : {}),
          ...(v.effective_from ? { effective_from: v.effective_from } : {}),
        },
      });
      const version = await ok(pending, { detailsApart: true });
      return { ...version, created: (await pending).response.status === 201 };
    },
    // The root: the list and every app's history.
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.profiles.all }),
  });
}
