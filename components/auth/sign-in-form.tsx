"use client";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { authActions, useAuthState, useResetAfterAuthChange } from "@/client/hooks/auth";
import { AuthCard, Field, FormError } from "./field";

function safeNext(next: string | null): string {
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/conversations";
}

export function SignInForm() {
  const router = useRouter();
  const params = useSearchParams();
  const reset = useResetAfterAuthChange();
  const { data } = useAuthState();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    try {
      await authActions.signInWithEmail(String(form.get("email")).trim(), String(form.get("password")));
      reset();
      router.replace(safeNext(params.get("next")));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  async function sso() {
    setError(null);
    try {
      const r = await authActions.signInWithOidc(safeNext(params.get("next")));
      window.location.href = r.url;
    } catch (err) {
      setError((err as Error).message);
    }
  }

  return (
    <AuthCard
      title="Sign in to Memscope"
      // The first admin was never invited: only members who joined later came by a link.
      subtitle={data?.mode === "open" ? "This machine is open to everyone on it until an admin account exists." : "Your email and password. No account yet? An admin's invitation link creates one."}
    >
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <Field id="email" name="email" type="email" label="Email" autoComplete="email" required autoFocus />
        <Field id="password" name="password" type="password" label="Password" autoComplete="current-password" required />
        <FormError message={error} />
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </Button>
        {data?.sso && (
          <Button onClick={sso} disabled={busy}>
            Sign in with {data.sso.name}
          </Button>
        )}
        {data?.mode === "open" && (
          <p className="text-sm text-zinc-500">
            No account exists yet. <Link href="/sign-up" className="font-medium text-indigo-700 underline underline-offset-2 dark:text-indigo-300">Create the admin account</Link>
          </p>
        )}
      </form>
    </AuthCard>
  );
}
