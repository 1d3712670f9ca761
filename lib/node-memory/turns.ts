import type { NodeMemoryDocument, NodeMemoryMessage } from "./schemas";

// Grouping of a v1 document's messages into turns. Client-safe (types only), shared by
// the history window and the conversation page.

/** One user message and its answer. A lone message (never written by this API) is a turn of its own. */
export type NodeTurn = {
  id: string;
  /** The user message's parent, with an assistant message id mapped to its turn. */
  parentMessageId: string | null;
  user: NodeMemoryMessage | null;
  assistant: NodeMemoryMessage | null;
};

/** Groups messages into turns, oldest first, in document order. */
export function documentTurns(doc: Pick<NodeMemoryDocument, "messages">): NodeTurn[] {
  const turns: NodeTurn[] = [];
  const byUserId = new Map<string, NodeTurn>();
  for (const m of doc.messages) {
    if (m.role === "assistant") {
      const owner = m.parent_message_id ? byUserId.get(m.parent_message_id) : undefined;
      if (owner && !owner.assistant) owner.assistant = m;
      else turns.push({ id: m.message_id, parentMessageId: m.parent_message_id, user: null, assistant: m });
      continue;
    }
    const turn: NodeTurn = { id: m.message_id, parentMessageId: m.parent_message_id, user: m, assistant: null };
    turns.push(turn);
    byUserId.set(m.message_id, turn);
  }
  // A parent may name the assistant message of a turn: follow it to the turn.
  const turnOf = new Map<string, string>();
  for (const t of turns) {
    turnOf.set(t.id, t.id);
    if (t.assistant) turnOf.set(t.assistant.message_id, t.id);
  }
  for (const t of turns) {
    if (t.user && t.parentMessageId && turnOf.has(t.parentMessageId)) t.parentMessageId = turnOf.get(t.parentMessageId)!;
  }
  return turns;
}

/** The turn holding a message id (either of its two messages), or null. */
export function findTurn(turns: NodeTurn[], messageId: string): NodeTurn | null {
  return turns.find((t) => t.id === messageId || t.assistant?.message_id === messageId) ?? null;
}
