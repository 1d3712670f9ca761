"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { ApiError } from "@/client/api-error";
import { authActions, useAuthState, useResetAfterAuthChange } from "@/client/hooks/auth";
import { AuthCard, Field, FormError } from "./field";

/** The first admin: owner of project `default`, where the existing data is. */
export function FirstAdminForm() {
  const router = useRouter();
  const reset = useResetAfterAuthChange();
  const { data } = useAuthState();
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  if (data && (data.mode === "signed-in" || data.mode === "signed-out") && !data.needs_bootstrap_key) {
    return (
      <AuthCard title="An admin account exists">
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          New accounts come from invitation links. <Link href="/sign-in" className="font-medium text-indigo-700 underline dark:text-indigo-300">Sign in</Link>
        </p>
      </AuthCard>
    );
  }

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    const key = String(form.get("bootstrap") ?? "").trim();
    try {
      await authActions.createFirstAdmin({ name: String(form.get("name") ?? ""), email: String(form.get("email") ?? ""), password: String(form.get("password") ?? "") }, key || undefined);
      reset();
      router.replace("/settings");
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  }

  const fieldError = (f: string) => (error?.field === f ? error.message : null);
  return (
    <AuthCard title="Create the admin account" subtitle="It owns project Default, where the existing data is. After this, every page asks to sign in.">
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <Field id="name" name="name" label="Name" autoComplete="name" />
        <Field id="email" name="email" type="email" label="Email" autoComplete="email" required error={fieldError("email")} />
        <Field id="password" name="password" type="password" label="Password (10 characters or more)" autoComplete="new-password" required minLength={10} error={fieldError("password")} />
        {data?.needs_bootstrap_key && <Field id="bootstrap" name="bootstrap" type="password" label="MEMSCOPE_API_KEY" autoComplete="off" required error={fieldError("authorization")} />}
        <FormError message={error && !error.field ? error.message : null} />
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Creating…" : "Create admin account"}
        </Button>
      </form>
    </AuthCard>
  );
}
