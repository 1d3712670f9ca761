import type { Breakdown, Weights } from "./schemas";

// The design doc's score: 0.6 * cosine + 0.2 * time_decay + 0.2 * importance,
// time_decay = exp(-days_since_last_access / 30); never accessed counts as 365 days.

export const DECAY_DAYS = 30;
export const NEVER_ACCESSED_DAYS = 365;
const DAY_MS = 86_400_000;

export function daysSinceAccess(lastAccessedAt: string | Date | null, now: number): number {
  if (!lastAccessedAt) return NEVER_ACCESSED_DAYS;
  return Math.max(0, (now - new Date(lastAccessedAt).getTime()) / DAY_MS);
}

export function timeDecay(days: number): number {
  return Math.exp(-days / DECAY_DAYS);
}

export function scoreMemory(
  input: { cosine: number; importance: number; lastAccessedAt: string | Date | null; matchedBy: Breakdown["matched_by"] },
  weights: Weights,
  now: number,
): Breakdown {
  const days = daysSinceAccess(input.lastAccessedAt, now);
  const decay = timeDecay(days);
  const similarity_term = weights.similarity * input.cosine;
  const recency_term = weights.recency * decay;
  const importance_term = weights.importance * input.importance;
  return {
    cosine: input.cosine,
    time_decay: decay,
    importance: input.importance,
    days_since_access: days,
    similarity_term,
    recency_term,
    importance_term,
    final: similarity_term + recency_term + importance_term,
    matched_by: input.matchedBy,
  };
}
