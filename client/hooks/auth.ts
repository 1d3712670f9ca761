"use client";
// The session: who is signed in, to which project, with what scopes; sign-in and out, the first
// admin, invitation links, a project switch and a password change. These are better-auth's and
// the app's /api/auth endpoints (outside /api/v1's OpenAPI document), reached through `authCall`.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { AuthState } from "@/lib/auth/auth-state";
import type { InvitationLinkView } from "@/lib/auth/invitations";
import { keys } from "../query-keys";
import { authCall } from "../transport";
import { useHydrated } from "../ui/use-hydrated";

export type { AuthState, InvitationLinkView };

/**
 * The session. While the calling component hydrates it reads as not yet known, as on the
 * server: the layout asks for it first, and its answer can arrive before a page's <Suspense>
 * content hydrates (a role-dependent control drawn then is a hydration mismatch, issue 40).
 */
export function useAuthState() {
  const q = useQuery({ queryKey: keys.auth.state, queryFn: () => authCall<AuthState>("GET", "/state"), staleTime: 30_000 });
  return useHydrated() ? q : ({ ...q, data: undefined } as typeof q);
}

/** After sign-in/out or a project switch every cached answer is someone else's: drop them all. */
export function useResetAfterAuthChange() {
  const qc = useQueryClient();
  return () => qc.clear();
}

/**
 * Whether the signed-in member may change data (a viewer may not). True while the state
 * loads, so controls do not flicker; the API refuses a viewer's write (403) either way.
 */
export function useCanWrite(): boolean {
  const { data } = useAuthState();
  return !data || data.scopes.includes("write");
}

/** enabled: false once the link is accepted (it is spent: reading it again answers 404). */
export function useInvitationLink(id: string, enabled = true) {
  return useQuery({ queryKey: keys.auth.invitation(id), queryFn: () => authCall<InvitationLinkView>("GET", `/invitation/${encodeURIComponent(id)}`), enabled });
}

export const PUBLIC_PATHS = ["/sign-in", "/sign-up", "/invite"];
export const isPublicPath = (p: string) => PUBLIC_PATHS.some((x) => p === x || p.startsWith(`${x}/`));

// One-shot calls of the sign-in pages; each caller then drops the cache (useResetAfterAuthChange).
export const authActions = {
  signInWithEmail: (email: string, password: string) => authCall<unknown>("POST", "/sign-in/email", { email, password }),
  /** The identity provider's address to go to. */
  signInWithOidc: (callbackURL: string) => authCall<{ url: string }>("POST", "/sign-in/social", { provider: "oidc", callbackURL }),
  signOut: () => authCall<unknown>("POST", "/sign-out", {}),
  switchProject: (projectId: string) => authCall<unknown>("POST", "/project", { project_id: projectId }),
  /** Accepts a link: a signed-in member joins as is; a newcomer sends a name and password. */
  acceptInvitation: (id: string, account: { name: string; password: string } | null) =>
    authCall<unknown>("POST", `/invitation/${encodeURIComponent(id)}`, account ?? {}),
  /** `bootstrapKey`: MEMSCOPE_API_KEY, when the server asks for it before the first admin exists. */
  createFirstAdmin: (account: { name: string; email: string; password: string }, bootstrapKey?: string) =>
    authCall<unknown>("POST", "/first-admin", account, bootstrapKey ? { authorization: `Bearer ${bootstrapKey}` } : {}),
  changePassword: (currentPassword: string, newPassword: string) =>
    authCall<unknown>("POST", "/change-password", { currentPassword, newPassword, revokeOtherSessions: true }),
};
