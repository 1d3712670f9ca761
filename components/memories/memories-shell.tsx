"use client";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, type ReactNode } from "react";
import { useMemoryUsers } from "@/client/hooks/memories";
import { formatInt } from "@/client/ui/format";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorBox } from "@/components/ui/states";

const SUBNAV = [
  { href: "/memories", label: "Table" },
  { href: "/memories/review", label: "Review" },
  { href: "/memories/playground", label: "Playground" },
  { href: "/memories/markdown", label: "memory.md" },
  { href: "/memories/dashboard", label: "Dashboard" },
];

/** The selected user lives in `?user=`; without one the user with the most memories is picked. */
export function useSelectedUser(): { user: string; setUser: (u: string) => void; ready: boolean } {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const users = useMemoryUsers();
  const fromUrl = params.get("user") ?? "";
  const fallback = users.data?.length ? [...users.data].sort((a, b) => b.total - a.total)[0].user_id : "";
  const user = fromUrl || fallback;
  useEffect(() => {
    if (!fromUrl && fallback) router.replace(`${pathname}?user=${encodeURIComponent(fallback)}`, { scroll: false });
  }, [fromUrl, fallback, pathname, router]);
  return {
    user,
    ready: !!user || users.isFetched,
    setUser: (u: string) => router.push(`${pathname}?user=${encodeURIComponent(u)}`, { scroll: false }),
  };
}

export const withUser = (href: string, user: string) => (user ? `${href}?user=${encodeURIComponent(user)}` : href);

/** Sub-navigation of the memories area plus the user picker; the user is carried across tabs. */
export function MemoriesShell({ user, onUser, children, title, subtitle, actions, userLocked }: { user: string; onUser?: (u: string) => void; children: ReactNode; title?: ReactNode; subtitle?: ReactNode; actions?: ReactNode; userLocked?: boolean }) {
  const pathname = usePathname();
  const users = useMemoryUsers();
  return (
    <>
      <div className="border-b border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900/40">
        <div className="mx-auto flex w-full max-w-7xl flex-wrap items-center gap-x-4 gap-y-2 px-4 sm:px-6">
          <nav aria-label="Memories" className="-mb-px flex max-w-full flex-wrap gap-x-1" data-testid="memories-subnav">
            {SUBNAV.map((s) => {
              const active = s.href === "/memories" ? pathname === "/memories" || (/^\/memories\/[0-9a-f-]{36}$/.test(pathname)) : pathname.startsWith(s.href);
              return (
                <Link
                  key={s.href}
                  href={withUser(s.href, user)}
                  aria-current={active ? "page" : undefined}
                  className={`border-b-2 px-2 py-2.5 text-sm whitespace-nowrap transition-colors ${
                    active ? "border-indigo-500 font-medium text-zinc-900 dark:text-zinc-50" : "border-transparent text-zinc-500 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100"
                  }`}
                >
                  {s.label}
                </Link>
              );
            })}
          </nav>
          {/* Below 640 px the picker takes a row of its own: a select cannot wrap, and "ana@example.com · 17 active" is cut in 224 px. */}
          <div className="flex w-full items-center gap-2 py-1.5 text-sm sm:ml-auto sm:w-auto">
            <label htmlFor="memory-user" className="text-xs text-zinc-500 dark:text-zinc-400">
              User
            </label>
            {users.isLoading ? (
              <Skeleton className="h-8 w-52" />
            ) : (
              <select
                id="memory-user"
                data-testid="memory-user-picker"
                value={user}
                disabled={userLocked || !onUser}
                onChange={(e) => onUser?.(e.target.value)}
                className="h-8 min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-2 text-sm shadow-xs sm:max-w-80 sm:flex-none disabled:opacity-80 dark:border-zinc-700 dark:bg-zinc-900"
              >
                {!users.data?.some((u) => u.user_id === user) && <option value={user}>{user || "—"}</option>}
                {users.data?.map((u) => (
                  <option key={u.user_id} value={u.user_id}>
                    {u.user_id} · {formatInt(u.active)} active
                  </option>
                ))}
              </select>
            )}
          </div>
        </div>
      </div>
      {(title || actions) && (
        <div className="mx-auto flex w-full max-w-7xl flex-wrap items-end justify-between gap-3 px-4 pt-5 sm:px-6">
          <div>
            {title && <h1 className="text-xl font-semibold tracking-tight">{title}</h1>}
            {subtitle && <p className="mt-0.5 text-sm text-zinc-500 dark:text-zinc-400">{subtitle}</p>}
          </div>
          {actions && <div className="flex items-center gap-2">{actions}</div>}
        </div>
      )}
      {/* Without the user list nothing below can be right: say why instead of "No memories yet". */}
      {users.isError ? (
        <div className="mx-auto w-full max-w-3xl px-4 py-8 sm:px-6">
          <ErrorBox title="Could not load the memory users" error={users.error} onRetry={() => users.refetch()} />
        </div>
      ) : (
        children
      )}
    </>
  );
}
