import "server-only";
import { UnauthorizedError } from "../errors/domain-errors";
import { resolveAccess as resolveCaller } from "../auth/resolve-access";
import { anyAccountExists, type Access as CallerAccess } from "../auth/access";
import { getDb } from "../db/get-db";
import type { Grant } from "./contract";

// Who is calling, for which project, and what they may do (lib/auth/access.ts decides:
// project API key, signed-in member, MEMSCOPE_API_KEY, or open on this machine before any account).

export type Actor = CallerAccess["actor"];
/** lib/auth's answer with its grants as a set, for withApi's check. */
export type Access = { projectId: string; grants: ReadonlySet<Grant>; actor: Actor };

export async function resolveAccess(req: Request): Promise<Access> {
  const a = await resolveCaller(req);
  if (!a) {
    const accounts = await anyAccountExists((await getDb()).prisma);
    throw new UnauthorizedError(
      accounts || process.env.MEMSCOPE_API_KEY
        ? "Missing or wrong credentials: send Authorization: Bearer <project API key>, or sign in"
        : "This server answers only on this machine until an admin account exists",
    );
  }
  return { projectId: a.projectId, grants: new Set(a.scopes), actor: a.actor };
}
