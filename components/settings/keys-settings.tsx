"use client";
import { useState, type FormEvent } from "react";
import { useAuthState } from "@/client/hooks/auth";
import { Field, FormError } from "@/components/auth/field";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { ErrorBox } from "@/components/ui/states";
import { errorMessage } from "@/client/api-error";
import { fmtTime, Section } from "./settings-nav";
import type { KeyCreated, NewKey } from "@/client/api-types";
import { useCreateKey, useKeys, useRevokeKey } from "@/client/hooks/project";

const SCOPE_HELP = { read: "read data", write: "create and change data", admin: "keys, members, audit" } as const;

export function KeysSettings() {
  const { data: state } = useAuthState();
  const admin = !!state?.scopes.includes("admin");
  const keys = useKeys(admin);
  const create = useCreateKey();
  const revoke = useRevokeKey();
  const [created, setCreated] = useState<KeyCreated | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const days = String(f.get("expires") ?? "").trim();
    const out = await create
      .mutateAsync({ name: String(f.get("name")).trim(), scopes: f.getAll("scopes").map(String) as NewKey["scopes"], expires_in_days: days ? Number(days) : null })
      .catch(() => null);
    if (out) {
      setCreated(out);
      (e.target as HTMLFormElement).reset();
    }
  }

  if (state && !admin) return <p className="text-sm text-zinc-600">Only project admins manage API keys.</p>;
  return (
    <div className="flex flex-col gap-6">
      <Section title="Create an API key" description={`For ${state?.project?.name ?? "this project"}. Agents send it as Authorization: Bearer <key>; the key decides the project.`}>
        <form onSubmit={submit} className="grid gap-4 sm:grid-cols-[1fr_auto] sm:items-end" noValidate>
          <Field id="key-name" name="name" label="Name" placeholder="e.g. support-agent" required maxLength={80} />
          <Field id="key-expires" name="expires" type="number" min={1} max={3650} label="Expires after (days, optional)" className="sm:w-44" />
          <fieldset className="flex flex-wrap gap-4 sm:col-span-2">
            <legend className="mb-1 text-sm font-medium">Scopes</legend>
            {(["read", "write", "admin"] as const).map((s) => (
              <label key={s} className="flex items-center gap-2 text-sm">
                <input type="checkbox" name="scopes" value={s} defaultChecked={s !== "admin"} />
                <span>
                  <span className="font-medium">{s}</span> <span className="text-zinc-500">({SCOPE_HELP[s]})</span>
                </span>
              </label>
            ))}
          </fieldset>
          <div className="sm:col-span-2">
            <FormError message={create.isError ? errorMessage(create.error) : null} />
            <Button type="submit" variant="primary" disabled={create.isPending} className="mt-2">
              {create.isPending ? "Creating…" : "Create key"}
            </Button>
          </div>
        </form>
        {created && (
          <div role="status" className="mt-4 rounded-lg border border-emerald-200 bg-emerald-50 p-4 text-sm dark:border-emerald-900/60 dark:bg-emerald-950/40">
            <p className="font-medium text-emerald-900 dark:text-emerald-200">Key “{created.name}” created. Copy it now: it is not shown again.</p>
            <div className="mt-2 flex flex-wrap items-center gap-2">
              <code data-testid="new-key" className="rounded bg-white px-2 py-1 font-mono text-xs break-all dark:bg-zinc-900">
                {created.key}
              </code>
              <CopyButton text={created.key} label="Copy key" />
            </div>
          </div>
        )}
      </Section>
      <Section title="Keys" description="Revoking a key stops it at once.">
        {keys.isError && <ErrorBox error={keys.error} onRetry={() => keys.refetch()} />}
        {keys.data && keys.data.data.length === 0 && <p className="text-sm text-zinc-500">No keys yet.</p>}
        {keys.data && keys.data.data.length > 0 && (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <thead className="text-xs text-zinc-500">
                <tr>
                  <th className="py-2 pr-4 font-medium">Name</th>
                  <th className="py-2 pr-4 font-medium">Key</th>
                  <th className="py-2 pr-4 font-medium">Scopes</th>
                  <th className="py-2 pr-4 font-medium">Created by</th>
                  <th className="py-2 pr-4 font-medium">Last used</th>
                  <th className="py-2 pr-4 font-medium">Expires</th>
                  <th className="py-2 font-medium">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
                {keys.data.data.map((k) => (
                  <tr key={k.id} data-testid="key-row">
                    <td className="py-2 pr-4 font-medium">{k.name}</td>
                    <td className="py-2 pr-4 font-mono text-xs">{k.start}…</td>
                    <td className="py-2 pr-4">{k.scopes.join(", ")}</td>
                    <td className="py-2 pr-4">{k.created_by ?? "—"}</td>
                    <td className="py-2 pr-4">{fmtTime(k.last_used_at)}</td>
                    <td className="py-2 pr-4">{k.expires_at ? fmtTime(k.expires_at) : "never"}</td>
                    <td className="py-2 text-right">
                      {confirm === k.id ? (
                        <span className="inline-flex gap-1">
                          <Button size="sm" variant="primary" onClick={() => revoke.mutate(k.id, { onSettled: () => setConfirm(null) })} disabled={revoke.isPending}>
                            Revoke {k.name}
                          </Button>
                          <Button size="sm" variant="ghost" onClick={() => setConfirm(null)}>
                            Cancel
                          </Button>
                        </span>
                      ) : (
                        <Button size="sm" onClick={() => setConfirm(k.id)} aria-label={`Revoke key ${k.name}`}>
                          Revoke
                        </Button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {revoke.isError && <FormError message={errorMessage(revoke.error)} />}
      </Section>
    </div>
  );
}
