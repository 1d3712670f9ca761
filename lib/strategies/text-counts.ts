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
type Entry = { o200k_base?: TextCount; cl100k_base?: TextCount; spaced?: Partial<Record<EncodingName, Spaced>> };

/** What a strategy asks for a text: its count in an encoding, and LlamaIndex's count of " " + text. */
export type TextCounter = {
  count(text: string, encoding: EncodingName): TextCount;
  /** Tokens of " " + text (the text as it follows another in a space-joined list) and of the text alone. */
  spaced(text: string, encoding: EncodingName): Spaced;
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
    e = {};
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
      return (e[encoding] ??= countText(text, encoding));
    },
    spaced(text, encoding) {
      const e = entry(text);
      let s = e.spaced?.[encoding];
      if (!s) {
        // One pass gives the text's own count too: a later count() of it (total_tokens when the
        // model's encoding is LlamaIndex's) is a lookup, never a second scan.
        const c = countSpaced(text, encoding);
        s = { alone: c.alone, spaced: c.spaced };
        (e.spaced ??= {})[encoding] = s;
        e[encoding] ??= { tokens: c.alone, approximate: c.approximate };
      }
      return s;
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
