import { get_encoding, type Tiktoken } from "tiktoken";
import { countAloneAndSpaced, countBounded, hasLongPiece, MAX_PIECE_BYTES, scanPieces } from "./bounded-count.mjs";
import type { EncodingName } from "./registry";

export { hasLongPiece, MAX_PIECE_BYTES };

// Encoders are WASM objects that are costly to build: one per encoding per process.
const encoders = new Map<EncodingName, Tiktoken>();

function encoder(name: EncodingName): Tiktoken {
  let enc = encoders.get(name);
  if (!enc) {
    enc = get_encoding(name);
    encoders.set(name, enc);
  }
  return enc;
}

// Texts counted on this thread, ever: background work (an import) must count in the worker
// pool and leave this number as it found it, whatever other code loaded the encoders before.
let countedHere = 0;

/** How many texts this thread has counted with tiktoken (not in the worker pool). */
export function textsCountedHere(): number {
  return countedHere;
}

export type TextCount = { tokens: number; approximate: boolean };

/**
 * Tokens of `text`, in time linear in its length (bounded-count.mjs): exact, except for
 * pieces longer than MAX_PIECE_BYTES (one "word" of hundreds of letters), then `approximate`.
 */
export function countText(text: string, encoding: EncodingName): TextCount {
  countedHere++;
  return countBounded(encoder(encoding), text, encoding);
}

export function countTextTokens(text: string, encoding: EncodingName): number {
  return countText(text, encoding).tokens;
}

export type TokenCache = Record<EncodingName, number>;

/** tiktoken's pieces of `text` (or of text[from, to)) with their running token counts (bounded-count.mjs scanPieces). */
export function textPieces(text: string, encoding: EncodingName, from?: number, to?: number, stopAt?: Uint8Array | null) {
  countedHere++;
  return scanPieces(encoder(encoding), text, encoding, from, to, stopAt);
}

/**
 * Tokens of `text` alone and of " " + `text` (LlamaIndex's count of a text after another), one
 * pass (bounded-count.mjs); `approximate` is countText's for the text alone.
 */
export function countSpaced(text: string, encoding: EncodingName): { alone: number; spaced: number; approximate: boolean } {
  countedHere++;
  return countAloneAndSpaced(encoder(encoding), text, encoding);
}
