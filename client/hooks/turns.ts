"use client";
// A conversation's turns: every message, a thread, the history window a model would get, and
// the turns of a leaf picker.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { Message } from "../api-types";
import { keys, type HistoryParams } from "../query-keys";
import { api, ok } from "../transport";

export type { HistoryParams };

/** Every message of a conversation, pages of 1 000 until the cursor runs out (5 000-turn conversations exist). */
async function allMessages(id: string, signal: AbortSignal): Promise<Message[]> {
  const all: Message[] = [];
  let cursor: string | undefined;
  do {
    const page = await ok(api.GET("/conversations/{id}/messages", { params: { path: { id }, query: { cursor, limit: 1000 } }, signal }));
    for (const m of page.data) all.push(m);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return all;
}

/** Every turn of every branch. */
export function useAllMessages(id: string) {
  return useQuery({ queryKey: keys.turns.messages(id), queryFn: ({ signal }) => allMessages(id, signal), staleTime: 30_000 });
}

export function useThread(id: string, leaf: string | null, enabled = true) {
  return useQuery({
    queryKey: keys.turns.thread(id, leaf),
    enabled,
    queryFn: ({ signal }) => ok(api.GET("/conversations/{id}/thread", { params: { path: { id }, query: { leaf_message_id: leaf ?? undefined } }, signal })),
    placeholderData: keepPreviousData,
  });
}

export function useHistory(id: string, p: HistoryParams, format: "messages" | "text", enabled = true) {
  return useQuery({
    queryKey: keys.turns.history(id, p, format),
    enabled,
    queryFn: ({ signal }) =>
      ok(
        api.GET("/conversations/{id}/history", {
          params: {
            path: { id },
            query: {
              leaf_message_id: p.leaf ?? undefined,
              model: p.model.trim() || undefined,
              max_token_limit: p.max_token_limit,
              message_limit: p.message_limit ?? undefined,
              format,
              // Per-turn tokens for the transcript (the JSON payload only needs the messages).
              include_turn_tokens: format === "messages" ? "true" : undefined,
            },
          },
          signal,
        }),
      ),
    // Moving a slider must not flash the panel empty between requests.
    placeholderData: keepPreviousData,
  });
}

/**
 * The turns of the conversation's current thread, newest first, for a leaf picker: `n` is the
 * turn's place in the thread counted from its first turn (the newest of 640 is #640).
 * /thread answers newest first already.
 */
export function useThreadTurns(conversation: string) {
  return useQuery({
    queryKey: keys.turns.picker(conversation),
    enabled: !!conversation,
    queryFn: async ({ signal }) => {
      const thread = await ok(api.GET("/conversations/{id}/thread", { params: { path: { id: conversation } }, signal }));
      // Every page of messages: a thread can be longer than one page.
      const all = await allMessages(conversation, signal);
      return threadPickerTurns(thread.message_ids, all);
    },
    staleTime: 30_000,
  });
}

type PickerTurn = { id: string; n: number; query: string };

/**
 * The leaf picker's rows: the current thread (`ids` newest first, as /thread answers; numbered
 * from its oldest turn, #1), then every other turn of the conversation, on other branches,
 * oldest first, each numbered by its depth in its own thread: any turn can end a window.
 */
export function threadPickerTurns(
  ids: readonly string[],
  messages: readonly Pick<Message, "id" | "query" | "tree_parent_id">[],
): { current: PickerTurn[]; other: PickerTurn[] } {
  const byId = new Map(messages.map((m) => [m.id, m]));
  const current = ids.map((id, i) => ({ id, n: ids.length - i, query: byId.get(id)?.query ?? "" }));
  const onThread = new Set(ids);
  const depth = new Map<string, number>();
  const depthOf = (id: string): number => {
    // Walk up to a turn whose depth is known (or a root), then fill the path in: no recursion on long threads.
    const path: string[] = [];
    let at: string | null = id;
    let base = 0;
    while (at && byId.has(at) && path.length <= byId.size) {
      const known = depth.get(at);
      if (known !== undefined) {
        base = known;
        break;
      }
      path.push(at);
      at = byId.get(at)!.tree_parent_id;
    }
    for (let i = path.length - 1; i >= 0; i--) depth.set(path[i], ++base);
    return depth.get(id)!;
  };
  const other = messages.filter((m) => !onThread.has(m.id)).map((m) => ({ id: m.id, n: depthOf(m.id), query: m.query }));
  return { current, other };
}
