import type { PrismaClient } from "../generated/prisma/client";
import { ValidationError, notFound } from "../errors/domain-errors";
import { KEY_PERMISSION, keyScopes } from "./access";
import { recordAudit } from "./audit";
import type { Auth } from "./create-auth";
import { isGrant, SCOPES, type Grant } from "./roles";

// Project API keys: made by an admin, shown once, stored hashed by better-auth's
// API-key plugin, revoked by deleting the row (verify-project-key.ts reads the row every time).

export type KeyInput = { name: string; scopes: string[]; expiresInDays?: number | null };
export type Actor = { userId: string; label: string };

export type KeySummary = {
  id: string;
  name: string;
  start: string | null;
  scopes: Grant[];
  createdBy: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
};

export function validateKeyInput(input: KeyInput): { name: string; scopes: Grant[]; expiresInDays: number | null } {
  const name = typeof input.name === "string" ? input.name.trim() : "";
  if (!name || name.length > 80) {
    throw new ValidationError("A key needs a name of 1 to 80 characters", [{ field: "name", message: "1 to 80 characters" }]);
  }
  const scopes = Array.isArray(input.scopes) ? input.scopes : [];
  const bad = scopes.filter((s) => !isGrant(s));
  if (!scopes.length || bad.length) {
    throw new ValidationError(`Scopes must be some of ${SCOPES.join(", ")}`, [
      { field: "scopes", message: bad.length ? `unknown scope ${bad.map(String).join(", ")}` : "at least one scope" },
    ]);
  }
  const days = input.expiresInDays ?? null;
  if (days !== null && (!Number.isInteger(days) || days < 1 || days > 3650)) {
    throw new ValidationError("Expiry is a whole number of days from 1 to 3650", [{ field: "expires_in_days", message: "1 to 3650" }]);
  }
  return { name, scopes: SCOPES.filter((s) => scopes.includes(s)), expiresInDays: days };
}

/** Returns the key itself once; only its hash and first characters are stored. */
export async function createProjectKey(
  deps: { auth: Auth; prisma: PrismaClient },
  projectId: string,
  input: KeyInput,
  actor: Actor,
): Promise<KeySummary & { key: string }> {
  const v = validateKeyInput(input);
  const created = await deps.auth.api.createApiKey({
    body: {
      organizationId: projectId,
      userId: actor.userId,
      name: v.name,
      expiresIn: v.expiresInDays ? v.expiresInDays * 86_400 : null,
      permissions: { [KEY_PERMISSION]: v.scopes },
      metadata: { createdBy: actor.label },
    },
  });
  await recordAudit(deps.prisma, { projectId, action: "key.created", actor: actor.label, target: v.name, details: { keyId: created.id, start: created.start, scopes: v.scopes } });
  return { ...summarize({ ...created, permissions: JSON.stringify(created.permissions), metadata: JSON.stringify({ createdBy: actor.label }) }), key: created.key };
}

type KeyRow = {
  id: string;
  name: string | null;
  start: string | null;
  permissions: string | null;
  metadata: unknown;
  createdAt: Date;
  lastRequest: Date | null;
  expiresAt: Date | null;
};

function summarize(k: KeyRow): KeySummary {
  const meta = typeof k.metadata === "string" ? safeParse(k.metadata) : k.metadata;
  return {
    id: k.id,
    name: k.name ?? "",
    start: k.start,
    scopes: keyScopes(k.permissions),
    createdBy: (meta as { createdBy?: string } | null)?.createdBy ?? null,
    createdAt: new Date(k.createdAt).toISOString(),
    lastUsedAt: k.lastRequest ? new Date(k.lastRequest).toISOString() : null,
    expiresAt: k.expiresAt ? new Date(k.expiresAt).toISOString() : null,
  };
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}

export async function listProjectKeys(prisma: PrismaClient, projectId: string): Promise<KeySummary[]> {
  const rows = await prisma.apikey.findMany({ where: { referenceId: projectId }, orderBy: { createdAt: "desc" }, take: 500 });
  return rows.map(summarize);
}

export async function revokeProjectKey(prisma: PrismaClient, projectId: string, keyId: string, actor: Actor): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const key = await tx.apikey.findFirst({ where: { id: keyId, referenceId: projectId } });
    if (!key) throw notFound("API key", keyId);
    await tx.apikey.delete({ where: { id: keyId } });
    await recordAudit(tx, { projectId, action: "key.revoked", actor: actor.label, target: key.name ?? key.start ?? keyId, details: { keyId, start: key.start } });
  });
}
