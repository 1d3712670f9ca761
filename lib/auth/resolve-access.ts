import "server-only";
import { getDb } from "../db/get-db";
import { resolveAccessWith, type Access } from "./access";
import { getAuth } from "./auth";
import { KeyRateLimiter } from "./rate-limit";

export type { Access } from "./access";

const limiter = new KeyRateLimiter();

/**
 * The caller's project, scopes and name, or null when the request carries no usable
 * credentials (answer 401). Throws ForbiddenError for 403 (foreign origin), 404 (a project
 * the caller is not in) and 429 (RateLimitedError: Retry-After).
 */
export async function resolveAccess(req: Request): Promise<Access | null> {
  const [auth, db] = await Promise.all([getAuth(), getDb()]);
  return resolveAccessWith({ auth, prisma: db.prisma, limiter }, req);
}
