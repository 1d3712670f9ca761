import { dbSingleton } from "../db/db-singleton";
import { anyAccountExists } from "./access";
import { authSingleton } from "./auth-singleton";
import { ensureAdminFromEnv } from "./first-admin";
import { bootstrapKeyProblem, startRules } from "./start-rules";

// Called once at server start (instrumentation.ts): creates the env admin, refuses to
// serve other machines while nobody would have to sign in, and warns about MEMSCOPE_AUTH=off.
export async function applyStartRules(env = process.env): Promise<void> {
  // Before anything is created: a start refused for its key leaves the database as it was.
  const keyProblem = bootstrapKeyProblem(env);
  if (keyProblem) {
    console.error(`[memscope] refusing to start.\n${keyProblem}`);
    process.exit(1);
  }
  const db = await dbSingleton();
  const auth = await authSingleton();
  try {
    const made = await ensureAdminFromEnv({ auth, db }, env);
    if (made) console.log(`[memscope] admin account ${made} created from MEMSCOPE_ADMIN_EMAIL (owner of project default)`);
  } catch (e) {
    console.error(`[memscope] ${(e as Error).message}`);
    process.exit(1);
  }
  const verdict = startRules({ accountExists: await anyAccountExists(db.prisma), env });
  for (const w of verdict.warnings) console.warn(`[memscope] WARNING: ${w}`);
  if (verdict.refuse) {
    console.error(`[memscope] refusing to start.\n${verdict.refuse}`);
    process.exit(1);
  }
  if (verdict.banner) console.log("[memscope] open to this machine only (no accounts yet): create an admin account at /sign-up to share it");
}
