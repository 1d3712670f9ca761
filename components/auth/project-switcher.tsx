"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { authActions, useAuthState, useResetAfterAuthChange } from "@/client/hooks/auth";

/** Top-bar: the current project (switchable), the signed-in account, settings and sign-out. */
export function ProjectSwitcher() {
  const { data } = useAuthState();
  const router = useRouter();
  const reset = useResetAfterAuthChange();
  const [error, setError] = useState<string | null>(null);
  if (!data || data.mode === "signed-out") return null;

  async function switchTo(projectId: string) {
    setError(null);
    try {
      await authActions.switchProject(projectId);
      reset();
      router.refresh();
    } catch (e) {
      setError((e as Error).message);
    }
  }

  async function signOut() {
    await authActions.signOut();
    reset();
    router.replace("/sign-in");
  }

  return (
    <div className="ml-auto flex min-w-0 shrink-0 items-center gap-1 text-sm sm:gap-2">
      {data.projects.length > 0 && (
        <label className="flex items-center gap-1.5">
          <span className="sr-only sm:not-sr-only sm:text-xs sm:text-zinc-500">Project</span>
          <select
            aria-label="Project"
            data-testid="project-switcher"
            value={data.project?.id ?? ""}
            onChange={(e) => switchTo(e.target.value)}
            className="h-8 max-w-28 rounded-md sm:max-w-40 border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
          >
            {data.projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
                {p.role ? ` (${p.role})` : ""}
              </option>
            ))}
          </select>
        </label>
      )}
      {error && (
        <span role="alert" className="text-xs text-red-700">
          {error}
        </span>
      )}
      <Link href="/settings" className="hidden rounded-md px-2 py-1.5 whitespace-nowrap text-zinc-600 sm:inline-block hover:bg-zinc-100 dark:text-zinc-400 dark:hover:bg-zinc-900">
        Settings
      </Link>
      {data.user && (
        <>
          <span className="hidden max-w-48 truncate text-xs text-zinc-500 2xl:inline" title={data.user.email}>
            {data.user.email}
          </span>
          <button type="button" onClick={signOut} className="rounded-md px-2 py-1.5 whitespace-nowrap text-zinc-600 hover:bg-zinc-100 dark:text-zinc-400 dark:hover:bg-zinc-900">
            Sign out
          </button>
        </>
      )}
    </div>
  );
}
