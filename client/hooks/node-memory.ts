"use client";
// Dify's per-node memory documents of a conversation: the list, one document, the history window
// a node would get, and clearing a node.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { NodeList } from "../api-types";
import { keys, type NodeWindowParams } from "../query-keys";
import { api, ok } from "../transport";

export type { NodeWindowParams };

export function useNodeList(conversationId: string, enabled = true) {
  return useQuery({
    queryKey: keys.nodeMemory.list(conversationId),
    queryFn: ({ signal }) => ok(api.GET("/conversations/{id}/nodes", { params: { path: { id: conversationId } }, signal })),
    enabled,
  });
}

export function useNodeDocument(conversationId: string, nodeId: string | null) {
  return useQuery({
    queryKey: keys.nodeMemory.doc(conversationId, nodeId ?? ""),
    queryFn: ({ signal }) => ok(api.GET("/conversations/{id}/nodes/{node_id}", { params: { path: { id: conversationId, node_id: nodeId! } }, signal })),
    enabled: !!nodeId,
  });
}

export function useNodeHistory(conversationId: string, nodeId: string | null, p: NodeWindowParams) {
  return useQuery({
    queryKey: keys.nodeMemory.history(conversationId, nodeId ?? "", p),
    queryFn: ({ signal }) =>
      ok(
        api.GET("/conversations/{id}/nodes/{node_id}/history", {
          params: {
            path: { id: conversationId, node_id: nodeId! },
            query: { model: p.model.trim() || undefined, max_token_limit: p.max_token_limit, current_message_id: p.current_message_id ?? undefined },
          },
          signal,
        }),
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
    mutationFn: (nodeId: string) => ok(api.DELETE("/conversations/{id}/nodes/{node_id}", { params: { path: { id: conversationId, node_id: nodeId } } })),
    onSuccess: (_, nodeId) => {
      // Drop the node from the list first so its detail unmounts instead of refetching a 404.
      qc.setQueryData<NodeList>(keys.nodeMemory.list(conversationId), (old) => old && { data: old.data.filter((n) => n.node_id !== nodeId) });
      qc.removeQueries({ queryKey: keys.nodeMemory.doc(conversationId, nodeId) });
      qc.removeQueries({ queryKey: keys.nodeMemory.histories(conversationId, nodeId) });
      return qc.invalidateQueries({ queryKey: keys.nodeMemory.list(conversationId) });
    },
  });
}
