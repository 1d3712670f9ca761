"use client";
// The prompt inspector's runs (/window and /context) and the contents a run offloaded. Models,
// presets, conversations and memory users come from their own domains' hooks.
import { useQuery } from "@tanstack/react-query";
import { useCallback, useRef, useState } from "react";
import { fromContext, fromWindow, type InspectRequest, type InspectResult } from "../ui/inspect-model";
import { keys } from "../query-keys";
import { api, ok } from "../transport";

export function useOffloaded(ref: string | null) {
  return useQuery({
    queryKey: keys.inspect.offloaded(ref ?? ""),
    enabled: !!ref,
    queryFn: ({ signal }) => ok(api.GET("/offloaded/{ref}", { params: { path: { ref: ref! } }, signal })),
    staleTime: Infinity,
  });
}

async function runInspect(req: InspectRequest, exactFor: (model: string) => boolean, signal?: AbortSignal): Promise<InspectResult> {
  if (req.endpoint === "context") {
    const r = await ok(api.POST("/context", { body: req.body, signal }), { detailsApart: true });
    return fromContext(r, req.body.messages);
  }
  const r = await ok(api.POST("/window", { body: req.body, signal }), { detailsApart: true });
  const res = fromWindow(r, req.input, req.reservedOutput, req.body.temporary_messages?.length ?? 0, exactFor(r.model));
  return { ...res, strategy: { ...res.strategy, type: req.body.strategy.type } };
}

export type RunState = { result?: InspectResult; error?: unknown; pending: boolean; request?: InspectRequest; ms?: number };

/**
 * One run slot: keeps the last result on screen while the next one loads; a new run aborts the
 * old. Not a TanStack query: a run is an explicit action whose answer is not shared or cached.
 */
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
