// Piscina worker: counts a slice of texts in one encoding (see count-tokens-parallel.ts).
import { createRequire } from "node:module";
import { workerData } from "node:worker_threads";
import { countBounded, estimateTokens } from "./bounded-count.mjs";

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

/**
 * Counts `texts`; past `boundMs` of counting, the rest are estimated and flagged approximate.
 * The clock starts when the slice runs, once its encoder is built: a wait in the pool's queue,
 * a worker's start or its encoder's construction on a busy machine is not counting time, and
 * must not turn exact counts into estimates.
 * @param {{ texts: string[], encoding: "o200k_base" | "cl100k_base", boundMs: number }} task
 */
export default function countSlice({ texts, encoding, boundMs }) {
  // A pool's workers count one encoding (count-tokens-parallel.ts): each thread holds one
  // encoder's WASM memory, not both. A slice of another encoding is a routing bug, said loudly.
  const only = workerData?.encoding;
  if (only && encoding !== only) throw new Error(`this token worker counts ${only}, not ${encoding}`);
  // The encoder first: a worker's first slice builds it (0.3-0.9 s on this 2-core machine, many
  // times that when starved), which is start-up, not counting. Inside the bound, a starved
  // worker's first slice came back estimated with plenty of its bound unspent on counting.
  const enc = encoder(encoding);
  const until = performance.now() + boundMs;
  const tokens = new Int32Array(texts.length);
  const approximate = new Uint8Array(texts.length);
  for (let i = 0; i < texts.length; i++) {
    if (texts[i] && performance.now() > until) {
      tokens[i] = estimateTokens(texts[i]);
      approximate[i] = 1;
      continue;
    }
    const r = countBounded(enc, texts[i], encoding);
    tokens[i] = r.tokens;
    approximate[i] = r.approximate ? 1 : 0;
  }
  return { tokens, approximate };
}
