"use client";
// Models and their presets. Every model picker (the window controls, node memory, the inspector)
// reads one cached /models; saving presets refreshes it and the preset settings together.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ModelRow, Preset } from "../api-types";
import { keys } from "../query-keys";
import { api, ok } from "../transport";

export type { ModelRow, Preset };

/** /models: built-in models and the project's presets, with whether each counts exactly. */
export function useModels() {
  return useQuery({
    queryKey: keys.models.rows,
    queryFn: ({ signal }) => ok(api.GET("/models", { signal })).then((r) => r.data),
    staleTime: 60_000,
  });
}

/** The preset settings (the inspector's editor). */
export function usePresets(enabled: boolean) {
  return useQuery({
    queryKey: keys.models.presets,
    enabled,
    queryFn: ({ signal }) => ok(api.GET("/settings/models", { signal })).then((r) => r.data),
  });
}

export function useSavePresets() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (presets: Preset[]) => ok(api.PUT("/settings/models", { body: { presets } }), { detailsApart: true }),
    // The root: the presets and every picker's /models.
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.models.all }),
  });
}
