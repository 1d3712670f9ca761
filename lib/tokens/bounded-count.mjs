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
// are kept: a text is split with the encoding's pattern here and each piece costs a Map
// lookup, instead of a call into the WASM module, whose own split is the slow part
// (about 10x for log output, 3-4x for prose). Per encoding; bounded in entries and length.
const PIECE_CACHE_MAX = 50_000;
const CACHED_PIECE_MAX_CHARS = 32;
const pieceCounts = { o200k_base: new Map(), cl100k_base: new Map() };
const splitters = {};
const scanners = {};

/** A piece's (or segment's) count, from the cache or the encoder. */
function cachedCount(enc, cache, piece) {
  let n = cache.get(piece);
  if (n === undefined) {
    n = enc.encode_ordinary(piece).length;
    if (cache.size >= PIECE_CACHE_MAX) cache.clear();
    cache.set(piece, n);
  }
  return n;
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
  const cache = pieceCounts[encodingName];
  const split = (splitters[encodingName] ??= new RegExp(SPLIT_PATTERNS[encodingName], "gu"));
  split.lastIndex = 0;
  let tokens = 0;
  let approximate = false;
  for (let m = split.exec(text); m; m = split.exec(text)) {
    const piece = m[0];
    if (piece.length === 0) {
      split.lastIndex++; // cannot happen with these patterns; never loop forever
      continue;
    }
    if (piece.length <= CACHED_PIECE_MAX_CHARS) {
      tokens += cachedCount(enc, cache, piece);
    } else if (piece.length < RUN || utf8Length(piece) <= MAX_PIECE_BYTES) {
      tokens += enc.encode_ordinary(piece).length;
    } else {
      // Segments of one long run repeat (1 MB of one letter is 4,096 equal segments): cached too.
      for (const seg of segments(piece)) tokens += cachedCount(enc, cache, seg);
      approximate = true;
    }
  }
  return { tokens, approximate };
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
 * True when counting `text` in this encoding would be approximate (it has a piece longer
 * than MAX_PIECE_BYTES). Cheap for ordinary text: one regex test.
 * @param {string} text
 * @param {"o200k_base" | "cl100k_base"} encodingName
 */
export function hasLongPiece(text, encodingName) {
  if (!text || !LONG_RUN.test(text)) return false;
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
  // One compiled pattern per encoding (compiling it costs more than scanning a message): the
  // scan is synchronous, so sharing its lastIndex is safe.
  const split = (scanners[encodingName] ??= new RegExp(SPLIT_PATTERNS[encodingName], "gu"));
  const s = from === 0 && to === text.length ? text : text.slice(0, to);
  split.lastIndex = from;
  const starts = [];
  const before = [0];
  let tokens = 0;
  let approximate = false;
  for (let m = split.exec(s); m; m = split.exec(s)) {
    const piece = m[0];
    if (piece.length === 0) {
      split.lastIndex++;
      continue;
    }
    if (stopAt && starts.length && stopAt[m.index]) return { starts, before, approximate, stoppedAt: m.index };
    starts.push(m.index);
    if (piece.length <= CACHED_PIECE_MAX_CHARS) tokens += cachedCount(enc, cache, piece);
    else if (piece.length < RUN || utf8Length(piece) <= MAX_PIECE_BYTES) tokens += enc.encode_ordinary(piece).length;
    else {
      for (const seg of segments(piece)) tokens += cachedCount(enc, cache, seg);
      approximate = true;
    }
    before.push(tokens);
  }
  return { starts, before, approximate, stoppedAt: -1 };
}
