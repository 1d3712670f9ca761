import { createHash } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client";

// A project API key checked on each request that carries one. better-auth's verifyApiKey
// reads the key's row and then writes it twice (last request, updated at) on every call: an
// exporter posting several batches a second made three statements of every request, two
// of them writes to one row that every request of that key queued on. Here: the one read,
// every time (a revoked key's row is gone, so the very next request is refused: nothing is
// cached), and the last-use stamp written at most once per LAST_USED_STEP_MS per key, by a
// guarded UPDATE so that concurrent requests write it once.

/** How stale a key's last-use time (the key page's "last used") may get while the key is in use. */
export const LAST_USED_STEP_MS = 60_000;

export type VerifiedKey = {
  id: string;
  name: string | null;
  start: string | null;
  referenceId: string;
  permissions: string | null;
};

/** The stored form of a key: as better-auth's API-key plugin hashes it (SHA-256, base64url without padding). */
export function hashProjectKey(key: string): string {
  return createHash("sha256").update(key).digest("base64url");
}

/** The key's row if the key is valid now (exists, enabled, not expired, uses left), else null. */
export async function verifyProjectKey(prisma: PrismaClient, key: string, now = new Date()): Promise<VerifiedKey | null> {
  const row = await prisma.apikey.findFirst({
    where: { key: hashProjectKey(key) },
    select: { id: true, name: true, start: true, referenceId: true, permissions: true, enabled: true, expiresAt: true, remaining: true, lastRequest: true },
  });
  if (!row || row.enabled === false) return null;
  if (row.expiresAt && now.getTime() > row.expiresAt.getTime()) return null;
  // Memscope makes keys without a usage quota; one given a quota elsewhere is refused once spent.
  if (row.remaining !== null && row.remaining <= 0) return null;
  if (!row.lastRequest || now.getTime() - row.lastRequest.getTime() >= LAST_USED_STEP_MS) {
    const staleBefore = new Date(now.getTime() - LAST_USED_STEP_MS);
    await prisma.apikey.updateMany({
      where: { id: row.id, OR: [{ lastRequest: null }, { lastRequest: { lte: staleBefore } }] },
      data: { lastRequest: now },
    });
  }
  return { id: row.id, name: row.name, start: row.start, referenceId: row.referenceId, permissions: row.permissions };
}
