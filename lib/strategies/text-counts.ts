import { countSpaced, countText, type TextCount } from "../tokens/count-tokens";
import type { EncodingName } from "../tokens/registry";

// Token counts of whole message texts. An agent sends its whole history to POST /window on
// every turn (and the inspector previews one history under several strategies), so most texts
// of a request were counted by the request before: counting a 500-turn thread is 10-15 ms per
// encoding, a lookup per message well under 1 ms. Counts are a pure function of the text, so a
// hit is exact. Kept per project: a project's request time never says whether another project
// sent a text. Holds the texts it is keyed by, so an erasure drops it all
// (lib/privacy/purge-caches.ts). Bounded by the texts' length; the oldest texts go first.
// A Map per project keyed by the text itself: a request's strings (from JSON.parse) are hashed once, where
// lru-cache with a project-and-text key built per lookup cost ~8% of a 500-turn request.

export const TEXT_COUNTS_MAX_CHARS = 8 * 1024 * 1024;

type Spaced = { alone: number; spaced: number };
// One object a text, its counts in number fields (-1: not counted yet): a cold request keeps a
// thousand new texts, and an object per count and per spaced pair was five per text to promote and mark.
class Entry {
  o200k = -1;
  o200kLong = false;
  o200kSpaced = -1;
  cl100k = -1;
  cl100kLong = false;
  cl100kSpaced = -1;
}

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

/** project -> text -> counts. */
const projects = new Map<string, Map<string, Entry>>();
// The entries in the order they were added, oldest at `head`: eviction takes them from there.
// (Asking a Map for its oldest key after deletions walks past every deleted slot still in its
// table: with the bound reached, that walk on each new text cost ~40% of a cold request.)
let orderTexts: string[] = [];
let orderMaps: Map<string, Entry>[] = [];
let head = 0;
let cachedChars = 0;
const ENTRY_CHARS = 32; // an entry's Map slot and object, in characters, for the bound

/** Forgets the oldest entries while over the bound, never the newest (it may alone be over). */
function evictOldest(): void {
  const newest = orderTexts.length - 1;
  while (cachedChars > TEXT_COUNTS_MAX_CHARS && head < newest) {
    const text = orderTexts[head];
    orderMaps[head].delete(text);
    cachedChars -= text.length + ENTRY_CHARS;
    head++;
  }
  // Drop the forgotten part of the order now and then (amortized: at least half of it is gone).
  if (head > 1024 && head * 2 > orderTexts.length) {
    orderTexts = orderTexts.slice(head);
    orderMaps = orderMaps.slice(head);
    head = 0;
  }
}

function entryIn(byText: Map<string, Entry>, text: string): Entry {
  let e = byText.get(text);
  if (!e) {
    e = new Entry();
    byText.set(text, e);
    orderTexts.push(text);
    orderMaps.push(byText);
    cachedChars += text.length + ENTRY_CHARS;
    if (cachedChars > TEXT_COUNTS_MAX_CHARS) evictOldest();
  }
  return e;
}

/** Counts without any cache (a call that names no project). */
export const uncachedCounter: TextCounter = { count: countText, spaced: countSpaced };

/** The process's counts for one project's texts. */
export function projectTextCounter(projectId: string): TextCounter {
  let byText = projects.get(projectId);
  if (!byText) {
    byText = new Map();
    projects.set(projectId, byText);
  }
  const map = byText;
  const entry = (text: string) => entryIn(map, text);
  return {
    count(text, encoding) {
      const e = entry(text);
      if (encoding === "o200k_base") {
        if (e.o200k < 0) {
          const c = countText(text, encoding);
          e.o200k = c.tokens;
          e.o200kLong = c.approximate;
        }
        return { tokens: e.o200k, approximate: e.o200kLong };
      }
      if (e.cl100k < 0) {
        const c = countText(text, encoding);
        e.cl100k = c.tokens;
        e.cl100kLong = c.approximate;
      }
      return { tokens: e.cl100k, approximate: e.cl100kLong };
    },
    spaced(text, encoding) {
      const e = entry(text);
      const o200k = encoding === "o200k_base";
      if ((o200k ? e.o200kSpaced : e.cl100kSpaced) < 0) {
        // One pass gives the text's own count too: a later count() of it (total_tokens when the
        // model's encoding is LlamaIndex's) is a lookup, never a second scan.
        const c = countSpaced(text, encoding);
        if (o200k) {
          e.o200kSpaced = c.spaced;
          e.o200k = c.alone;
          e.o200kLong = c.approximate;
        } else {
          e.cl100kSpaced = c.spaced;
          e.cl100k = c.alone;
          e.cl100kLong = c.approximate;
        }
      }
      return o200k ? { alone: e.o200k, spaced: e.o200kSpaced } : { alone: e.cl100k, spaced: e.cl100kSpaced };
    },
    known(text, encoding) {
      const e = map.get(text);
      return e !== undefined && (encoding === "o200k_base" ? e.o200k : e.cl100k) >= 0;
    },
    record(text, encoding, c) {
      const e = entry(text);
      if (encoding === "o200k_base") {
        e.o200k = c.tokens;
        e.o200kLong = c.approximate;
      } else {
        e.cl100k = c.tokens;
        e.cl100kLong = c.approximate;
      }
    },
  };
}

/** Forgets every count (an erasure: the keys hold texts). */
export function forgetTextCounts(): void {
  projects.clear();
  orderTexts = [];
  orderMaps = [];
  head = 0;
  cachedChars = 0;
}

/** How many texts and characters the counts hold now. */
export function textCountsSize(): { texts: number; chars: number } {
  return { texts: orderTexts.length - head, chars: cachedChars };
}
