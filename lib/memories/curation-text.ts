import { contentKey } from "./normalize-content";

// Pure text helpers for curation: sentence splitting and the local "join the distinct
// sentences" summary used when no chat model is configured.

/** Sentences of a text (split after . ! ? 。！？ or at line breaks), trimmed, non-empty. */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？])\s+|\n+/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function terminate(s: string): string {
  return /[.!?。！？]$/u.test(s) ? s : `${s}.`;
}

const ARTICLES = new Set(["a", "an", "the"]);
const NEGATIONS = /^(not|no|never|none|nor|nothing|cannot|dont|doesnt|didnt|isnt|arent|wasnt|wont|cant|n't)$/;

/** A sentence's words for comparison: lower case, no articles, a plural's final "s" dropped. */
function wordsOf(sentence: string): Set<string> {
  const words = sentence
    .toLowerCase()
    .replace(/['’]/g, "")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w && !ARTICLES.has(w))
    .map((w) => (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w));
  return new Set(words);
}

/** Every word of `a` is in `b`, and what `b` adds negates nothing ("eats meat" vs "does not eat meat" differ). */
function saysNoMoreThan(a: Set<string>, b: Set<string>): boolean {
  for (const w of a) if (!b.has(w)) return false;
  for (const w of b) if (!a.has(w) && NEGATIONS.test(w)) return false;
  return true;
}

/**
 * The distinct sentences of several texts, in order of first appearance, joined into
 * one text. A sentence whose words another one already says (articles and plurals aside:
 * "Prefers a window seat on flights" beside "Prefers window seats on flights") is left
 * out; one that says more than a kept one takes its place. Negations never count as
 * saying the same.
 */
export function joinDistinctSentences(texts: string[], maxChars = 20_000): string {
  const kept: { text: string; words: Set<string> }[] = [];
  for (const t of texts) {
    for (const s of splitSentences(t)) {
      if (!contentKey(s)) continue;
      const words = wordsOf(s);
      if (kept.some((k) => saysNoMoreThan(words, k.words))) continue;
      const covered = kept.findIndex((k) => saysNoMoreThan(k.words, words));
      const piece = { text: terminate(s), words };
      if (covered >= 0) {
        kept[covered] = piece;
        // A longer sentence may cover several kept ones: the rest go.
        for (let i = kept.length - 1; i > covered; i--) if (saysNoMoreThan(kept[i].words, words)) kept.splice(i, 1);
      } else kept.push(piece);
    }
  }
  const out: string[] = [];
  let size = 0;
  for (const k of kept) {
    if (size + k.text.length + 1 > maxChars) break;
    out.push(k.text);
    size += k.text.length + 1;
  }
  return out.join(" ");
}

/** The most common value; ties go to the one seen first. */
export function mostCommon<T>(values: T[]): T {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = values[0];
  let bestCount = 0;
  for (const v of values) {
    const c = counts.get(v)!;
    if (c > bestCount) {
      best = v;
      bestCount = c;
    }
  }
  return best;
}

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
