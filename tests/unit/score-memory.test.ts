import { describe, expect, it } from "vitest";
import { daysSinceAccess, DECAY_DAYS, NEVER_ACCESSED_DAYS, scoreMemory, timeDecay } from "../../lib/memories/score-memory";
import { DEFAULT_WEIGHTS } from "../../lib/memories/schemas";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

describe("daysSinceAccess", () => {
  it("never accessed counts as 365 days", () => {
    expect(NEVER_ACCESSED_DAYS).toBe(365);
    expect(daysSinceAccess(null, NOW)).toBe(365);
  });
  it("is fractional days from an ISO string or a Date", () => {
    expect(daysSinceAccess(new Date(NOW - 3 * DAY).toISOString(), NOW)).toBe(3);
    expect(daysSinceAccess(new Date(NOW - 36 * 3_600_000), NOW)).toBe(1.5);
    expect(daysSinceAccess(new Date(NOW), NOW)).toBe(0);
  });
  it("a timestamp in the future (clock skew) counts as 0 days", () => {
    expect(daysSinceAccess(new Date(NOW + 5 * DAY), NOW)).toBe(0);
  });
});

describe("timeDecay = exp(-days / 30)", () => {
  it("exact values", () => {
    expect(DECAY_DAYS).toBe(30);
    expect(timeDecay(0)).toBe(1);
    expect(timeDecay(30)).toBe(Math.exp(-1));
    expect(timeDecay(30)).toBeCloseTo(0.36787944117144233, 15);
    expect(timeDecay(15)).toBeCloseTo(0.6065306597126334, 15);
    expect(timeDecay(365)).toBeCloseTo(5.200963470939485e-6, 15);
  });
});

describe("scoreMemory", () => {
  it("default weights 0.6 / 0.2 / 0.2", () => {
    expect(DEFAULT_WEIGHTS).toEqual({ similarity: 0.6, recency: 0.2, importance: 0.2 });
  });

  it("accessed 30 days ago: 0.6*0.8 + 0.2*e^-1 + 0.2*0.5", () => {
    const b = scoreMemory(
      { cosine: 0.8, importance: 0.5, lastAccessedAt: new Date(NOW - 30 * DAY).toISOString(), matchedBy: ["vector", "text"] },
      DEFAULT_WEIGHTS,
      NOW,
    );
    expect(b.cosine).toBe(0.8);
    expect(b.importance).toBe(0.5);
    expect(b.days_since_access).toBe(30);
    expect(b.time_decay).toBe(Math.exp(-1));
    expect(b.similarity_term).toBeCloseTo(0.48, 15);
    expect(b.recency_term).toBeCloseTo(0.07357588823428847, 15);
    expect(b.importance_term).toBeCloseTo(0.1, 15);
    expect(b.final).toBeCloseTo(0.6535758882342885, 15);
    expect(b.final).toBe(b.similarity_term + b.recency_term + b.importance_term);
    expect(b.matched_by).toEqual(["vector", "text"]);
  });

  it("never accessed: recency contributes 0.2 * exp(-365/30)", () => {
    const b = scoreMemory({ cosine: 0.9, importance: 1, lastAccessedAt: null, matchedBy: ["vector"] }, DEFAULT_WEIGHTS, NOW);
    expect(b.days_since_access).toBe(365);
    expect(b.time_decay).toBeCloseTo(5.200963470939485e-6, 15);
    expect(b.recency_term).toBeCloseTo(1.040192694187897e-6, 15);
    expect(b.final).toBeCloseTo(0.54 + 1.040192694187897e-6 + 0.2, 12);
  });

  it("just accessed, text-only match (cosine 0): recency and importance only", () => {
    const b = scoreMemory({ cosine: 0, importance: 0.25, lastAccessedAt: new Date(NOW), matchedBy: ["text"] }, DEFAULT_WEIGHTS, NOW);
    expect(b.time_decay).toBe(1);
    expect(b.final).toBeCloseTo(0.2 + 0.05, 15);
  });

  it("custom weights are applied as given (not renormalized)", () => {
    const w = { similarity: 1, recency: 0, importance: 2 };
    const b = scoreMemory({ cosine: 0.5, importance: 0.4, lastAccessedAt: null, matchedBy: ["vector"] }, w, NOW);
    expect(b.similarity_term).toBe(0.5);
    expect(b.recency_term).toBe(0);
    expect(b.importance_term).toBe(0.8);
    expect(b.final).toBeCloseTo(1.3, 15);
  });

  it("a recent, important memory can outrank a slightly more similar stale one", () => {
    const stale = scoreMemory({ cosine: 0.8, importance: 0.2, lastAccessedAt: null, matchedBy: ["vector"] }, DEFAULT_WEIGHTS, NOW);
    const fresh = scoreMemory({ cosine: 0.7, importance: 0.9, lastAccessedAt: new Date(NOW - DAY), matchedBy: ["vector"] }, DEFAULT_WEIGHTS, NOW);
    expect(stale.final).toBeCloseTo(0.52, 5);
    expect(fresh.final).toBeCloseTo(0.42 + 0.2 * Math.exp(-1 / 30) + 0.18, 15);
    expect(fresh.final).toBeGreaterThan(stale.final);
  });
});
