// Token counting in bounded time. Plain JavaScript (no TypeScript, no "server-only"):
// the app and the piscina worker (token-worker.mjs) load this same file.
//
// Why: tiktoken splits text into pieces with a regex and byte-pair-merges each piece in
// time quadratic in its length. Ordinary pieces are words (a few bytes), but one piece of
// 200,000 letters takes a minute and 1 MB of one letter crashes the WASM module.
// So pieces longer than MAX_PIECE_BYTES are merged in segments of at most that many bytes.
// The count of such a piece is then an approximation (a segment boundary can split a token
// the whole piece would have merged: a handful of tokens per kilobyte at worst), and the
// result says so. Every other text is counted exactly as plain tiktoken counts it.

/** Pieces (regex matches of the encoding's split pattern) longer than this, in UTF-8 bytes, are counted approximately. */
export const MAX_PIECE_BYTES = 256;

// Unicode White_Space, as Rust's regex \s (JavaScript's \s differs: it has U+FEFF and lacks U+0085).
const WS = "\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000";
// (?i:'s|'t|'re|'ve|'m|'ll|'d) without inline flags (Node 20 has none); ſ folds to s in Rust's regex.
const CONTRACTION = "'(?:[sSſ]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])";

/** tiktoken's split patterns (encoders/*.json pat_str), translated to JavaScript regex syntax. */
const SPLIT_PATTERNS = {
  o200k_base: [
    `[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:${CONTRACTION})?`,
    `[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:${CONTRACTION})?`,
    `\\p{N}{1,3}`,
    ` ?[^${WS}\\p{L}\\p{N}]+[\\r\\n/]*`,
    `[${WS}]*[\\r\\n]+`,
    `[${WS}]+(?![^${WS}])`,
    `[${WS}]+`,
  ].join("|"),
  cl100k_base: [
    CONTRACTION,
    `[^\\r\\n\\p{L}\\p{N}]?\\p{L}+`,
    `\\p{N}{1,3}`,
    ` ?[^${WS}\\p{L}\\p{N}]+[\\r\\n]*`,
    `[${WS}]*[\\r\\n]+`,
    `[${WS}]+(?![^${WS}])`,
    `[${WS}]+`,
  ].join("|"),
};

// A piece longer than MAX_PIECE_BYTES contains a run of at least RUN characters that are all
// letters and marks, or all neither letters nor numbers (symbols, white space, newlines):
// a letter piece adds at most 4 bytes before its letters and 3 after, and a character is at
// most 4 bytes; digits come 3 at a time. Text without such a run has no long piece.
const RUN = Math.floor((MAX_PIECE_BYTES - 16) / 4);
const LONG_RUN = new RegExp(`[\\p{L}\\p{M}]{${RUN},}|[^\\p{L}\\p{N}]{${RUN},}`, "u");

const encoder = new TextEncoder();

function utf8Length(s) {
  // Cheap upper bound first: a UTF-16 unit is at most 3 UTF-8 bytes.
  if (s.length * 3 <= MAX_PIECE_BYTES) return s.length;
  return encoder.encode(s).length;
}

/**
 * Splits one long piece into segments of at most MAX_PIECE_BYTES UTF-8 bytes, never inside a
 * surrogate pair (half a pair would be counted as U+FFFD).
 */
function* segments(piece) {
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < piece.length; ) {
    const cp = piece.codePointAt(i);
    const width = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    const units = cp >= 0x10000 ? 2 : 1;
    if (bytes + width > MAX_PIECE_BYTES) {
      yield piece.slice(start, i);
      start = i;
      bytes = 0;
    }
    bytes += width;
    i += units;
  }
  if (start < piece.length) yield piece.slice(start);
}

