import type { PrismaClient } from "../generated/prisma/client";
import { anyAccountExists, DEFAULT_PROJECT_ID, PROJECT_COOKIE } from "./access";
import type { Auth } from "./create-auth";
import { readOidcConfig } from "./oidc-config";
import { authDisabled } from "./open-mode";
import { listAllProjects, listMyProjects, type ProjectSummary } from "./projects";
import { grantsForRole, SCOPES, type Env, type Grant } from "./roles";

// The browser's view of access: which mode the server is in, who is signed in, which
// project is chosen and what they may do there (to disable controls they cannot use).

export type AuthState = {
  mode: "open" | "off" | "signed-in" | "signed-out";
  user: { email: string; name: string } | null;
  project: ProjectSummary | null;
  projects: ProjectSummary[];
  scopes: Grant[];
  needs_bootstrap_key: boolean;
  sso: { name: string } | null;
};

function chosenProject(req: Request): string | null {
  const m = new RegExp(`(?:^|;\\s*)${PROJECT_COOKIE}=([^;]+)`).exec(req.headers.get("cookie") ?? "");
  return m ? decodeURIComponent(m[1]) : null;
}

export async function readAuthState(deps: { auth: Auth; prisma: PrismaClient }, req: Request, env: Env = process.env): Promise<AuthState> {
  const oidc = readOidcConfig(env);
  const base = { needs_bootstrap_key: !!env.MEMSCOPE_API_KEY?.trim(), sso: oidc ? { name: oidc.name } : null };
  const session = await deps.auth.api.getSession({ headers: req.headers }).catch(() => null);
  if (session) {
    const projects = await listMyProjects(deps.prisma, session.user.id);
    const want = chosenProject(req) ?? session.session.activeOrganizationId;
    const project = projects.find((p) => p.id === want) ?? projects[0] ?? null;
    return {
      ...base,
      mode: "signed-in",
      user: { email: session.user.email, name: session.user.name },
      project,
      projects,
      scopes: project?.role ? grantsForRole(project.role) : [],
    };
  }
  const open = authDisabled(env) || (!base.needs_bootstrap_key && !(await anyAccountExists(deps.prisma)));
  if (open) {
    const projects = await listAllProjects(deps.prisma);
    const want = chosenProject(req) ?? DEFAULT_PROJECT_ID;
    return { ...base, mode: authDisabled(env) ? "off" : "open", user: null, project: projects.find((p) => p.id === want) ?? projects[0] ?? null, projects, scopes: [...SCOPES] };
  }
  return { ...base, mode: "signed-out", user: null, project: null, projects: [], scopes: [] };
}
