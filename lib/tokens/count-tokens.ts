import { get_encoding, type Tiktoken } from "tiktoken";
import { countBounded, hasLongPiece, MAX_PIECE_BYTES } from "./bounded-count.mjs";
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

/** The encoders this thread has built: background work (an import) must leave the server's thread without any. */
export function loadedEncoders(): EncodingName[] {
  return [...encoders.keys()];
}

export type TextCount = { tokens: number; approximate: boolean };

/**
 * Tokens of `text`, in time linear in its length (bounded-count.mjs): exact, except for
 * pieces longer than MAX_PIECE_BYTES (one "word" of hundreds of letters), then `approximate`.
 */
export function countText(text: string, encoding: EncodingName): TextCount {
  return countBounded(encoder(encoding), text, encoding);
}

export function countTextTokens(text: string, encoding: EncodingName): number {
  return countText(text, encoding).tokens;
}

export type TokenCache = Record<EncodingName, number>;
