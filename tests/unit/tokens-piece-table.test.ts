import { get_encoding } from "tiktoken";
import { afterAll, describe, expect, it } from "vitest";
import { countBounded, pieceHash } from "@/lib/tokens/bounded-count.mjs";

// The per-encoding table of piece counts (bounded-count.mjs) is looked up by a 32-bit hash of
// the piece's characters; a hit must compare the characters, or two pieces with one hash would
// share a count. Two such pieces are found here by brute force (birthday bound: tens of
// thousands of words), and each must count as tiktoken counts it, whichever was kept first.

const encoders = { cl100k_base: get_encoding("cl100k_base"), o200k_base: get_encoding("o200k_base") };
afterAll(() => Object.values(encoders).forEach((e) => e.free()));

/** Two different lower-case words of one length whose pieces (" " + word) have the same hash and different counts. */
function collidingWords(name: keyof typeof encoders): [string, string] {
  const enc = encoders[name];
  const seen = new Map<number, string>();
  let x = 0x9e3779b9;
  for (let i = 0; i < 2_000_000; i++) {
    let w = "";
    for (let k = 0; k < 7; k++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      w += String.fromCharCode(97 + ((x >>> 16) % 26));
    }
    const piece = ` ${w}`;
    const h = pieceHash(piece, 0, piece.length);
    const other = seen.get(h);
    if (other !== undefined && other !== w && enc.encode_ordinary(` ${other}`).length !== enc.encode_ordinary(piece).length) return [other, w];
    seen.set(h, w);
  }
  throw new Error("no colliding pair found");
}

describe("the piece table", () => {
  it.each(["cl100k_base", "o200k_base"] as const)("gives two pieces with one hash each its own count (%s)", (name) => {
    const enc = encoders[name];
    const [a, b] = collidingWords(name);
    expect(pieceHash(` ${a}`, 0, a.length + 1)).toBe(pieceHash(` ${b}`, 0, b.length + 1));
    for (const text of [`x ${a} ${b}`, `y ${b} ${a}`, `z ${a} ${b} ${a} ${b}`]) {
      expect(countBounded(enc, text, name)).toEqual({ tokens: enc.encode_ordinary(text).length, approximate: false });
    }
  });
});
