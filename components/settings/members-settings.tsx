"use client";
import { useState, type FormEvent } from "react";
import { useAuthState } from "@/client/hooks/auth";
import { Field, FormError } from "@/components/auth/field";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { ErrorBox } from "@/components/ui/states";
import { errorMessage } from "@/client/api-error";
import { fmtTime, Section } from "./settings-nav";
import type { Body } from "@/client/api-types";
import { inviteLink, useCancelInvitation, useChangeRole, useInvitations, useInvite, useMembers, useRemoveMember } from "@/client/hooks/project";

/** A role an admin can give (the owner is not given). */
type Role = Body<"/project/members/{member_id}", "patch">["role"];

const ROLES = ["owner", "admin", "member", "viewer"] as const;
const ROLE_HELP = "Owner and admin: members and keys. Member: reads and writes data. Viewer: reads only.";

export function MembersSettings() {
  const { data: state } = useAuthState();
  const admin = !!state?.scopes.includes("admin");
  const members = useMembers();
  const invitations = useInvitations(admin);
  const changeRole = useChangeRole();
  const remove = useRemoveMember();
  const invite = useInvite();
  const cancel = useCancelInvitation();
  const [lastLink, setLastLink] = useState<string | null>(null);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const out = await invite.mutateAsync({ email: String(f.get("email")).trim(), role: String(f.get("role")) as Role }).catch(() => null);
    if (out) {
      setLastLink(inviteLink(out.id));
      (e.target as HTMLFormElement).reset();
    }
  }

  const mutationError = changeRole.error ?? remove.error ?? cancel.error;
  return (
    <div className="flex flex-col gap-6">
      <Section title="Members" description={ROLE_HELP}>
        {members.isError && <ErrorBox error={members.error} onRetry={() => members.refetch()} />}
        {members.data && (
          <ul className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {members.data.data.map((m) => (
              <li key={m.id} className="flex flex-wrap items-center gap-3 py-2.5" data-testid="member-row">
                <div className="min-w-0 flex-1">
                  <p className="truncate text-sm font-medium">{m.name || m.email}</p>
                  <p className="truncate text-xs text-zinc-500">
                    {m.email} · since {fmtTime(m.created_at)}
                  </p>
                </div>
                <select
                  aria-label={`Role of ${m.email}`}
                  value={m.role ?? "viewer"}
                  disabled={!admin || changeRole.isPending}
                  onChange={(e) => changeRole.mutate({ id: m.id, role: e.target.value as Role })}
                  className="h-8 rounded-md border border-zinc-300 bg-white px-2 text-sm disabled:opacity-60 dark:border-zinc-700 dark:bg-zinc-900"
                >
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
                <Button size="sm" disabled={!admin || remove.isPending || m.email === state?.user?.email} onClick={() => remove.mutate(m.id)} aria-label={`Remove ${m.email}`}>
                  Remove
                </Button>
              </li>
            ))}
          </ul>
        )}
        {mutationError && <FormError message={errorMessage(mutationError)} />}
      </Section>
      {admin && (
        <Section title="Invite someone" description="No mail is sent: copy the link and give it to them. It works once, for a week, for that email address.">
          <form onSubmit={submit} className="grid gap-4 sm:grid-cols-[1fr_auto_auto] sm:items-end" noValidate>
            <Field id="invite-email" name="email" type="email" label="Email" required />
            <div className="flex flex-col gap-1">
              <label htmlFor="invite-role" className="text-sm font-medium">
                Role
              </label>
              <select id="invite-role" name="role" defaultValue="member" className="h-9 rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-900">
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </div>
            <Button type="submit" variant="primary" disabled={invite.isPending}>
              {invite.isPending ? "Creating…" : "Create link"}
            </Button>
          </form>
          <FormError message={invite.isError ? errorMessage(invite.error) : null} />
          {lastLink && (
            <div role="status" className="mt-4 flex flex-wrap items-center gap-2 rounded-lg border border-emerald-200 bg-emerald-50 p-3 text-sm dark:border-emerald-900/60 dark:bg-emerald-950/40">
              <span>Invitation link:</span>
              <code data-testid="invite-link" className="font-mono text-xs break-all">
                {lastLink}
              </code>
              <CopyButton text={lastLink} label="Copy link" />
            </div>
          )}
          {invitations.data && invitations.data.data.length > 0 && (
            <ul className="mt-4 divide-y divide-zinc-100 text-sm dark:divide-zinc-800">
              {invitations.data.data.map((i) => (
                <li key={i.id} className="flex flex-wrap items-center gap-2 py-2">
                  <span className="flex-1">
                    {i.email} <span className="text-zinc-500">as {i.role} · expires {fmtTime(i.expires_at)}</span>
                  </span>
                  <CopyButton text={inviteLink(i.id)} label="Copy link" />
                  <Button size="sm" variant="ghost" onClick={() => cancel.mutate(i.id)} aria-label={`Cancel invitation for ${i.email}`}>
                    Cancel
                  </Button>
                </li>
              ))}
            </ul>
          )}
        </Section>
      )}
    </div>
  );
}
