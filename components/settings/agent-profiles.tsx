"use client";
import { useState, type FormEvent } from "react";
import { useAuthState } from "@/client/hooks/auth";
import { Field, FormError } from "@/components/auth/field";
import { Button } from "@/components/ui/button";
import { ErrorBox } from "@/components/ui/states";
import { errorMessage } from "@/client/api-error";
import { fmtTime, Section } from "./settings-nav";
import { useCreateProfileVersion, useProfileHistory, useProfiles, type ProfileVersion } from "@/client/hooks/profiles";

const EXAMPLE = {
  model: "gpt-4o",
  strategy: { type: "message_window", max_attached_message_count: 10 },
  memory: { enabled: true, k: 5, format: "user_memory" },
  system_prompt: "",
  reserved_output_tokens: 1024,
};

/** One line that says what a version runs with. */
function summary(v: ProfileVersion): string {
  const s = v.settings;
  const m = s.memory;
  const w = m.weights ? ` weights ${m.weights.similarity ?? 0.6}/${m.weights.recency ?? 0.2}/${m.weights.importance ?? 0.2}` : "";
  return `${s.model} · ${s.strategy.type} · ${m.enabled ? `k ${m.k}${w}${m.min_score !== undefined ? ` min ${m.min_score}` : ""} · ${m.format}` : "no memories"} · reserve ${s.reserved_output_tokens}`;
}

function History({ appId }: { appId: string }) {
  const h = useProfileHistory(appId);
  if (h.isError) return <ErrorBox error={h.error} onRetry={() => h.refetch()} />;
  if (!h.data) return <p className="text-sm text-zinc-500">Loading…</p>;
  return (
    <ol className="divide-y divide-zinc-100 text-sm dark:divide-zinc-800" aria-label={`Versions of ${appId}`}>
      {h.data.versions.map((v) => (
        <li key={v.version} className="py-2" data-testid="profile-version">
          <div className="flex flex-wrap gap-x-3">
            <span className="font-medium">v{v.version}</span>
            <span className="text-zinc-500">
              from <time dateTime={v.effective_from}>{fmtTime(v.effective_from)}</time>
            </span>
            {h.data.current?.version === v.version && <span className="rounded bg-emerald-100 px-1.5 text-xs text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200">in force</span>}
            {v.created_by && <span className="text-zinc-500">by {v.created_by}</span>}
          </div>
          <p className="font-mono text-xs text-zinc-600 dark:text-zinc-400">{summary(v)}</p>
          {v.note && <p className="text-zinc-600 dark:text-zinc-400">{v.note}</p>}
        </li>
      ))}
    </ol>
  );
}

export function AgentProfiles() {
  const { data: state } = useAuthState();
  const canWrite = !!state?.scopes.includes("write");
  const list = useProfiles();
  const create = useCreateProfileVersion();
  const [open, setOpen] = useState<string | null>(null);
  const [draft, setDraft] = useState({ appId: "", settings: JSON.stringify(EXAMPLE, null, 2) });
  const [jsonError, setJsonError] = useState<string | null>(null);

  function edit(appId: string, v: ProfileVersion | null) {
    setDraft({ appId, settings: JSON.stringify(v?.settings ?? EXAMPLE, null, 2) });
    setJsonError(null);
  }

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    let settings: unknown;
    try {
      settings = JSON.parse(draft.settings);
    } catch {
      setJsonError("Settings must be JSON.");
      return;
    }
    setJsonError(null);
    create.mutate({ appId: draft.appId.trim(), settings, note: String(f.get("note") ?? "").trim() || undefined }, { onSuccess: (v) => setOpen(v.app_id) });
  }

  return (
    <div className="flex flex-col gap-6">
      <Section
        title="Agent profiles"
        description="What each agent (app_id) runs with: model, strategy, memory options, system prompt, reserved output. Every change is a new version from the time it takes effect; a replay of a past turn uses the version in force then."
      >
        {list.isError && <ErrorBox error={list.error} onRetry={() => list.refetch()} />}
        {list.data && list.data.data.length === 0 && <p className="text-sm text-zinc-500">No profiles yet.</p>}
        {list.data && list.data.data.length > 0 && (
          <ul className="flex flex-col gap-3">
            {list.data.data.map((p) => (
              <li key={p.app_id} className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800" data-testid="profile-row">
                <div className="flex flex-wrap items-center gap-3">
                  <span className="font-medium">{p.app_id}</span>
                  <span className="text-sm text-zinc-500">
                    {p.version_count} version{p.version_count === 1 ? "" : "s"}
                    {p.current ? `, v${p.current.version} in force` : ", none in force yet"}
                  </span>
                  <Button type="button" variant="secondary" aria-expanded={open === p.app_id} onClick={() => setOpen(open === p.app_id ? null : p.app_id)}>
                    {open === p.app_id ? "Hide history" : "History"}
                  </Button>
                  {canWrite && (
                    <Button type="button" variant="secondary" onClick={() => edit(p.app_id, p.current)}>
                      Change
                    </Button>
                  )}
                </div>
                {p.current && <p className="mt-1 font-mono text-xs text-zinc-600 dark:text-zinc-400">{summary(p.current)}</p>}
                {open === p.app_id && (
                  <div className="mt-2">
                    <History appId={p.app_id} />
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
      </Section>
      {canWrite && (
        <Section title="New version" description="Creates the profile when the app has none. The version takes effect now.">
          <form onSubmit={submit} className="grid gap-4">
            <Field id="profile-app" name="app" label="App id" required maxLength={200} value={draft.appId} onChange={(e) => setDraft({ ...draft, appId: e.target.value })} />
            <div className="flex flex-col gap-1">
              <label htmlFor="profile-settings" className="text-sm font-medium text-zinc-800 dark:text-zinc-200">
                Settings (JSON)
              </label>
              <textarea
                id="profile-settings"
                rows={12}
                spellCheck={false}
                value={draft.settings}
                onChange={(e) => setDraft({ ...draft, settings: e.target.value })}
                className="rounded-md border border-zinc-300 bg-white p-2 font-mono text-xs dark:border-zinc-700 dark:bg-zinc-900"
              />
            </div>
            <Field id="profile-note" name="note" label="Why it changed (optional)" maxLength={2000} />
            <FormError message={jsonError ?? (create.isError ? errorMessage(create.error) : null)} />
            {create.isSuccess && (
              <p role="status" className="text-sm text-emerald-700">
                {create.data.created
                  ? `Saved as version ${create.data.version} of ${create.data.app_id}.`
                  : `No change: these are the settings of version ${create.data.version} of ${create.data.app_id} already, so no new version was made.`}
              </p>
            )}
            <div>
              <Button type="submit" variant="primary" disabled={create.isPending || !draft.appId.trim()}>
                Save version
              </Button>
            </div>
          </form>
        </Section>
      )}
    </div>
  );
}
