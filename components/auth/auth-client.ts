"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { AuthState } from "@/lib/auth/auth-state";

// The browser's calls to /api/auth: state, sign-in/out, first admin, invitations, project switch.

export type { AuthState };

export class AuthCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly field?: string,
  ) {
    super(message);
  }
}

export async function authCall<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`/api/auth${path}`, {
    method,
    headers: body === undefined ? undefined : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    /* not JSON */
  }
  if (!res.ok) {
    // Our routes answer {error: {message, details}}; better-auth's own {message, code}.
    const err = json.error as { message?: string; details?: { field?: string }[] } | undefined;
    const message = err?.message ?? (json.message as string | undefined) ?? `${res.status} ${res.statusText}`;
    throw new AuthCallError(message, res.status, err?.details?.[0]?.field);
  }
  return json as T;
}

export const AUTH_STATE_KEY = ["auth-state"];

export function useAuthState() {
  return useQuery({ queryKey: AUTH_STATE_KEY, queryFn: () => authCall<AuthState>("GET", "/state"), staleTime: 30_000 });
}

/** After sign-in/out or a project switch every cached answer is someone else's: drop them all. */
export function useResetAfterAuthChange() {
  const qc = useQueryClient();
  return () => qc.clear();
}

export const PUBLIC_PATHS = ["/sign-in", "/sign-up", "/invite"];
export const isPublicPath = (p: string) => PUBLIC_PATHS.some((x) => p === x || p.startsWith(`${x}/`));

/**
 * Whether the signed-in member may change data (a viewer may not). True while the state
 * loads, so controls do not flicker; the API refuses a viewer's write (403) either way.
 */
export function useCanWrite(): boolean {
  const { data } = useAuthState();
  return !data || data.scopes.includes("write");
}
