import type { Env } from "./roles";
// Per-key request limit in fixed windows, counted in this server process. The limit is
// read from MEMSCOPE_KEY_RATE_LIMIT on every call ("600/60": 600 requests per 60 s;
// "off" turns it off), so changing it needs no new keys.

export type RateLimit = { max: number; windowMs: number } | null;

export function readRateLimit(env: Env = process.env): RateLimit {
  const raw = env.MEMSCOPE_KEY_RATE_LIMIT?.trim() || "600/60";
  if (raw === "off" || raw === "0") return null;
  const m = /^(\d+)\s*\/\s*(\d+)$/.exec(raw);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) {
    throw new Error(`MEMSCOPE_KEY_RATE_LIMIT must look like 600/60 (requests per seconds) or off; got "${raw}"`);
  }
  return { max: Number(m[1]), windowMs: Number(m[2]) * 1000 };
}

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

export class KeyRateLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  take(keyId: string, limit: RateLimit, now = Date.now()): RateDecision {
    if (!limit) return { ok: true };
    let w = this.windows.get(keyId);
    if (!w || now - w.start >= limit.windowMs) {
      if (this.windows.size > 10_000) this.prune(now, limit.windowMs);
      w = { start: now, count: 0 };
      this.windows.set(keyId, w);
    }
    if (w.count >= limit.max) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((w.start + limit.windowMs - now) / 1000)) };
    w.count++;
    return { ok: true };
  }

  private prune(now: number, windowMs: number) {
    for (const [k, w] of this.windows) if (now - w.start >= windowMs) this.windows.delete(k);
  }
}

/**
 * Failed attempts per key (an address, an address and account) in a fixed window that opens
 * at the first failure. At `max` failures the key waits for that window to close; successes
 * are not counted, and `clear` forgets the key (a right password after a typo).
 */
export class FailureLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  /** Seconds the key must wait before its next attempt; 0 when it may try now. */
  retryAfter(key: string, now = Date.now()): number {
    const w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs || w.count < this.max) return 0;
    return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
  }

  fail(key: string, now = Date.now()): void {
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      if (this.windows.size > 10_000) this.prune(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
  }

  clear(key: string): void {
    this.windows.delete(key);
  }

  private prune(now: number) {
    for (const [k, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(k);
  }
}
