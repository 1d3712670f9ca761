import type { SqlRunner } from "./migrations";

// The one retry rule for contention (issue 43). A serialization failure (SQLSTATE 40001) or a
// deadlock (40P01) means PostgreSQL rolled the whole transaction back and the same work may
// well succeed a moment later: the runner retries it, a bounded number of times, after a
// randomized (jittered) back-off, so two victims do not collide again in step. Everything
// that reaches the database through the SqlRunner of openDatabase comes through here: every
// route, job and script. When the last attempt fails too, a ContentionExhausted, which withApi
// answers as a ContentionError: 503 with Retry-After (lib/api/error-table.ts), never 500.
// (lib/db is the ground floor: it throws its own error, and lib/api maps it.)
//
// A transaction's fn may therefore run more than once: it must not have effects outside the
// database that cannot repeat (they would happen once per attempt). Inside a transaction
// nothing is retried (the transaction is aborted: only a new one can try again), so a retry
// always restarts the outermost unit: one statement in autocommit, or a whole transaction.

export const CONTENTION_SQLSTATES = new Set(["40001", "40P01"]);
/** Attempts in all (the first and the retries). */
export const CONTENTION_ATTEMPTS = 5;
/** The back-off before retry n (1-based) is random in [0, min(CAP, BASE * 2^n)) ms. */
const BACKOFF_BASE_MS = 10;
const BACKOFF_CAP_MS = 250;

let retries = 0;
/** Retries taken by this process so far (tests assert none were needed; logs say each). */
export const contentionRetries = (): number => retries;

/** A deadlock or serialization failure, from the pg driver, PGlite or Prisma (P2034), possibly wrapped. */
export function isContention(e: unknown, depth = 0): boolean {
  if (!e || typeof e !== "object" || depth > 4) return false;
  const x = e as { code?: unknown; cause?: unknown; meta?: { code?: unknown } };
  if (typeof x.code === "string" && (CONTENTION_SQLSTATES.has(x.code) || x.code === "P2034")) return true;
  if (typeof x.meta?.code === "string" && CONTENTION_SQLSTATES.has(x.meta.code)) return true;
  return isContention(x.cause, depth + 1);
}

/** Contention on every attempt: the last attempt's error is its cause (isContention holds for it). */
export class ContentionExhausted extends Error {
  constructor(
    readonly attempts: number,
    readonly cause: unknown,
  ) {
    super(`The database stayed busy (deadlock or serialization failure) through ${attempts} attempts`);
    this.name = "ContentionExhausted";
  }
}

type RetryOptions = { attempts?: number; sleep?: (ms: number) => Promise<void>; label?: string };

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** fn, run again on contention up to `attempts` times in all; then a ContentionExhausted. */
export async function retryOnContention<T>(fn: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? CONTENTION_ATTEMPTS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!isContention(e)) throw e;
      const code = (e as { code?: string }).code;
      if (attempt >= attempts) throw new ContentionExhausted(attempts, e);
      retries++;
      const ms = Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
      console.warn(`[db] ${code === "40001" ? "serialization failure" : "deadlock"} (${code}) in ${opts.label ?? "a statement"}: attempt ${attempt} of ${attempts}, again in ${ms.toFixed(0)} ms`);
      await (opts.sleep ?? defaultSleep)(ms);
    }
  }
}

/**
 * The runner with the retry rule on its outermost units: each statement run outside a
 * transaction, and each transaction as a whole. The runner a transaction hands to its fn is
 * the inner one, without retries (its statements cannot be retried alone).
 */
export function withContentionRetry(sql: SqlRunner): SqlRunner {
  return {
    exec: (text) => retryOnContention(() => sql.exec(text)),
    query: <T>(text: string, params?: unknown[]) => retryOnContention(() => sql.query<T>(text, params)),
    transaction: <T>(fn: (tx: SqlRunner) => Promise<T>) => retryOnContention(() => sql.transaction(fn), { label: "a transaction" }),
  };
}