// Pieces repeat (words, numbers up to 3 digits, punctuation, indentation), so their counts
// are kept: a text is split with the encoding's pattern here and each piece costs a lookup,
// instead of a call into the WASM module, whose own split is the slow part (about 10x for log
// output, 3-4x for prose). Per encoding; bounded in entries and length.
//
// The table is open-addressed and looked up by the piece's place in the text, so a piece seen
// before is never cut out as a string of its own (a Map keyed by `text.slice(...)` allocated and
// hashed a new string per piece: ~50 000 a 500-turn thread, per encoding). It is small while few
// pieces are known (a thread's prose has under a thousand distinct pieces) and its slots and the
// pieces' characters sit in typed arrays: in a Map of strings each lookup read memory spread over
// the heap, and that, not the counting, was most of a first count of a thread. A hit compares
// the characters, so it is exact.
const PIECE_CACHE_MAX = 50_000;
const CACHED_PIECE_MAX_CHARS = 32;
const PIECE_CHARS_MAX = 1 << 21; // the kept pieces' characters (4 MB)
const MIN_TABLE_BITS = 11;
// Slot i is meta[4i..4i+3]: the piece's hash, its count, where its characters start in `chars`, its length (0: empty).
const SLOT = 4;

function newPieceTable(bits = MIN_TABLE_BITS) {
  return { bits, mask: (1 << bits) - 1, meta: new Int32Array(SLOT << bits), chars: new Uint16Array(1024), used: 0, size: 0 };
}
const pieceCounts = { o200k_base: newPieceTable(), cl100k_base: newPieceTable() };
const splitters = {};

/** FNV-1a of s[start, end) with its length, mixed: the table's hash. */
export function pieceHash(s, start, end) {
  let h = 0x811c9dc5 ^ (end - start);
  for (let i = start; i < end; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h ^ (h >>> 15);
}

/** The count of s[start, end) kept in `table` (hash `h`), or -1. The table is never full (at most half), so a probe ends. */
function lookupPiece(table, s, start, end, h) {
  const length = end - start;
  const meta = table.meta;
  const chars = table.chars;
  const mask = table.mask;
  for (let slot = h & mask; ; slot = (slot + 1) & mask) {
    const b = slot * SLOT;
    const len = meta[b + 3];
    if (len === 0) return -1;
    if (len === length && meta[b] === h) {
      const off = meta[b + 2];
      let j = 0;
      while (j < length && chars[off + j] === s.charCodeAt(start + j)) j++;
      if (j === length) return meta[b + 1];
    }
  }
}

/** Puts a slot's fields where the probe for `h` finds the first empty slot. */
function place(table, h, count, off, length) {
  const meta = table.meta;
  let slot = h & table.mask;
  while (meta[slot * SLOT + 3] !== 0) slot = (slot + 1) & table.mask;
  const b = slot * SLOT;
  meta[b] = h;
  meta[b + 1] = count;
  meta[b + 2] = off;
  meta[b + 3] = length;
}

/** Keeps the count of s[start, end) (not in the table yet): doubles the table past half full, empties it at its bounds. */
function insertPiece(table, s, start, end, h, count) {
  const length = end - start;
  if (table.size >= PIECE_CACHE_MAX || table.used + length > PIECE_CHARS_MAX) {
    table.meta = new Int32Array(SLOT << MIN_TABLE_BITS);
    table.bits = MIN_TABLE_BITS;
    table.mask = (1 << MIN_TABLE_BITS) - 1;
    table.used = 0;
    table.size = 0;
  }
  if ((table.size + 1) * 2 > 1 << table.bits) {
    const old = table.meta;
    table.bits++;
    table.mask = (1 << table.bits) - 1;
    table.meta = new Int32Array(SLOT << table.bits);
    for (let b = 0; b < old.length; b += SLOT) if (old[b + 3] !== 0) place(table, old[b], old[b + 1], old[b + 2], old[b + 3]);
  }
  if (table.used + length > table.chars.length) {
    const grown = new Uint16Array(Math.max(table.chars.length * 2, table.used + length));
    grown.set(table.chars.subarray(0, table.used));
    table.chars = grown;
  }
  for (let i = 0; i < length; i++) table.chars[table.used + i] = s.charCodeAt(start + i);
  place(table, h, count, table.used, length);
  table.used += length;
  table.size++;
}

/** The count of s[start, end) (a piece or segment), from the table or the encoder. */
function cachedCount(enc, table, s, start, end) {
  const h = pieceHash(s, start, end);
  let n = lookupPiece(table, s, start, end, h);
  if (n < 0) {
    n = enc.encode_ordinary(s.slice(start, end)).length;
    insertPiece(table, s, start, end, h, n);
  }
  return n;
}

// The encodings' split, hand-written for ASCII: the Unicode regex costs most of a long count
// (LlamaIndex's joined history: ~25 ms of regex for 240 KB of chat, a few ms this way). Any
// piece whose outcome depends on a non-ASCII character is left to the regex, so the pieces are
// the regex's own (checked against it by a property test in tests/unit/tokens-ascii-split.test.ts).
const A_OTHER = 0, A_UPPER = 1, A_LOWER = 2, A_DIGIT = 3, A_SPACE = 4, A_NEWLINE = 5;
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (c >= 65 && c <= 90) ASCII_CLASS[c] = A_UPPER;
  else if (c >= 97 && c <= 122) ASCII_CLASS[c] = A_LOWER;
  else if (c >= 48 && c <= 57) ASCII_CLASS[c] = A_DIGIT;
  else if (c === 10 || c === 13) ASCII_CLASS[c] = A_NEWLINE;
  else if (c === 9 || c === 11 || c === 12 || c === 32) ASCII_CLASS[c] = A_SPACE;
}
const UNDECIDED = -1;

