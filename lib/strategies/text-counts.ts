import { countSpaced, countText, type TextCount } from "../tokens/count-tokens";
import type { EncodingName } from "../tokens/registry";

// Token counts of whole message texts. An agent sends its whole history to POST /window on
// every turn (and the inspector previews one history under several strategies), so most texts
// of a request were counted by the request before: counting a 500-turn thread is 10-15 ms per
// encoding, a lookup per message well under 1 ms. Counts are a pure function of the text, so a
// hit is exact (a hit compares the whole text, never only its hash). Kept per project: a
// project's request time never says whether another project sent a text. Holds the texts it is
// keyed by, so an erasure drops it all (lib/privacy/purge-caches.ts). Bounded by the texts'
// length; the oldest texts go first.
// No JS objects per text: the texts are copied as bytes into one Buffer (one byte a character
// for an ASCII text, else UTF-16) and each entry's key and counts live in typed arrays, found
// through an open-addressed table of entry ids. A cold 500-turn request adds 1 001 texts; kept
// as Map keys with an object each, they were ~30 000 strings and objects in the old generation at
// the bound, which every mark-compact marked and moved (a cold call's major GC ~3x a warm one's:
// docs/benchmarks.md section 69). A Buffer's contents are neither marked nor moved. The copy and
// the comparison on a hit are native (latin1Write/ucs2Write, Buffer.compare); the hash reads the
// copied bytes four at a time.

export const TEXT_COUNTS_MAX_CHARS = 8 * 1024 * 1024;

/** What a strategy asks for a text: its count in an encoding, and LlamaIndex's count of " " + text. */
export type TextCounter = {
  count(text: string, encoding: EncodingName): TextCount;
  /** Tokens of " " + text (the text as it follows another in a space-joined list) and of the text alone. */
  spaced(text: string, encoding: EncodingName): Spaced;
  /** Whether the text's own count in this encoding is kept (a lookup, no scan). Only a counter that keeps counts has it. */
  known?(text: string, encoding: EncodingName): boolean;
  /** Keeps a count made elsewhere (the worker pool runs the same countBounded: the same answer). */
  record?(text: string, encoding: EncodingName, count: TextCount): void;
};
type Spaced = { alone: number; spaced: number };

const ENTRY_CHARS = 32; // an entry's slot and fields, in characters, for the bound
const EMPTY = -1;
const GONE = -2;
// Counts per entry (-1: not counted yet), at id * FIELDS + field.
const FIELDS = 4;
const O200K = 0;
const O200K_SPACED = 1;
const CL100K = 2;
const CL100K_SPACED = 3;
// Flags per entry: long pieces (bit 0: o200k, bit 1: cl100k).
const O200K_LONG = 1;
const CL100K_LONG = 2;
// The byte array grows to at most this before it grows only by what it needs: at the bound, the
// kept texts of one-byte characters fit in it with room for the forgotten ones' places.
const BYTES_SOFT_CAP = Math.ceil(TEXT_COUNTS_MAX_CHARS * 1.5);

// Entries are numbered in the order they were added, for ever (ids only grow); those from `head`
// to `tail` are kept, at index id - entryBase of the arrays; oldest go first. Their characters
// are at bytes[start - byteBase, ...), one or two bytes each, in the order added.
let entryBase = 0;
let head = 0;
let tail = 0;
let entryProject = new Int32Array(1024);
let entryHash = new Int32Array(1024);
let entryStart = new Float64Array(1024); // absolute byte positions: past 2^31 in a long-lived process
let entryLength = new Int32Array(1024); // characters
let entryBytes = new Int32Array(1024);
let entryCounts = new Int32Array(1024 * FIELDS);
let entryLong = new Uint8Array(1024);
let byteBase = 0;
let byteEnd = 0; // absolute position after the newest entry's characters
let bytes = Buffer.alloc(1 << 16);
// The text being looked up, as it would be stored (zeros after it to a multiple of 4 bytes), and its byte length.
let scratch = Buffer.alloc(1 << 12);
let scratchWords = new Int32Array(scratch.buffer, scratch.byteOffset, scratch.length >> 2);
let scratchBytes = 0;
// Open-addressed table: entry id, EMPTY, or GONE (a forgotten entry's slot, skipped by a search).
let slots = new Int32Array(2048).fill(EMPTY);
let slotsUsed = 0; // live and GONE slots
let cachedChars = 0;
/** project id -> its number in the entries' keys. */
const projectNumbers = new Map<string, number>();
// Bumped by forgetTextCounts: a counter's remembered entry ids from before are void.
let epoch = 0;

