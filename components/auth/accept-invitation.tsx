"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { ApiError } from "@/client/api-error";
import { authActions, useAuthState, useInvitationLink, useResetAfterAuthChange } from "@/client/hooks/auth";
import { AuthCard, Field, FormError } from "./field";

export function AcceptInvitation({ id }: { id: string }) {
  const router = useRouter();
  const reset = useResetAfterAuthChange();
  const state = useAuthState();
  // Once accepted, the link is spent: the cache reset after joining must not read it again
  // (it would answer 404 and flash "does not work" before the page moves on).
  const [accepted, setAccepted] = useState(false);
  const inv = useInvitationLink(id, !accepted);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  if (accepted) return <AuthCard title="Invitation accepted">Opening the project…</AuthCard>;
  if (inv.isPending) return <AuthCard title="Invitation">Loading…</AuthCard>;
  if (inv.isError)
    return (
      <AuthCard title="This invitation link does not work">
        <p className="text-sm text-zinc-600 dark:text-zinc-400">It was used, cancelled or has expired. Ask the project admin for a new link.</p>
      </AuthCard>
    );

  const signedIn = state.data?.mode === "signed-in";
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    try {
      await authActions.acceptInvitation(id, signedIn ? null : { name: String(form.get("name") ?? ""), password: String(form.get("password") ?? "") });
      setAccepted(true);
      reset();
      router.replace("/conversations");
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  }

  const d = inv.data;
  return (
    <AuthCard title={`Join ${d.project_name}`} subtitle={`As ${d.role ?? "viewer"}, for ${d.email}.`}>
      {d.has_account && !signedIn ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {d.email} has an account. <Link href={`/sign-in?next=/invite/${encodeURIComponent(id)}`} className="font-medium text-indigo-700 underline dark:text-indigo-300">Sign in</Link> and open this link again.
        </p>
      ) : (
        <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
          {!signedIn && (
            <>
              <Field id="name" name="name" label="Your name" autoComplete="name" />
              <Field id="password" name="password" type="password" label="Choose a password (10 characters or more)" autoComplete="new-password" required error={error?.field === "password" ? error.message : null} />
            </>
          )}
          <FormError message={error && error.field !== "password" ? error.message : null} />
          <Button type="submit" variant="primary" disabled={busy}>
            {busy ? "Joining…" : signedIn ? "Accept invitation" : "Create account and join"}
          </Button>
        </form>
      )}
    </AuthCard>
  );
}