/** A character's ASCII class, or -1 when it is not ASCII (or past the end: then -2). */
function asciiClass(s, i) {
  if (i >= s.length) return -2;
  const c = s.charCodeAt(i);
  return c < 128 ? ASCII_CLASS[c] : -1;
}

const isLetter = (k) => k === A_UPPER || k === A_LOWER;

/** The end of '(?i:s|t|re|ve|m|ll|d) at `p` (ſ folding to s), `p` when there is none, or UNDECIDED. */
function contractionEnd(s, p) {
  if (s.charCodeAt(p) !== 39 || p + 1 >= s.length) return p;
  const raw = s.charCodeAt(p + 1);
  if (raw >= 128) return UNDECIDED;
  const a = raw | 32;
  if (a === 115 || a === 116 || a === 109 || a === 100) return p + 2;
  if (p + 2 < s.length && (a === 114 || a === 118 || a === 108)) {
    const b = s.charCodeAt(p + 2) | 32;
    if ((a === 114 && b === 101) || (a === 118 && b === 101) || (a === 108 && b === 108)) return p + 3;
  }
  return p;
}

/** cl100k_base's `\p{L}+` from `i`: where the run of ASCII letters ends, or UNDECIDED before a non-ASCII character. */
function letterRunEnd(s, i) {
  for (;;) {
    const k = asciiClass(s, i);
    if (isLetter(k)) i++;
    else return k === -1 ? UNDECIDED : i;
  }
}

/**
 * o200k_base's two letter patterns from `i` (upper-case letters then lower-case ones, or
 * upper-case ones alone), each with an optional contraction.
 */
function casedWordEnd(s, i) {
  let k = asciiClass(s, i);
  while (k === A_UPPER) k = asciiClass(s, ++i);
  if (k === -1) return UNDECIDED;
  while (k === A_LOWER) k = asciiClass(s, ++i);
  if (k === -1) return UNDECIDED;
  return contractionEnd(s, i);
}

/**
 * The end of the piece starting at `p` in `s`, or UNDECIDED when a non-ASCII character could
 * change it. Pattern order: (cl100k) contraction; letters with an optional leading character;
 * 1-3 digits; punctuation; white space ending in newlines; white space not before a
 * non-space; white space.
 */
export function asciiPieceEnd(s, p, o200k) {
  const n = s.length;
  const c = s.charCodeAt(p);
  if (c >= 128) return UNDECIDED;
  const k = ASCII_CLASS[c];
  if (!o200k && c === 39) {
    const e = contractionEnd(s, p);
    if (e !== p) return e;
  }
  if (isLetter(k)) return o200k ? casedWordEnd(s, p) : letterRunEnd(s, p + 1);
  if (k !== A_DIGIT && k !== A_NEWLINE && p + 1 < n) {
    const next = asciiClass(s, p + 1);
    if (next === -1) return UNDECIDED; // a non-ASCII letter would make this a letter piece
    if (isLetter(next)) return o200k ? casedWordEnd(s, p + 1) : letterRunEnd(s, p + 2);
  }
  if (k === A_DIGIT) {
    let i = p + 1;
    while (i < n && i < p + 3) {
      const d = asciiClass(s, i);
      if (d === -1) return UNDECIDED; // other scripts' digits count as \p{N}
      if (d !== A_DIGIT) break;
      i++;
    }
    return i;
  }
  // ` ?[^\s\p{L}\p{N}]+[\r\n]*` (o200k: `[\r\n/]*`)
  let q = c === 32 ? p + 1 : p;
  const first = asciiClass(s, q);
  if (first === -1) return UNDECIDED;
  if (first === A_OTHER) {
    let o = first;
    while (o === A_OTHER) o = asciiClass(s, ++q);
    if (o === -1) return UNDECIDED;
    for (;;) {
      const t = s.charCodeAt(q);
      if (q < n && (t === 10 || t === 13 || (o200k && t === 47))) q++;
      else return q;
    }
  }
  // White space: the run [p, r) and its last newline.
  let r = p;
  let lastNewline = -1;
  for (;;) {
    const w = asciiClass(s, r);
    if (w === -1) return UNDECIDED; // U+0085, U+00A0... are white space too
    if (w === A_NEWLINE) lastNewline = r;
    else if (w !== A_SPACE) break;
    r++;
  }
  if (lastNewline >= 0) return lastNewline + 1;
  if (r === n) return r;
  return r - p >= 2 ? r - 1 : r;
}

