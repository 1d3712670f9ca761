import { UUID_NIL } from "@/lib/threads/uuid-nil";

// What a turn's parent says in the tree: a root, a Dify legacy "previous row", or a broken link.
// Roots come in three forms, all drawn without a marker: parent null (a new root), UUID_NIL
// with nothing older to hang under (Dify's first row, and an import's oldest root), and the
// conversation's own id (an import's later roots, lib/imports/dify-roots.ts). Only a parent
// id that names no turn of the conversation is "missing".

export type ParentMarker = "nil" | "missing" | null;

type Turn = { parent_message_id: string | null; tree_parent_id: string | null };

export function parentMarker(m: Turn, conversationId: string, turnIds: ReadonlySet<string>): ParentMarker {
  const p = m.parent_message_id;
  if (p === null || p === conversationId) return null;
  if (p === UUID_NIL) return m.tree_parent_id ? "nil" : null;
  return turnIds.has(p) ? null : "missing";
}
