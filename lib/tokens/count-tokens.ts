import { get_encoding, type Tiktoken } from "tiktoken";
import type { EncodingName } from "./registry";

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

export function countTextTokens(text: string, encoding: EncodingName): number {
  if (!text) return 0;
  return encoder(encoding).encode_ordinary(text).length;
}

export type TokenCache = Record<EncodingName, number>;