const stickySplitters = {};

/**
 * The next piece of `s` at or after `p`: sets PIECE.start and PIECE.end, false when none is left.
 * The ASCII path where it decides; everything else is the regex's match.
 */
const PIECE = { start: 0, end: 0 };
function nextPiece(s, p, encodingName) {
  if (p >= s.length) return false;
  const end = asciiPieceEnd(s, p, encodingName === "o200k_base");
  if (end !== UNDECIDED) {
    PIECE.start = p;
    PIECE.end = end;
    return true;
  }
  const sticky = (stickySplitters[encodingName] ??= new RegExp(SPLIT_PATTERNS[encodingName], "yu"));
  sticky.lastIndex = p;
  let m = sticky.exec(s);
  if (!m || m[0].length === 0) {
    // Not reached with these patterns (every character starts a piece); the global search
    // skips as the scan always has.
    const split = (splitters[encodingName] ??= new RegExp(SPLIT_PATTERNS[encodingName], "gu"));
    split.lastIndex = m ? p + 1 : p;
    m = split.exec(s);
    while (m && m[0].length === 0) {
      split.lastIndex++;
      m = split.exec(s);
    }
    if (!m) return false;
  }
  PIECE.start = m.index;
  PIECE.end = m.index + m[0].length;
  return true;
}

/** The pieces of `s` as the split regex alone cuts them: the reference for the ASCII path's property test. */
export function regexPieces(s, encodingName) {
  return Array.from(s.matchAll(new RegExp(SPLIT_PATTERNS[encodingName], "gu")), (m) => m[0]).filter((m) => m.length > 0);
}

/** The pieces of `s` as the scan cuts them (the ASCII path where it decides, else the regex). */
export function splitPieces(s, encodingName) {
  const out = [];
  for (let p = 0; nextPiece(s, p, encodingName); p = PIECE.end) out.push(s.slice(PIECE.start, PIECE.end));
  return out;
}

/**
 * Counts `text` with `enc` (a tiktoken encoder for `encodingName`).
 * Exact unless the text has a piece longer than MAX_PIECE_BYTES; then `approximate` is true.
 *
 * Exactness: tiktoken encodes each piece (regex match) on its own and concatenates, so the
 * sum of the pieces' counts is the text's count, provided the split here finds the same
 * pieces as tiktoken's (the same patterns; checked against plain tiktoken in tests).
 * @param {{ encode_ordinary(text: string): ArrayLike<number> }} enc
 * @param {string} text
 * @param {"o200k_base" | "cl100k_base"} encodingName
 * @returns {{ tokens: number, approximate: boolean }}
 */
export function countBounded(enc, text, encodingName) {
  if (!text) return { tokens: 0, approximate: false };
  const tokens = countFrom(enc, pieceCounts[encodingName], text, 0, encodingName);
  return { tokens, approximate: restLong };
}

/** Bytes per token in an estimate (OpenAI's rule of thumb), used where a count ran out of time. */
const BYTES_PER_TOKEN_ESTIMATE = 4;

/**
 * A rough count of `text` from its UTF-8 length, for texts a time bound left uncounted.
 * @param {string} text
 */
export function estimateTokens(text) {
  return Math.ceil(encoder.encode(text).length / BYTES_PER_TOKEN_ESTIMATE);
}

