// Piscina worker: counts a slice of texts in one encoding (see count-tokens-parallel.ts).
import { createRequire } from "node:module";
import { countBounded } from "./bounded-count.mjs";

const { get_encoding } = createRequire(import.meta.url)("tiktoken");
const encoders = new Map();

function encoder(name) {
  let enc = encoders.get(name);
  if (!enc) {
    enc = get_encoding(name);
    encoders.set(name, enc);
  }
  return enc;
}

/** @param {{ texts: string[], encoding: "o200k_base" | "cl100k_base" }} task */
export default function countSlice({ texts, encoding }) {
  const enc = encoder(encoding);
  const tokens = new Int32Array(texts.length);
  const approximate = new Uint8Array(texts.length);
  for (let i = 0; i < texts.length; i++) {
    const r = countBounded(enc, texts[i], encoding);
    tokens[i] = r.tokens;
    approximate[i] = r.approximate ? 1 : 0;
  }
  return { tokens, approximate };
}
