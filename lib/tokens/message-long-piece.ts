import { hasLongPiece } from "./count-tokens";
import type { EncodingName } from "./registry";

// Whether a stored turn's text holds a piece over the exact-count limit (its stored counts are
// then approximate). Stored turns are never edited (turns are only inserted; message ids are
// unique across projects), so the answer is kept per message and encoding: the check scans
// every character, and on a 500-turn history it was a fifth of GET /history's time.

const MAX_ENTRIES = 200_000;
const known = new Map<string, boolean>();

/** Forgets every answer (lib/privacy: text erasure edits stored turns in place). */
export function forgetLongPieces(): void {
  known.clear();
}

export function messageHasLongPiece(messageId: string, query: string, answer: string, encoding: EncodingName): boolean {
  const key = `${encoding}:${messageId}`;
  let long = known.get(key);
  if (long === undefined) {
    long = hasLongPiece(query, encoding) || hasLongPiece(answer, encoding);
    // A Map iterates in insertion order: drop the oldest entry when full.
    if (known.size >= MAX_ENTRIES) known.delete(known.keys().next().value!);
    known.set(key, long);
  }
  return long;
}