/** Copies the text into `scratch` (one byte a character when all are ASCII, else UTF-16) and returns its hash. */
function stage(project: number, text: string): number {
  const ascii = Buffer.byteLength(text, "utf8") === text.length;
  const n = ascii ? text.length : 2 * text.length;
  if (n + 4 > scratch.length) {
    scratch = Buffer.alloc(Math.max(n + 4, scratch.length * 2) + 3 & ~3);
    scratchWords = new Int32Array(scratch.buffer, scratch.byteOffset, scratch.length >> 2);
  }
  if (ascii) scratch.write(text, 0, "latin1");
  else scratch.write(text, 0, "utf16le");
  scratch.writeInt32LE(0, n); // zeros to the next multiple of 4 (and a word past it, harmless)
  scratchBytes = n;
  // Project, length and width in the seed: the same characters in another project are another key.
  let h = Math.imul(project + 1, 0x9e3779b1) ^ Math.imul(text.length + (ascii ? 0 : 0x40000000), 0x85ebca6b);
  const words = (n + 3) >> 2;
  for (let i = 0; i < words; i++) h = Math.imul(h ^ scratchWords[i], 0x01000193) ^ (h >>> 13);
  return h ^ (h >>> 15);
}

/** Whether entry `id` is the staged text of `project` (the whole bytes compared, never only the hash). */
function sameText(id: number, project: number, length: number): boolean {
  const e = id - entryBase;
  if (entryProject[e] !== project || entryLength[e] !== length || entryBytes[e] !== scratchBytes) return false;
  const at = entryStart[e] - byteBase;
  return bytes.compare(scratch, 0, scratchBytes, at, at + scratchBytes) === 0;
}

/** The kept entry's id for this project's text, or -1. */
function find(project: number, length: number, hash: number): number {
  const mask = slots.length - 1;
  for (let s = hash & mask; ; s = (s + 1) & mask) {
    const id = slots[s];
    if (id === EMPTY) return -1;
    if (id !== GONE && entryHash[id - entryBase] === hash && sameText(id, project, length)) return id;
  }
}

function placeSlot(id: number, hash: number): void {
  const mask = slots.length - 1;
  let s = hash & mask;
  while (slots[s] !== EMPTY) s = (s + 1) & mask;
  slots[s] = id;
}

/** A new table for the kept entries: twice the size when they fill half of it, else the same size without the GONE slots. */
function rebuildSlots(): void {
  const live = tail - head;
  let size = slots.length;
  while (live * 2 >= size) size *= 2;
  while (size > 2048 && live * 8 < size) size /= 2;
  slots = new Int32Array(size).fill(EMPTY);
  for (let id = head; id < tail; id++) placeSlot(id, entryHash[id - entryBase]);
  slotsUsed = live;
}

function forgetSlot(id: number): void {
  const mask = slots.length - 1;
  for (let s = entryHash[id - entryBase] & mask; ; s = (s + 1) & mask) {
    if (slots[s] === id) {
      slots[s] = GONE;
      return;
    }
  }
}

function grown<T extends Int32Array | Float64Array | Uint8Array>(a: T, keep: number, from: number, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a.subarray(from, from + keep));
  return b;
}

/** Room for one more entry (dropping the forgotten ones' places first). */
function roomForEntry(): void {
  const n = tail - entryBase;
  if (n < entryLength.length) return;
  const live = tail - head;
  const from = head - entryBase;
  const size = live * 2 >= entryLength.length ? entryLength.length * 2 : entryLength.length;
  entryProject = grown(entryProject, live, from, size);
  entryHash = grown(entryHash, live, from, size);
  entryStart = grown(entryStart, live, from, size);
  entryLength = grown(entryLength, live, from, size);
  entryBytes = grown(entryBytes, live, from, size);
  entryLong = grown(entryLong, live, from, size);
  entryCounts = grown(entryCounts, live * FIELDS, from * FIELDS, size * FIELDS);
  entryBase = head;
}

/** Room for `n` more bytes (dropping the forgotten texts' bytes first). */
function roomForBytes(n: number): void {
  if (byteEnd - byteBase + n <= bytes.length) return;
  const liveStart = head < tail ? entryStart[head - entryBase] : byteEnd;
  const live = byteEnd - liveStart;
  let size = bytes.length;
  // Grows when the kept bytes would fill 3/4 of it, else moves them to its start.
  if ((live + n) * 4 > size * 3) size = Math.max(Math.min(size * 2, BYTES_SOFT_CAP), Math.ceil(((live + n) * 4) / 3));
  if (size === bytes.length) bytes.copyWithin(0, liveStart - byteBase, byteEnd - byteBase);
  else {
    const b = Buffer.alloc(size);
    bytes.copy(b, 0, liveStart - byteBase, byteEnd - byteBase);
    bytes = b;
  }
  byteBase = liveStart;
}

/** Forgets the oldest entries while over the bound, never the newest (it may alone be over). */
function evictOldest(): void {
  while (cachedChars > TEXT_COUNTS_MAX_CHARS && head < tail - 1) {
    forgetSlot(head);
    cachedChars -= entryLength[head - entryBase] + ENTRY_CHARS;
    head++;
  }
}