/**
 * LONG_RUN.test(text) as a loop over character classes (the Unicode regex tries its
 * 60-character runs at every position: ~8 ms for a 500-turn history); non-ASCII code points
 * are classed one by one.
 */
const IS_LETTER = /^\p{L}$/u;
const IS_MARK = /^\p{M}$/u;
const IS_NUMBER = /^\p{N}$/u;

export function mayHaveLongRun(text) {
  let letters = 0;
  let others = 0; // neither letters nor digits: punctuation and white space
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) {
      // One code point (as the regex counts them): a mark extends both kinds of run.
      const cp = text.codePointAt(i);
      if (cp > 0xffff) i++;
      const ch = String.fromCodePoint(cp);
      if (IS_LETTER.test(ch)) {
        others = 0;
        if (++letters >= RUN) return true;
      } else if (IS_MARK.test(ch)) {
        if (++letters >= RUN || ++others >= RUN) return true;
      } else if (IS_NUMBER.test(ch)) {
        letters = 0;
        others = 0;
      } else {
        letters = 0;
        if (++others >= RUN) return true;
      }
      continue;
    }
    const k = ASCII_CLASS[c];
    if (k === A_UPPER || k === A_LOWER) {
      others = 0;
      if (++letters >= RUN) return true;
    } else if (k === A_DIGIT) {
      letters = 0;
      others = 0;
    } else {
      letters = 0;
      if (++others >= RUN) return true;
    }
  }
  return false;
}

/** LONG_RUN's own answer: the reference for mayHaveLongRun's property test. */
export function longRunByRegex(text) {
  return LONG_RUN.test(text);
}

/**
 * True when counting `text` in this encoding would be approximate (it has a piece longer
 * than MAX_PIECE_BYTES). Cheap for ordinary text: one regex test.
 * @param {string} text
 * @param {"o200k_base" | "cl100k_base"} encodingName
 */
export function hasLongPiece(text, encodingName) {
  if (!text || !mayHaveLongRun(text)) return false;
  const split = new RegExp(SPLIT_PATTERNS[encodingName], "gu");
  for (let m = split.exec(text); m; m = split.exec(text)) {
    if (m[0].length === 0) split.lastIndex++;
    else if (m[0].length >= RUN && utf8Length(m[0]) > MAX_PIECE_BYTES) return true;
  }
  return false;
}

/**
 * The pieces of `text` (tiktoken's split) with their counts: piece i starts at `starts[i]`
 * and the pieces before it hold `before[i]` tokens (`before[starts.length]` is the total).
 * Used where many prefixes or suffixes of one long text are counted (LlamaIndex's memory
 * counts its messages joined with spaces): a scan once, then a lookup per count.
 * @param {{ encode_ordinary(text: string): ArrayLike<number> }} enc
 * @param {string} text
 * @param {"o200k_base" | "cl100k_base"} encodingName
 * @param {number} [from] where to start (a scan from a position is the scan of the text's tail: the pattern has no lookbehind)
 * @param {number} [to] where to stop (exclusive); the text past it is not looked at
 * @param {Uint8Array | null} [stopAt] stop before the first piece (after the first) that starts where this is 1: the scan has met another scan's piece boundary and would go on as that scan
 */
export function scanPieces(enc, text, encodingName, from = 0, to = text.length, stopAt = null) {
  const cache = pieceCounts[encodingName];
  const s = from === 0 && to === text.length ? text : text.slice(0, to);
  const starts = [];
  const before = [0];
  let tokens = 0;
  let approximate = false;
  for (let p = from; nextPiece(s, p, encodingName); p = PIECE.end) {
    const start = PIECE.start;
    const end = PIECE.end;
    if (stopAt && starts.length && stopAt[start]) return { starts, before, approximate, stoppedAt: start };
    starts.push(start);
    const length = end - start;
    if (length <= CACHED_PIECE_MAX_CHARS) tokens += cachedCount(enc, cache, s, start, end);
    else {
      const piece = s.slice(start, end);
      if (length < RUN || utf8Length(piece) <= MAX_PIECE_BYTES) tokens += enc.encode_ordinary(piece).length;
      else {
        for (const seg of segments(piece)) tokens += cachedCount(enc, cache, seg, 0, seg.length);
        approximate = true;
      }
    }
    before.push(tokens);
  }
  return { starts, before, approximate, stoppedAt: -1 };
}

