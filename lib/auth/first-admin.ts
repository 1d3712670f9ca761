import type { Env } from "./roles";
import type { Database } from "../db/open-database";
import { LOCK_KEYS } from "../db/open-database";
import { ValidationError, conflict } from "../errors/domain-errors";
import { DEFAULT_PROJECT_ID, anyAccountExists } from "./access";
import type { Auth } from "./create-auth";
import { parseEmail } from "./invitations";
import { addMember } from "./project-members";

// The first account becomes owner of project `default`, where all data made before
// accounts lives. Who may call this is the caller's business (open mode on this
// machine, MEMSCOPE_API_KEY, or MEMSCOPE_ADMIN_EMAIL at start).

export const MIN_PASSWORD = 10;

export type NewAccount = { email: unknown; password: unknown; name?: unknown };

export function validateNewAccount(input: NewAccount): { email: string; password: string; name: string } {
  const email = parseEmail(input.email);
  const password = typeof input.password === "string" ? input.password : "";
  if (password.length < MIN_PASSWORD || password.length > 128) {
    throw new ValidationError(`The password needs ${MIN_PASSWORD} to 128 characters`, [{ field: "password", message: `at least ${MIN_PASSWORD} characters` }]);
  }
  const name = typeof input.name === "string" && input.name.trim() ? input.name.trim().slice(0, 100) : email.split("@")[0];
  return { email, password, name };
}

type Deps = { auth: Auth; db: Pick<Database, "prisma" | "withLock"> };

/**
 * Creates the account and returns better-auth's sign-up Response (its Set-Cookie signs the
 * person in). Under a database-wide lock: two requests (or two instances starting with
 * MEMSCOPE_ADMIN_EMAIL) at once make one owner, and the other finds it made.
 */
export async function createFirstAdmin(deps: Deps, input: NewAccount, actorLabel: string): Promise<Response> {
  const v = validateNewAccount(input);
  return deps.db.withLock(LOCK_KEYS.firstAdmin, () => createUnlocked(deps, v, actorLabel));
}

async function createUnlocked({ auth, db }: Deps, v: { email: string; password: string; name: string }, actorLabel: string): Promise<Response> {
  if (await anyAccountExists(db.prisma)) throw conflict("An admin account exists already: sign in instead");
  const res = await auth.api.signUpEmail({ body: v, asResponse: true });
  if (!res.ok) return res;
  const user = await db.prisma.user.findUniqueOrThrow({ where: { email: v.email } });
  await db.prisma.$transaction((tx) => addMember(tx, DEFAULT_PROJECT_ID, user.id, user.email, "owner", actorLabel));
  return res;
}

/** MEMSCOPE_ADMIN_EMAIL / _PASSWORD: the first admin of a server reachable from other machines. */
export async function ensureAdminFromEnv(deps: Deps, env: Env = process.env): Promise<string | null> {
  const email = env.MEMSCOPE_ADMIN_EMAIL?.trim();
  const password = env.MEMSCOPE_ADMIN_PASSWORD;
  if (!email && !password) return null;
  if (!email || !password) throw new Error("Set both MEMSCOPE_ADMIN_EMAIL and MEMSCOPE_ADMIN_PASSWORD (or neither).");
  const v = validateNewAccount({ email, password });
  return deps.db.withLock(LOCK_KEYS.firstAdmin, async () => {
    // The env admin is only ever the first account (another instance may have made it).
    if (await anyAccountExists(deps.db.prisma)) return null;
    const res = await createUnlocked(deps, v, "MEMSCOPE_ADMIN_EMAIL");
    if (!res.ok) throw new Error(`Could not create the admin from MEMSCOPE_ADMIN_EMAIL: ${await res.text()}`);
    return v.email;
  });
}
