// A local, deterministic, download-free embedder: hashed word unigrams, word bigrams
// and character trigrams ("feature hashing"), L2-normalized. It captures shared words
// and word pieces, not meaning: "car" and "automobile" are unrelated to it. It is
// labelled "lexical" everywhere for that reason.

export const LEXICAL_MODEL = "lexical-hash-v1";
export const LEXICAL_DIMENSIONS = 256;

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function lexicalTokens(text: string): string[] {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t.length > 0);
}

function add(vec: Float64Array, feature: string, weight: number) {
  const h = fnv1a(feature);
  const idx = h % vec.length;
  // A second hash bit picks the sign, so collisions cancel out instead of piling up.
  const sign = (fnv1a(`~${feature}`) & 1) === 0 ? 1 : -1;
  vec[idx] += sign * weight;
}

export function embedLexical(text: string, dimensions = LEXICAL_DIMENSIONS): number[] {
  const vec = new Float64Array(dimensions);
  const words = lexicalTokens(text);
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    add(vec, `w:${w}`, 1);
    if (i + 1 < words.length) add(vec, `b:${w} ${words[i + 1]}`, 0.5);
    const padded = `^${w}$`;
    if (padded.length > 3) for (let j = 0; j + 3 <= padded.length; j++) add(vec, `c:${padded.slice(j, j + 3)}`, 0.25);
  }
  let norm = 0;
  for (let i = 0; i < dimensions; i++) norm += vec[i] * vec[i];
  norm = Math.sqrt(norm);
  const out = new Array<number>(dimensions);
  for (let i = 0; i < dimensions; i++) out[i] = norm ? vec[i] / norm : 0;
  return out;
}