// Set by countFrom when a piece it counted was long (counted in segments: approximate).
let restLong = false;

/**
 * Tokens of s from `p` to its end, piece by piece, as countBounded counts them: the scan and the
 * table lookup in one loop (the table's arrays in locals, no piece object between them), since
 * this loop is nearly all of a first count of a thread. Sets restLong.
 */
function countFrom(enc, table, s, p, encodingName) {
  restLong = false;
  const o200k = encodingName === "o200k_base";
  const n = s.length;
  let tokens = 0;
  while (p < n) {
    let start = p;
    let end = asciiPieceEnd(s, p, o200k);
    if (end === UNDECIDED) {
      if (!nextPiece(s, p, encodingName)) break;
      start = PIECE.start;
      end = PIECE.end;
    }
    p = end;
    const length = end - start;
    if (length > CACHED_PIECE_MAX_CHARS) {
      tokens += pieceTokens(enc, table, s, start, end);
      if (lastPieceLong) restLong = true;
      continue;
    }
    tokens += cachedCount(enc, table, s, start, end);
  }
  return tokens;
}

// Set by pieceTokens when the piece it counted was long (counted in segments: approximate).
let lastPieceLong = false;

/** Tokens of the piece s[start, end), as countBounded counts it. */
function pieceTokens(enc, cache, s, start, end) {
  lastPieceLong = false;
  const length = end - start;
  if (length <= CACHED_PIECE_MAX_CHARS) return cachedCount(enc, cache, s, start, end);
  const piece = s.slice(start, end);
  if (length < RUN || utf8Length(piece) <= MAX_PIECE_BYTES) return enc.encode_ordinary(piece).length;
  lastPieceLong = true;
  // Segments of one long run repeat (1 MB of one letter is 4,096 equal segments): cached too.
  let tokens = 0;
  for (const seg of segments(piece)) tokens += cachedCount(enc, cache, seg, 0, seg.length);
  return tokens;
}

/**
 * Tokens of `text` alone and of " " + `text` (the text as it follows another in a space-joined
 * list, LlamaIndex's count), in one pass and without arrays: the scan of the text is the scan
 * of " " + text from its second character (the split pattern has no lookbehind), so the two
 * scans are advanced in step until both start a piece at the same place (usually after one
 * piece); from there they are the same scan and the rest is counted once.
 * @param {{ encode_ordinary(text: string): ArrayLike<number> }} enc
 * @param {string} text
 * @param {"o200k_base" | "cl100k_base"} encodingName
 * `approximate` is countBounded's for the text alone (it has a piece over MAX_PIECE_BYTES), so
 * the alone count serves as the text's count too (text-counts.ts: a text is never counted twice).
 * @returns {{ alone: number, spaced: number, approximate: boolean }}
 */
export function countAloneAndSpaced(enc, text, encodingName) {
  const cache = pieceCounts[encodingName];
  // Joined, not `" " + text`: a concatenation is a rope (V8's cons string), and reading a rope's
  // characters one by one costs several times a flat string's (half of this count was that).
  const s = [" ", text].join("");
  const n = s.length;
  let spacedAt = 0; // where the scan of " " + text is
  let aloneAt = 1; // where the scan of the text alone is
  let spaced = 0;
  let alone = 0;
  let approximate = false;
  while (spacedAt !== aloneAt) {
    // Advance the scan that is behind; a scan with no piece left is at the end.
    const behindIsSpaced = spacedAt < aloneAt;
    const p = behindIsSpaced ? spacedAt : aloneAt;
    let tokens = 0;
    let end = n;
    if (nextPiece(s, p, encodingName)) {
      tokens = pieceTokens(enc, cache, s, PIECE.start, PIECE.end);
      end = PIECE.end;
      if (!behindIsSpaced && lastPieceLong) approximate = true;
    }
    if (behindIsSpaced) {
      spaced += tokens;
      spacedAt = end;
    } else {
      alone += tokens;
      aloneAt = end;
    }
  }
  const rest = countFrom(enc, cache, s, spacedAt, encodingName);
  if (restLong) approximate = true;
  return { alone: alone + rest, spaced: spaced + rest, approximate };
}
