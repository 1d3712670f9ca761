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

/**
 * The distinct sentences of several texts, in order of first appearance, joined into
 * one text. Two sentences are the same when their contentKey is (case, spacing and
 * end punctuation aside).
 */
export function joinDistinctSentences(texts: string[], maxChars = 20_000): string {
  const seen = new Set<string>();
  const out: string[] = [];
  let size = 0;
  for (const t of texts) {
    for (const s of splitSentences(t)) {
      const key = contentKey(s);
      if (!key || seen.has(key)) continue;
      seen.add(key);
      const piece = terminate(s);
      if (size + piece.length + 1 > maxChars) return out.join(" ");
      out.push(piece);
      size += piece.length + 1;
    }
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
