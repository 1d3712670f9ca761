import { authDisabled, isLocalHostHeader } from "./open-mode";
import type { Env } from "./roles";

// What the server may do at start, given whether an account exists yet. Before the first
// account nobody has to sign in, so the server must not be reachable from other machines.

export type StartVerdict = { refuse: string | null; warnings: string[]; banner: boolean };

export function isLocalListen(host: string | undefined): boolean {
  return !host || isLocalHostHeader(host) || host === "::1";
}

/** A bootstrap key anyone could guess is refused at start: it opens every project's data. */
export const MIN_BOOTSTRAP_KEY_LENGTH = 32;

/** Why MEMSCOPE_API_KEY cannot be used, or null when it is unset or long enough. */
export function bootstrapKeyProblem(env: Env): string | null {
  const key = env.MEMSCOPE_API_KEY?.trim();
  if (!key || key.length >= MIN_BOOTSTRAP_KEY_LENGTH) return null;
  return (
    `MEMSCOPE_API_KEY is ${key.length} characters long; the bootstrap key needs at least ${MIN_BOOTSTRAP_KEY_LENGTH}.\n` +
    "Generate one with: openssl rand -hex 32"
  );
}

export function startRules(opts: { accountExists: boolean; env: Env }): StartVerdict {
  const { env } = opts;
  const host = env.HOST?.trim();
  const warnings: string[] = [];
  const keyProblem = bootstrapKeyProblem(env);
  if (keyProblem) return { refuse: keyProblem, warnings, banner: false };
  if (authDisabled(env)) {
    warnings.push(
      `MEMSCOPE_AUTH=off: there is no sign-in and every API call is allowed${isLocalListen(host) ? "" : ` from every machine that reaches ${host}`}. Remove it to turn accounts on.`,
    );
    return { refuse: null, warnings, banner: false };
  }
  const gated = opts.accountExists || !!env.MEMSCOPE_API_KEY?.trim() || !!env.MEMSCOPE_ADMIN_EMAIL?.trim();
  if (!gated && !isLocalListen(host)) {
    return {
      refuse:
        `HOST=${host} would open Memscope to other machines, but no admin account exists yet, so nobody would need to sign in.\n` +
        "Do one of these:\n" +
        "  - set MEMSCOPE_ADMIN_EMAIL and MEMSCOPE_ADMIN_PASSWORD: the admin is created at start;\n" +
        "  - set MEMSCOPE_API_KEY: whoever holds it creates the admin (POST /api/auth/first-admin or the sign-up page);\n" +
        "  - start without HOST (this machine only) and create the admin at http://127.0.0.1:<port>/sign-up;\n" +
        "  - or set MEMSCOPE_AUTH=off to run without any sign-in (not for shared servers).",
      warnings,
      banner: false,
    };
  }
  return { refuse: null, warnings, banner: !gated };
}
