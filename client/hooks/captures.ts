"use client";
// Turns captured over OTLP, and "sent vs modelled" for one of them (the conversation page's
// tab and the replay page's). Under the "turns" root: a refresh of a conversation's turns
// refreshes them too.
import { useQuery } from "@tanstack/react-query";
import { keys } from "../query-keys";
import { api, ok } from "../transport";

export function useCapturedTurns(conversationId: string) {
  return useQuery({
    queryKey: keys.turns.captures(conversationId),
    queryFn: ({ signal }) => ok(api.GET("/conversations/{id}/captures", { params: { path: { id: conversationId } }, signal })),
  });
}

/** null: no turn picked yet (nothing fetched). */
export function useSentVsModelled(conversationId: string, messageId: string | null) {
  return useQuery({
    queryKey: keys.turns.sentVsModelled(conversationId, messageId),
    queryFn: ({ signal }) =>
      ok(api.GET("/conversations/{id}/captures/{message_id}", { params: { path: { id: conversationId, message_id: messageId! } }, signal })),
    enabled: !!messageId,
  });
}
