import { UUID_NIL } from "../threads/uuid-nil";
import type { ImportTurn } from "./types";

// Memscope picks a thread with Dify's walk (lib/threads/extract-thread.ts, faithful to
// Dify's api/core/prompt/utils/extract_thread_messages.py): rows newest first, a row whose
// parent is null or "" is taken and ENDS the walk, a parent of UUID_NIL takes the next
// older row whatever it is. Dify itself writes UUID_NIL for every message its service API
// receives (so the first message of such a conversation has UUID_NIL and nothing older),
// and null for a first message sent from its web app and for each regeneration of it
// (web/app/components/base/chat: `parent_message_id: ... || null`). With two such null
// roots the walk stops at whichever is met first, even off the thread being followed:
// Dify's own limit, and the reason an imported Claude.ai conversation showed its retried
// first answer in the window of the branch under the original one.
//
// An imported tree (ChatGPT, Claude.ai) often has several roots: a regenerated first answer,
// an edited first question. Their parents are written so that the unchanged walk ends at
// the root of the branch it follows and nowhere else:
// - the conversation's oldest turn, when it is a root: UUID_NIL, as Dify's own first row
//   (nothing is older, so the walk ends there; the tree draws it as a root);
// - every other root: the id of the conversation itself, which stands for the source's own
//   root node (ChatGPT's hidden mapping root, Claude's nil first parent) and is no turn. A walk
//   that reaches such a root takes it and then matches no older row; a walk that passes it
//   skips it. null would end that passing walk, UUID_NIL would pull the next older row (another
//   branch) in. Being the conversation's own id, it says what it is to every reader: the tree
//   view draws such a turn as a root, where a parent that names nothing stays "parent missing".

type Rooted = Pick<ImportTurn, "parent_message_id" | "created_at">;

/** Sets the parents of a turn tree's roots (parent null) in place; see above. */
export function difyRoots<T extends Rooted>(turns: T[], conversationId: string): T[] {
  // Write order breaks ties of time, as seq does in the walk; turns without a time are written "now", after all.
  let oldest = -1;
  turns.forEach((t, i) => {
    if (!t.created_at) return;
    if (oldest < 0 || Date.parse(t.created_at) < Date.parse(turns[oldest].created_at!)) oldest = i;
  });
  if (oldest < 0) oldest = 0;
  turns.forEach((t, i) => {
    if (t.parent_message_id === null) t.parent_message_id = i === oldest ? UUID_NIL : conversationId;
  });
  return turns;
}
