import "server-only";
import { getDb } from "../db/get-db";
import { RateLimitedError } from "../errors/domain-errors";
import { isBootstrapKey, NO_ACCOUNT_RECHECK_MS, readBearer, resolveAccessWith, type Access } from "./access";
import { getAuth } from "./auth";
import { clientAddressOf } from "./client-address";
import { FailureLimiter, KeyRateLimiter } from "./rate-limit";

export type { Access } from "./access";

const limiter = new KeyRateLimiter();

/** Wrong bearer tokens per client address: at BEARER_FAILURES a minute, that address waits. */
export const BEARER_FAILURES = 10;
const bearerFailures = new FailureLimiter(BEARER_FAILURES, 60_000);

/**
 * The caller's project, scopes and name, or null when the request carries no usable
 * credentials (answer 401). Throws ForbiddenError for 403 (foreign origin), 404 (a project
 * the caller is not in) and 429 (RateLimitedError: Retry-After; a key over its limit, or an
 * address that sent too many wrong tokens: nobody guesses keys at request speed).
 */
export async function resolveAccess(req: Request): Promise<Access | null> {
  const [auth, db] = await Promise.all([getAuth(), getDb()]);
  // The embedded folder is locked to this process: no other process creates its accounts.
  const deps = { auth, prisma: db.prisma, limiter, noAccountRecheckMs: db.config.kind === "pglite" ? NO_ACCOUNT_RECHECK_MS : 0 };
  if (!req.headers.has("authorization")) return resolveAccessWith(deps, req);
  const address = refuseAddressOverBearerLimit(req);
  const access = await resolveAccessWith(deps, req);
  if (!access) bearerFailures.fail(address);
  return access;
}

/**
 * For POST /api/auth/first-admin: whether the request holds MEMSCOPE_API_KEY as its bearer
 * token. A wrong token counts against the same per-address limit as a wrong key on any other
 * route, and an address over it gets 429 here too, so this route is no side door for guessing
 * the key. False without an Authorization header (nothing to count).
 */
export function holdsBootstrapKey(req: Request): boolean {
  if (!req.headers.has("authorization")) return false;
  const address = refuseAddressOverBearerLimit(req);
  if (isBootstrapKey(readBearer(req) ?? "")) return true;
  bearerFailures.fail(address);
  return false;
}

/** The caller's address; throws 429 while it waits out its wrong tokens. */
function refuseAddressOverBearerLimit(req: Request): string {
  const address = clientAddressOf(req.headers);
  const wait = bearerFailures.retryAfter(address);
  if (wait) throw new RateLimitedError(`Too many wrong API keys from this address; retry in ${wait} s`, wait);
  return address;
}