/** Keeps the staged text of `project` as a new entry. */
function add(project: number, length: number, hash: number): number {
  const n = scratchBytes;
  roomForEntry();
  roomForBytes(n);
  const id = tail++;
  const e = id - entryBase;
  entryProject[e] = project;
  entryHash[e] = hash;
  entryStart[e] = byteEnd;
  entryLength[e] = length;
  entryBytes[e] = n;
  entryCounts.fill(-1, e * FIELDS, e * FIELDS + FIELDS);
  entryLong[e] = 0;
  scratch.copy(bytes, byteEnd - byteBase, 0, n);
  byteEnd += n;
  cachedChars += length + ENTRY_CHARS;
  if (cachedChars > TEXT_COUNTS_MAX_CHARS) evictOldest();
  // GONE slots count as used: a search stops only at an EMPTY one.
  if (++slotsUsed * 2 >= slots.length) rebuildSlots();
  else placeSlot(id, hash);
  return id;
}

/** The 32-bit hash a project's text is filed under (for its test: two texts under one hash). */
export function textCountHash(projectId: string, text: string): number {
  return stage(projectNumber(projectId), text);
}

function projectNumber(projectId: string): number {
  let n = projectNumbers.get(projectId);
  if (n === undefined) {
    n = projectNumbers.size;
    projectNumbers.set(projectId, n);
  }
  return n;
}

/** Counts without any cache (a call that names no project). */
export const uncachedCounter: TextCounter = { count: countText, spaced: countSpaced };

/** The process's counts for one project's texts (a counter per request: it remembers where its texts' entries are). */
export function projectTextCounter(projectId: string): TextCounter {
  const p = projectNumber(projectId);
  // A request asks about each of its texts several times (known, spaced, record, count): the
  // entry's id by the string itself (V8 hashes a string once) saves hashing and comparing its
  // characters again. Cleared when large: a caller may keep one counter for many threads.
  const ids = new Map<string, number>();
  let idsEpoch = epoch;
  const lookup = (text: string, create: boolean): number => {
    if (idsEpoch !== epoch) {
      ids.clear();
      idsEpoch = epoch;
    }
    const known = ids.get(text);
    if (known !== undefined && known >= head) return known;
    const hash = stage(p, text);
    let id = find(p, text.length, hash);
    if (id < 0) {
      if (!create) return -1;
      id = add(p, text.length, hash);
    }
    if (ids.size >= 8192) ids.clear();
    ids.set(text, id);
    return id;
  };
  const countIn = (text: string, encoding: EncodingName): TextCount => {
    const e = lookup(text, true) - entryBase;
    const [field, long] = encoding === "o200k_base" ? [O200K, O200K_LONG] : [CL100K, CL100K_LONG];
    if (entryCounts[e * FIELDS + field] < 0) {
      const c = countText(text, encoding);
      // countText may not move entries (it never touches them), so `e` still holds.
      entryCounts[e * FIELDS + field] = c.tokens;
      if (c.approximate) entryLong[e] |= long;
    }
    return { tokens: entryCounts[e * FIELDS + field], approximate: (entryLong[e] & long) !== 0 };
  };
  return {
    count: countIn,
    spaced(text, encoding) {
      const e = lookup(text, true) - entryBase;
      const [alone, spacedField, long] = encoding === "o200k_base" ? [O200K, O200K_SPACED, O200K_LONG] : [CL100K, CL100K_SPACED, CL100K_LONG];
      if (entryCounts[e * FIELDS + spacedField] < 0) {
        // One pass gives the text's own count too: a later count() of it (total_tokens when the
        // model's encoding is LlamaIndex's) is a lookup, never a second scan.
        const c = countSpaced(text, encoding);
        entryCounts[e * FIELDS + spacedField] = c.spaced;
        entryCounts[e * FIELDS + alone] = c.alone;
        entryLong[e] = c.approximate ? entryLong[e] | long : entryLong[e] & ~long;
      }
      return { alone: entryCounts[e * FIELDS + alone], spaced: entryCounts[e * FIELDS + spacedField] };
    },
    known(text, encoding) {
      const id = lookup(text, false);
      return id >= 0 && entryCounts[(id - entryBase) * FIELDS + (encoding === "o200k_base" ? O200K : CL100K)] >= 0;
    },
    record(text, encoding, c) {
      const e = lookup(text, true) - entryBase;
      const [field, long] = encoding === "o200k_base" ? [O200K, O200K_LONG] : [CL100K, CL100K_LONG];
      entryCounts[e * FIELDS + field] = c.tokens;
      entryLong[e] = c.approximate ? entryLong[e] | long : entryLong[e] & ~long;
    },
  };
}

/** Forgets every count (an erasure: the keys hold texts). */
export function forgetTextCounts(): void {
  epoch++;
  entryBase = head = tail;
  byteBase = byteEnd;
  cachedChars = 0;
  entryProject = new Int32Array(1024);
  entryHash = new Int32Array(1024);
  entryStart = new Float64Array(1024);
  entryLength = new Int32Array(1024);
  entryBytes = new Int32Array(1024);
  entryCounts = new Int32Array(1024 * FIELDS);
  entryLong = new Uint8Array(1024);
  bytes = Buffer.alloc(1 << 16);
  slots = new Int32Array(2048).fill(EMPTY);
  slotsUsed = 0;
}

/** How many texts and characters the counts hold now. */
export function textCountsSize(): { texts: number; chars: number } {
  return { texts: tail - head, chars: cachedChars };
}
