"use client";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { NodeHistoryResponse, NodeList, NodeMemory } from "@/lib/node-memory/schemas";
import { api } from "@/lib/ui/api-client";

// Type-only imports from the shared schemas: the client bundle gets the types, not zod.

export type NodeWindowParams = { model: string; max_token_limit: number; current_message_id: string | null };

export const nodeKeys = {
  all: (conversationId: string) => ["node-memory", conversationId] as const,
  list: (conversationId: string) => ["node-memory", conversationId, "list"] as const,
  doc: (conversationId: string, nodeId: string) => ["node-memory", conversationId, "doc", nodeId] as const,
  history: (conversationId: string, nodeId: string, p: NodeWindowParams) => ["node-memory", conversationId, "history", nodeId, p] as const,
};

const nodePath = (conversationId: string, nodeId: string) => `/conversations/${conversationId}/nodes/${encodeURIComponent(nodeId)}`;

export function useNodeList(conversationId: string, enabled = true) {
  return useQuery({
    queryKey: nodeKeys.list(conversationId),
    queryFn: ({ signal }) => api.get<NodeList>(`/conversations/${conversationId}/nodes`, undefined, signal),
    enabled,
  });
}

export function useNodeDocument(conversationId: string, nodeId: string | null) {
  return useQuery({
    queryKey: nodeKeys.doc(conversationId, nodeId ?? ""),
    queryFn: ({ signal }) => api.get<NodeMemory>(nodePath(conversationId, nodeId!), undefined, signal),
    enabled: !!nodeId,
  });
}

export function useNodeHistory(conversationId: string, nodeId: string | null, p: NodeWindowParams) {
  return useQuery({
    queryKey: nodeKeys.history(conversationId, nodeId ?? "", p),
    queryFn: ({ signal }) =>
      api.get<NodeHistoryResponse>(
        `${nodePath(conversationId, nodeId!)}/history`,
        { model: p.model.trim() || undefined, max_token_limit: p.max_token_limit, current_message_id: p.current_message_id },
        signal,
      ),
    enabled: !!nodeId,
    // Moving the budget must not flash the panel empty between requests.
    placeholderData: keepPreviousData,
  });
}

/** Dify's clear(): DELETE the node's document, then refresh the list. */
export function useClearNode(conversationId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (nodeId: string) => api.delete(nodePath(conversationId, nodeId)),
    onSuccess: (_, nodeId) => {
      // Drop the node from the list first so its detail unmounts instead of refetching a 404.
      qc.setQueryData<NodeList>(nodeKeys.list(conversationId), (old) => old && { data: old.data.filter((n) => n.node_id !== nodeId) });
      qc.removeQueries({ queryKey: nodeKeys.doc(conversationId, nodeId) });
      qc.removeQueries({ queryKey: ["node-memory", conversationId, "history", nodeId] });
      return qc.invalidateQueries({ queryKey: nodeKeys.list(conversationId) });
    },
  });
}
