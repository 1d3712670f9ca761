import { countText, textPieces, type TextCount } from "../tokens/count-tokens";
import type { EncodingName } from "../tokens/registry";

// Token counts of whole message texts. An agent sends its whole history to POST /window on
// every turn (and the inspector previews one history under several strategies), so most texts
// of a request were counted by the request before: counting a 500-turn thread is 10-15 ms per
// encoding, a lookup per message well under 1 ms. Counts are a pure function of the text, so a
// hit is exact. Kept per project: a project's request time never says whether another project
// sent a text. Holds the texts it is keyed by, so an erasure drops it all
// (lib/privacy/purge-caches.ts). Bounded by the texts' length; the oldest texts go first.
// A Map keyed by the text itself: a request's strings (from JSON.parse) are hashed once, where
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

/** text -> project -> counts, in the order the texts were first seen. */
const cache = new Map<string, Map<string, Entry>>();
let cachedChars = 0;
const ENTRY_CHARS = 32; // a text's Map entries, in characters, for the bound

function entryOf(projectId: string, text: string): Entry {
  let byProject = cache.get(text);
  if (!byProject) {
    byProject = new Map();
    cache.set(text, byProject);
    cachedChars += text.length + ENTRY_CHARS;
    for (const oldest of cache.keys()) {
      if (cachedChars <= TEXT_COUNTS_MAX_CHARS || oldest === text) break;
      cachedChars -= oldest.length + ENTRY_CHARS;
      cache.delete(oldest);
    }
  }
  let e = byProject.get(projectId);
  if (!e) {
    e = {};
    byProject.set(projectId, e);
  }
  return e;
}

/** Counts without any cache (a call that names no project). */
export const uncachedCounter: TextCounter = { count: countText, spaced: countSpaced };

/** The process's counts for one project's texts. */
export function projectTextCounter(projectId: string): TextCounter {
  const entry = (text: string) => entryOf(projectId, text);
  return {
    count(text, encoding) {
      const e = entry(text);
      return (e[encoding] ??= countText(text, encoding));
    },
    spaced(text, encoding) {
      const e = entry(text);
      return ((e.spaced ??= {})[encoding] ??= countSpaced(text, encoding));
    },
  };
}

/** Forgets every count (an erasure: the keys hold texts). */
export function forgetTextCounts(): void {
  cache.clear();
  cachedChars = 0;
}

/** How many texts and characters the counts hold now. */
export function textCountsSize(): { texts: number; chars: number } {
  return { texts: cache.size, chars: cachedChars };
}

/**
 * " " + text and text alone from one scan: the scan of the text is the scan of " " + text from
 * its second character (the split pattern has no lookbehind), and it follows the first scan
 * as soon as both start a piece at the same place, usually after one piece.
 */
function countSpaced(text: string, encoding: EncodingName): Spaced {
  if (!text) return { alone: 0, spaced: countText(" ", encoding).tokens };
  const s = ` ${text}`;
  const full = textPieces(s, encoding);
  const spaced = full.before[full.before.length - 1];
  const isStart = new Uint8Array(s.length + 1);
  for (const p of full.starts) isStart[p] = 1;
  const head = textPieces(s, encoding, 1, s.length, isStart);
  let alone = head.before[head.before.length - 1];
  if (head.stoppedAt >= 0) alone += spaced - full.before[full.starts.indexOf(head.stoppedAt)];
  return { alone, spaced };
}
