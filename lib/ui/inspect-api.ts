"use client";
// Data hooks of the prompt inspector (models, presets, offloaded contents, runs). Conversations and
// memory users come from their own domains' hooks (lib/ui/queries.ts, lib/ui/memory-queries.ts).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useRef, useState } from "react";
import type { ContextResult } from "@/lib/context/schemas";
import type { ModelPreset, ModelRow } from "@/lib/models/schemas";
import type { WindowResult } from "@/lib/strategies/schemas";
import { api, ApiError } from "./api-client";
import { fromContext, fromWindow, type InspectRequest, type InspectResult } from "./inspect-model";

export type { ModelRow };
export type Preset = ModelPreset;

export const ik = {
  models: ["inspect", "models"] as const,
  presets: ["inspect", "presets"] as const,
  offloaded: (ref: string) => ["inspect", "offloaded", ref] as const,
};

export function useModelRows() {
  return useQuery({
    queryKey: ik.models,
    queryFn: ({ signal }) => api.get<{ data: ModelRow[] }>("/models", undefined, signal).then((r) => r.data),
    staleTime: 60_000,
  });
}

export function usePresets(enabled: boolean) {
  return useQuery({
    queryKey: ik.presets,
    enabled,
    queryFn: ({ signal }) => api.get<{ data: (Preset & { source: "builtin" | "settings" })[] }>("/settings/models", undefined, signal).then((r) => r.data),
  });
}

export function useSavePresets() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (presets: Preset[]) => api.put<{ data: (Preset & { source: string })[] }>("/settings/models", { presets }, { detailsApart: true }),
    onSuccess: () => Promise.all([qc.invalidateQueries({ queryKey: ik.presets }), qc.invalidateQueries({ queryKey: ik.models })]),
  });
}

export function useOffloaded(ref: string | null) {
  return useQuery({
    queryKey: ik.offloaded(ref ?? ""),
    enabled: !!ref,
    queryFn: ({ signal }) => api.get<{ ref: string; content: string; tokens: number }>(`/offloaded/${ref}`, undefined, signal),
    staleTime: Infinity,
  });
}

export async function runInspect(req: InspectRequest, exactFor: (model: string) => boolean, signal?: AbortSignal): Promise<InspectResult> {
  if (req.endpoint === "context") {
    const r = await api.post<ContextResult>("/context", req.body, undefined, { signal, detailsApart: true });
    return fromContext(r, req.body.messages);
  }
  const r = await api.post<WindowResult>("/window", req.body, undefined, { signal, detailsApart: true });
  const res = fromWindow(r, req.input, req.reservedOutput, req.body.temporary_messages?.length ?? 0, exactFor(r.model));
  return { ...res, strategy: { ...res.strategy, type: req.body.strategy.type } };
}

export type RunState = { result?: InspectResult; error?: unknown; pending: boolean; request?: InspectRequest; ms?: number };

/** One run slot: keeps the last result on screen while the next one loads; a new run aborts the old. */
export function useRunSlot(exactFor: (model: string) => boolean) {
  const [state, setState] = useState<RunState>({ pending: false });
  const ctrl = useRef<AbortController | null>(null);
  const exactRef = useRef(exactFor);
  exactRef.current = exactFor;
  const run = useCallback(async (req: InspectRequest) => {
    ctrl.current?.abort();
    const c = new AbortController();
    ctrl.current = c;
    setState((s) => ({ ...s, pending: true, error: undefined }));
    const t0 = performance.now();
    try {
      const result = await runInspect(req, exactRef.current, c.signal);
      if (!c.signal.aborted) setState({ result, pending: false, request: req, ms: performance.now() - t0 });
    } catch (e) {
      if (!c.signal.aborted) setState((s) => ({ ...s, pending: false, error: e, request: req }));
    }
  }, []);
  const reset = useCallback(() => {
    ctrl.current?.abort();
    setState({ pending: false });
  }, []);
  return { ...state, run, reset };
}

/** The API's 422 details as field → message. */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  const out: Record<string, string> = {};
  for (const d of error.details) if (d.field && !(d.field in out)) out[d.field] = d.message;
  return out;
}
