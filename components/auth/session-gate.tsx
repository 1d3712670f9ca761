"use client";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, type ReactNode } from "react";
import { isPublicPath, useAuthState } from "@/client/hooks/auth";

/**
 * Once an account exists every page needs a signed-in member: send the others to sign in.
 * (The API refuses them anyway; this keeps the pages from showing errors instead.) While
 * no account exists, a banner says the server is open to this machine only.
 */
export function SessionGate({ children }: { children: ReactNode }) {
  const pathname = usePathname();
  const router = useRouter();
  const { data } = useAuthState();
  const mustSignIn = data?.mode === "signed-out" && !isPublicPath(pathname);

  useEffect(() => {
    if (mustSignIn) router.replace(`/sign-in?next=${encodeURIComponent(pathname)}`);
  }, [mustSignIn, pathname, router]);

  if (mustSignIn) return <p className="p-6 text-sm text-zinc-500">Redirecting to sign in…</p>;
  return (
    <>
      {data?.mode === "open" && (
        <div role="status" className="border-b border-amber-200 bg-amber-50 px-4 py-2 text-sm text-amber-900 sm:px-6 dark:border-amber-900/60 dark:bg-amber-950/40 dark:text-amber-200">
          Open to this machine only. <Link href="/sign-up" className="font-medium underline underline-offset-2">Create an admin account to share it</Link>
        </div>
      )}
      {data?.mode === "off" && (
        <div role="status" className="border-b border-red-200 bg-red-50 px-4 py-2 text-sm text-red-900 sm:px-6 dark:border-red-900/60 dark:bg-red-950/40 dark:text-red-200">
          Sign-in is turned off (MEMSCOPE_AUTH=off): anyone who reaches this server can read and change everything.
        </div>
      )}
      {children}
    </>
  );
}
