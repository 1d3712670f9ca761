import fc from "fast-check";
import { get_encoding } from "tiktoken";
import { afterAll, describe, expect, it } from "vitest";
import { countBounded, longRunByRegex, mayHaveLongRun, regexPieces, splitPieces } from "@/lib/tokens/bounded-count.mjs";

// The encodings' split has an ASCII path written by hand (bounded-count.mjs) for speed; it
// must cut exactly where the encoding's regex cuts, for any text, ASCII or not.

const encoders = { cl100k_base: get_encoding("cl100k_base"), o200k_base: get_encoding("o200k_base") };
afterAll(() => Object.values(encoders).forEach((e) => e.free()));

// Characters chosen to reach every branch: letters, contractions, digits (ASCII and other
// scripts'), punctuation, each kind of white space and newline, Unicode letters, white space
// and digits next to ASCII ones, ſ after an apostrophe, emoji (surrogate pairs).
const ALPHABET = [
  "a", "Z", "Q", "HELLO", "World", "q", "e", "s", "S", "t", "T", "r", "R", "v", "l", "L", "m", "d", "D", "0", "7", "9",
  "'", "'s", "'RE", "'ll", "'ve", "'d", "'", "'S", "'T", ".", ",", "/", "//\n", "!", "?", "-", "/", "(", "\"", "#", "\u0000", "\u007f",
  " ", " ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\r",
  "é", "ſ", "ß", "Ж", "中", "²", "٣", "\u00a0", "\u0085", "\u3000", "\u2028", "°", "😀", "\ud800",
];
const text = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 40 }).map((xs) => xs.join(""));

describe.each(["cl100k_base", "o200k_base"] as const)("%s split: the ASCII path cuts as the regex does", (encoding) => {
  const enc = encoders[encoding];
  it("gives the regex's pieces for random mixed text", () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(splitPieces(s, encoding)).toEqual(regexPieces(s, encoding));
      }),
      { numRuns: 20_000 },
    );
  });

  it("counts as tiktoken does on text without long pieces", () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(countBounded(enc, s, encoding).tokens).toBe(enc.encode_ordinary(s).length);
      }),
      { numRuns: 3_000 },
    );
  });

  it.each([
    ["contractions and a failed one", "it's we'RE they'll I'd 'rx 'r"],
    ["a space before punctuation, then a letter piece", "see .com and  ..x"],
    ["white space runs before words, newlines and the end", "a   b\t\tc \n\n  d  \r\n"],
    ["digits in threes and a Unicode digit", "12345 12²3 ٣4"],
    ["a letter run meeting a non-ASCII letter", "café naïve Straße"],
    ["cased words, capitals with contractions, paths", "HELLOworld camelCase DON'T it'S a/b//\nc"],
  ])("%s", (_name, s) => {
    expect(splitPieces(s, encoding)).toEqual(regexPieces(s, encoding));
    expect(countBounded(enc, s, encoding).tokens).toBe(enc.encode_ordinary(s).length);
  });
});

describe("the long-run check before a long-piece scan", () => {
  // Runs of letters, of symbols and of white space around the 60-character threshold.
  const run = fc.tuple(fc.constantFrom("a", "Z", "-", " ", "\n", "7", "é", "\u00a0", "\u0301", "٣", "𝐀", "😀", "\ud800"), fc.integer({ min: 1, max: 70 })).map(([c, n]) => c.repeat(n));
  it("answers as the regex for any mix of runs", () => {
    fc.assert(
      fc.property(fc.array(run, { maxLength: 6 }), (runs) => {
        const s = runs.join("");
        expect(mayHaveLongRun(s)).toBe(longRunByRegex(s));
      }),
      { numRuns: 5_000 },
    );
  });
});
