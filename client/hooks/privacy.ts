"use client";
// A person's data (GDPR): export one end user's data, erase it (dry run first), with a receipt.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { Answer } from "../api-types";
import { keys } from "../query-keys";
import { api, ok } from "../transport";

export type UserExport = Answer<"/users/{user_id}/export", "get">;
export type EraseAnswer = Answer<"/users/{user_id}/erase", "post">;
export type ErasureReceipt = NonNullable<EraseAnswer["receipt"]>;

/** The export document, fetched on demand (the page saves it as a file). */
export function useExportUser() {
  return useMutation({
    mutationFn: (userId: string) => ok(api.GET("/users/{user_id}/export", { params: { path: { user_id: userId } } })),
  });
}

/** The dry run: rows per table that the erasure would delete; nothing changes. */
export function useErasePreview() {
  return useMutation({
    mutationFn: (userId: string) => ok(api.POST("/users/{user_id}/erase", { params: { path: { user_id: userId } }, body: { dry_run: true } })),
  });
}

/** The erasure itself; its answer carries the receipt (also in the audit log). */
export function useEraseUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) => ok(api.POST("/users/{user_id}/erase", { params: { path: { user_id: userId } }, body: { confirm: true } })),
    // Everything of the user is gone: their memories, conversations, and the audit log has a row.
    onSuccess: () => Promise.all([keys.memories.all, keys.conversations.all, keys.turns.all, keys.project.audit].map((queryKey) => qc.invalidateQueries({ queryKey }))),
  });
}
