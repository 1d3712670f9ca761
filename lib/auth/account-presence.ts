import type { PrismaClient } from "../generated/prisma/client";

// Whether any account exists: the open mode's question, asked on every request. Its own module
// because both sides of it need it: the access check reads it, better-auth's user hook
// (create-auth.ts) ends the open mode the moment the first account is made.

const accountsSeen = new WeakMap<PrismaClient, true>();

/** Once an account exists the open mode is over for good (accounts are never all deleted). */
export async function anyAccountExists(prisma: PrismaClient): Promise<boolean> {
  if (accountsSeen.has(prisma)) return true;
  const one = await prisma.user.findFirst({ select: { id: true } });
  if (one) accountsSeen.set(prisma, true);
  return !!one;
}

/** How long the server's open-mode check keeps "no account yet" on a database this process alone writes. */
export const NO_ACCOUNT_RECHECK_MS = 1000;
const noAccountUntil = new WeakMap<PrismaClient, number>();

/**
 * Whether no account exists, for the open-mode check every request makes (a read of users
 * cost ~5 ms of CPU, a quarter of a small request). On a database this process alone writes,
 * "none" is kept for a while (NO_ACCOUNT_RECHECK_MS); every account is created through better-auth in
 * this process, whose hook (accountCreated) ends the open mode at once. Elsewhere (PostgreSQL,
 * which other processes may write) it is read on every request. Never used to decide whether
 * a first admin may still be created (anyAccountExists reads).
 */
export async function noAccountYet(prisma: PrismaClient, keep: number): Promise<boolean> {
  if (accountsSeen.has(prisma)) return false;
  if (keep > 0) {
    const until = noAccountUntil.get(prisma);
    if (until !== undefined && performance.now() < until) return true;
  }
  const none = !(await anyAccountExists(prisma));
  if (none && keep > 0) noAccountUntil.set(prisma, performance.now() + keep);
  return none;
}

/** An account was created through this process (better-auth's user hook): the open mode ends now. */
export function accountCreated(prisma: PrismaClient): void {
  accountsSeen.set(prisma, true);
  noAccountUntil.delete(prisma);
}
