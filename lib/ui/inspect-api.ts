"use client";
// Data hooks of the prompt inspector.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useRef, useState } from "react";
import type { Conversation } from "@/lib/conversations/schemas";
import type { ContextResult } from "@/lib/context/schemas";
import type { Message } from "@/lib/messages/schemas";
import type { WindowResult } from "@/lib/strategies/schemas";
import { api, ApiError } from "./api-client";
import { fromContext, fromWindow, type InspectRequest, type InspectResult } from "./inspect-model";

export type ModelRow = { model: string; encoding: string; approximate: boolean; context_window: number; exact: boolean; source: "builtin" | "settings" };
export type Preset = { model: string; context_window: number; encoding: "o200k_base" | "cl100k_base"; exact: boolean };
type MemoryUser = { user_id: string; total: number; active: number };
type Page<T> = { data: T[]; next_cursor: string | null };

export const ik = {
  models: ["inspect", "models"] as const,
  presets: ["inspect", "presets"] as const,
  users: ["inspect", "memory-users"] as const,
  conversations: (user: string) => ["inspect", "conversations", user] as const,
  turns: (conversation: string) => ["inspect", "turns", conversation] as const,
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
    mutationFn: async (presets: Preset[]) => {
      const res = await fetch("/api/v1/settings/models", { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ presets }) });
      const json = (await res.json().catch(() => undefined)) as { error?: { code?: string; message?: string; details?: { field?: string; message: string }[] } } | undefined;
      if (!res.ok) throw new ApiError(json?.error?.message ?? `${res.status} request failed`, res.status, json?.error?.code ?? "http_error", json?.error?.details ?? []);
      return json;
    },
    onSuccess: () => Promise.all([qc.invalidateQueries({ queryKey: ik.presets }), qc.invalidateQueries({ queryKey: ik.models })]),
  });
}

export function useMemoryUsers() {
  return useQuery({
    queryKey: ik.users,
    queryFn: ({ signal }) => api.get<{ data: MemoryUser[] }>("/memory-users", undefined, signal).then((r) => r.data),
    staleTime: 60_000,
  });
}

export function useUserConversations(user: string) {
  return useQuery({
    queryKey: ik.conversations(user),
    enabled: !!user,
    queryFn: ({ signal }) => api.get<Page<Conversation>>("/conversations", { user_id: user, limit: 50 }, signal).then((r) => r.data),
    staleTime: 30_000,
  });
}

/** The turns of the conversation's current thread, newest first, for the leaf picker. */
export function useThreadTurns(conversation: string) {
  return useQuery({
    queryKey: ik.turns(conversation),
    enabled: !!conversation,
    queryFn: async ({ signal }) => {
      const [thread, page] = await Promise.all([
        api.get<{ message_ids: string[] }>(`/conversations/${conversation}/thread`, undefined, signal),
        api.get<Page<Message>>(`/conversations/${conversation}/messages`, { limit: 1000 }, signal),
      ]);
      const byId = new Map(page.data.map((m) => [m.id, m] as const));
      return thread.message_ids
        .map((id, i) => ({ id, n: i + 1, query: byId.get(id)?.query ?? "" }))
        .reverse();
    },
    staleTime: 30_000,
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
    const r = await post<ContextResult>("/context", req.body, signal);
    return fromContext(r, req.body.messages);
  }
  const r = await post<WindowResult>("/window", req.body, signal);
  const res = fromWindow(r, req.input, req.reservedOutput, req.body.temporary_messages?.length ?? 0, exactFor(r.model));
  return { ...res, strategy: { ...res.strategy, type: req.body.strategy.type } };
}

/** POST keeping the API's field details (api.post folds them into the message only). */
async function post<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/api/v1${path}`, { method: "POST", signal, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  } catch (e) {
    if ((e as Error).name === "AbortError") throw e;
    throw new ApiError("Could not reach the server. Is it running?", 0, "network_error");
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    /* non-JSON */
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string; details?: { field?: string; message: string }[] } } | undefined)?.error;
    throw new ApiError(err?.message ?? `${res.status} ${res.statusText || "request failed"}`, res.status, err?.code ?? "http_error", err?.details ?? []);
  }
  return json as T;
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
