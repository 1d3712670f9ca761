"use client";
import { useQuery } from "@tanstack/react-query";
import { api, ok } from "@/client/transport";

// Turns captured over OTLP, and "sent vs modelled" for one of them. Keyed under "turns" so a
// refresh of the conversation's turns refreshes them too.

export function useCapturedTurns(conversationId: string) {
  return useQuery({
    queryKey: ["turns", conversationId, "captures"],
    queryFn: ({ signal }) => ok(api.GET("/conversations/{id}/captures", { params: { path: { id: conversationId } }, signal })),
  });
}

export function useSentVsModelled(conversationId: string, messageId: string | null) {
  return useQuery({
    queryKey: ["turns", conversationId, "captures", messageId],
    queryFn: ({ signal }) =>
      ok(api.GET("/conversations/{id}/captures/{message_id}", { params: { path: { id: conversationId, message_id: messageId! } }, signal })),
    enabled: !!messageId,
  });
}
