import { APIError, createAuthMiddleware, isAPIError } from "better-auth/api";
import { clientAddressOf } from "./client-address";
import { FailureLimiter, KeyRateLimiter } from "./rate-limit";

// Password guessing on POST /api/auth/sign-in/email, limited so that nobody can lock anyone
// else out for long. better-auth's own limit (3 a 10 s per address, or one bucket for every
// client when it finds no address) is turned off for this path (create-auth.ts): with it, three
// wrong passwords for a made-up email kept the admin out. Instead, per client address (the
// socket's, lib/auth/client-address.ts):
// - any accounts: ADDRESS_MAX attempts a minute (one machine trying many accounts);
// - one account: PAIR_MAX failures per PAIR_WINDOW, then that address waits for the window
//   to close (a right password clears it);
// - per account, over every address: after ACCOUNT_FREE failures in a row the account backs
//   off, 1 s doubling up to ACCOUNT_BACKOFF_CAP after each further failure. That slows a
//   guesser with many addresses, yet a stranger holds a known account for seconds at most,
//   and not at all on an address that signed in to it before (known for KNOWN_FOR).

export const ADDRESS_MAX = 30;
export const PAIR_MAX = 10;
export const PAIR_WINDOW_MS = 15 * 60_000;
export const ACCOUNT_FREE = 10;
export const ACCOUNT_BACKOFF_CAP_MS = 30_000;
const KNOWN_FOR_MS = 30 * 24 * 3600_000;

type AccountState = { failures: number; last: number; known: Map<string, number> };

export type ThrottleVerdict = { ok: true } | { ok: false; retryAfterSeconds: number };

export class SignInThrottle {
  private perAddress = new KeyRateLimiter();
  private perPair = new FailureLimiter(PAIR_MAX, PAIR_WINDOW_MS);
  private accounts = new Map<string, AccountState>();

  check(address: string, email: string, now = Date.now()): ThrottleVerdict {
    const pair = this.perPair.retryAfter(pairKey(address, email), now);
    if (pair) return { ok: false, retryAfterSeconds: pair };
    const backoff = this.backoffLeft(address, email, now);
    if (backoff) return { ok: false, retryAfterSeconds: backoff };
    const any = this.perAddress.take(address, { max: ADDRESS_MAX, windowMs: 60_000 }, now);
    return any.ok ? { ok: true } : any;
  }

  failed(address: string, email: string, now = Date.now()): void {
    this.perPair.fail(pairKey(address, email), now);
    const a = this.account(email);
    a.failures++;
    a.last = now;
  }

  succeeded(address: string, email: string, now = Date.now()): void {
    this.perPair.clear(pairKey(address, email));
    const a = this.account(email);
    a.failures = 0;
    a.known.set(address, now);
  }

  private backoffLeft(address: string, email: string, now: number): number {
    const a = this.accounts.get(email);
    if (!a || a.failures < ACCOUNT_FREE) return 0;
    const seen = a.known.get(address);
    if (seen !== undefined && now - seen < KNOWN_FOR_MS) return 0;
    const wait = Math.min(1000 * 2 ** (a.failures - ACCOUNT_FREE), ACCOUNT_BACKOFF_CAP_MS);
    const left = a.last + wait - now;
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  private account(email: string): AccountState {
    let a = this.accounts.get(email);
    if (!a) {
      // Made-up emails each get an entry: drop the quiet ones now and then.
      if (this.accounts.size > 10_000) {
        const now = Date.now();
        for (const [k, v] of this.accounts) if (v.known.size === 0 && now - v.last > PAIR_WINDOW_MS) this.accounts.delete(k);
      }
      a = { failures: 0, last: 0, known: new Map() };
      this.accounts.set(email, a);
    }
    return a;
  }
}

const pairKey = (address: string, email: string) => `${address}\n${email}`;

const SIGN_IN_PATH = "/sign-in/email";

function emailOf(body: unknown): string {
  const e = (body as { email?: unknown } | undefined)?.email;
  return typeof e === "string" ? e.trim().toLowerCase() : "";
}

/**
 * better-auth hooks around the email sign-in. Only HTTP requests are counted: a server-side
 * call (the first admin, an invitation) has no client to limit.
 */
export function signInThrottleHooks(throttle = new SignInThrottle()) {
  return {
    before: createAuthMiddleware(async (ctx) => {
      if (ctx.path !== SIGN_IN_PATH || !ctx.request) return;
      const verdict = throttle.check(clientAddressOf(ctx.request.headers), emailOf(ctx.body));
      if (!verdict.ok) {
        throw new APIError(
          "TOO_MANY_REQUESTS",
          { message: `Too many sign-in attempts: try again in ${verdict.retryAfterSeconds} s`, code: "TOO_MANY_SIGN_IN_ATTEMPTS" },
          { "retry-after": String(verdict.retryAfterSeconds) },
        );
      }
    }),
    after: createAuthMiddleware(async (ctx) => {
      if (ctx.path !== SIGN_IN_PATH || !ctx.request) return;
      const address = clientAddressOf(ctx.request.headers);
      const email = emailOf(ctx.body);
      const returned = ctx.context.returned;
      if (isAPIError(returned)) {
        if (returned.statusCode === 401) throttle.failed(address, email);
      } else if (returned !== undefined) {
        throttle.succeeded(address, email);
      }
    }),
  };
}
