import { hasLongPiece } from "./count-tokens";
import type { EncodingName } from "./registry";

// Whether a stored turn's text holds a piece over the exact-count limit (its stored counts are
// then approximate). Stored turns are never edited (turns are only inserted; message ids are
// unique across projects), so the answer is kept per message and encoding: the check scans
// every character, and on a 500-turn history it was a fifth of GET /history's time.

export const LONG_PIECE_MAX_ENTRIES = 200_000;
const known = new Map<string, boolean>();
// Keys in the order they were added, oldest at `head`: eviction takes them from there. (Asking
// the Map for its first key after deletions walks every deleted slot still in its table: past
// the bound, 100 000 more turns cost ~3 s of CPU that way against ~0.2 s with this queue.)
let order: string[] = [];
let head = 0;

/** Forgets every answer (lib/privacy: text erasure edits stored turns in place). */
export function forgetLongPieces(): void {
  known.clear();
  order = [];
  head = 0;
}

export function messageHasLongPiece(messageId: string, query: string, answer: string, encoding: EncodingName): boolean {
  const key = `${encoding}:${messageId}`;
  let long = known.get(key);
  if (long === undefined) {
    long = hasLongPiece(query, encoding) || hasLongPiece(answer, encoding);
    if (known.size >= LONG_PIECE_MAX_ENTRIES) {
      known.delete(order[head++]);
      // Drop the forgotten part of the queue now and then (amortized: at least half of it is gone).
      if (head > 1024 && head * 2 > order.length) {
        order = order.slice(head);
        head = 0;
      }
    }
    known.set(key, long);
    order.push(key);
  }
  return long;
}
