"use client";
import { useState, type FormEvent } from "react";
import { ApiError } from "@/client/api-error";
import { authActions, useAuthState } from "@/client/hooks/auth";
import { Field, FormError } from "@/components/auth/field";
import { Button } from "@/components/ui/button";
import { errorMessage } from "@/client/api-error";
import { Section } from "./settings-nav";
import { useRenameProject } from "@/client/hooks/project";

export function ProjectSettings() {
  const { data: state } = useAuthState();
  const admin = !!state?.scopes.includes("admin");
  const rename = useRenameProject();
  const [pw, setPw] = useState<{ error: ApiError | null; done: boolean; busy: boolean }>({ error: null, done: false, busy: false });

  async function changePassword(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setPw({ error: null, done: false, busy: true });
    try {
      await authActions.changePassword(String(f.get("current") ?? ""), String(f.get("next") ?? ""));
      setPw({ error: null, done: true, busy: false });
      (e.target as HTMLFormElement).reset();
    } catch (err) {
      setPw({ error: err as ApiError, done: false, busy: false });
    }
  }

  return (
    <div className="flex flex-col gap-6">
      <Section title="Project" description={state?.project ? `Id ${state.project.id}. Your role: ${state.project.role ?? (state.mode === "open" ? "open mode (this machine)" : "—")}.` : undefined}>
        <form
          key={state?.project?.id}
          className="flex flex-wrap items-end gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            rename.mutate(String(new FormData(e.currentTarget).get("name")).trim());
          }}
        >
          <div className="min-w-60 flex-1">
            <Field id="project-name" name="name" label="Name" defaultValue={state?.project?.name ?? ""} disabled={!admin} maxLength={80} />
          </div>
          <Button type="submit" disabled={!admin || rename.isPending}>
            Rename
          </Button>
        </form>
        <FormError message={rename.isError ? errorMessage(rename.error) : null} />
        {rename.isSuccess && <p role="status" className="mt-2 text-sm text-emerald-700">Renamed.</p>}
      </Section>
      {state?.user && (
        <Section title="Your account" description={`Signed in as ${state.user.email}.`}>
          <form onSubmit={changePassword} className="grid max-w-md gap-4" noValidate>
            <Field id="current" name="current" type="password" label="Current password" autoComplete="current-password" required />
            <Field id="next" name="next" type="password" label="New password (10 characters or more)" autoComplete="new-password" required minLength={10} />
            <FormError message={pw.error?.message ?? null} />
            {pw.done && <p role="status" className="text-sm text-emerald-700">Password changed; your other sessions were signed out.</p>}
            <Button type="submit" disabled={pw.busy}>
              Change password
            </Button>
          </form>
        </Section>
      )}
    </div>
  );
}
