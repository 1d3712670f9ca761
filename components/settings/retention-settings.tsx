"use client";
// Settings → Retention: the project's rules, each with its preview (what a run now would take)
// and its last runs; add, turn on or off, run now, remove.
import { useState, type FormEvent } from "react";
import { useAuthState } from "@/client/hooks/auth";
import {
  useCreateRetentionRule,
  useDeleteRetentionRule,
  useRetentionPreview,
  useRetentionRules,
  useRunRetentionRule,
  useUpdateRetentionRule,
  type NewRetentionRule,
  type RetentionRule,
} from "@/client/hooks/retention";
import { errorMessage } from "@/client/api-error";
import { formatInt } from "@/client/ui/format";
import { Button } from "@/components/ui/button";
import { Badge } from "@/components/ui/badge";
import { ErrorBox, InlineError, Spinner } from "@/components/ui/states";
import { fmtTime, Section } from "./settings-nav";

type Kind = NewRetentionRule["kind"];
const KIND_LABEL: Record<Kind, (days: number) => string> = {
  delete_conversations: (d) => `Delete conversations older than ${d} days`,
  erase_inactive_users: (d) => `Erase end users inactive for ${d} days`,
  archive_memories: (d) => `Archive memories not accessed for ${d} days`,
};
const KIND_HELP: Record<Kind, string> = {
  delete_conversations: "Conversations whose last turn is older go, with their turns, files, node memory and retrievals. Memories stay.",
  erase_inactive_users: "Each user goes through the full erasure, with a receipt in the audit log.",
  archive_memories: "Memories are archived, never destroyed: they can be restored.",
};

// Counts read back from the audit log come in the database's JSON key order: shown in this one.
const COUNT_ORDER = ["conversations", "turns", "users", "rows", "memories"];
const countsText = (c: Record<string, number>) =>
  Object.entries(c)
    .sort(([a], [b]) => (COUNT_ORDER.indexOf(a) + 1 || 99) - (COUNT_ORDER.indexOf(b) + 1 || 99))
    .map(([k, n]) => `${formatInt(n)} ${k}`)
    .join(", ");

/** A sample's fields as "label value", times as local times. */
function sampleText(s: Record<string, string | number | null>): string {
  return Object.entries(s)
    .filter(([k, v]) => v !== null && k !== "id")
    .map(([k, v]) => `${k.replace(/_at$/, "").replace(/_/g, " ")} ${k.endsWith("_at") ? fmtTime(String(v)) : v}`)
    .join(" · ");
}

function Preview({ rule }: { rule: RetentionRule }) {
  const p = useRetentionPreview(rule.id, true);
  if (p.isError) return <ErrorBox error={p.error} onRetry={() => p.refetch()} />;
  if (!p.data) return <Spinner />;
  return (
    <div className="rounded-md bg-zinc-50 p-3 text-sm dark:bg-zinc-900" data-testid="retention-preview">
      <p>
        A run now would take <span className="font-medium" data-testid="retention-preview-counts">{countsText(p.data.counts)}</span>{" "}
        <span className="text-zinc-500">(last active before {fmtTime(p.data.cutoff)})</span>
      </p>
      {p.data.samples.length > 0 && (
        <ul className="mt-2 space-y-1 text-xs text-zinc-600 dark:text-zinc-400" aria-label="Samples, oldest first">
          {p.data.samples.map((s, i) => (
            <li key={i} className="break-words">
              {s.id !== undefined && <span className="mr-2 font-mono break-all">{s.id}</span>}
              {sampleText(s)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function RuleCard({ rule }: { rule: RetentionRule }) {
  const update = useUpdateRetentionRule();
  const remove = useDeleteRetentionRule();
  const run = useRunRetentionRule();
  const [previewing, setPreviewing] = useState(false);
  const label = KIND_LABEL[rule.kind](rule.days);
  return (
    <li className="space-y-3 py-4 first:pt-0 last:pb-0" data-testid="retention-rule">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <span className="font-medium">{label}</span>
        <Badge tone={rule.enabled ? "green" : "neutral"}>{rule.enabled ? `daily · next ${fmtTime(rule.next_run_at)}` : "off"}</Badge>
        <div className="ml-auto flex flex-wrap gap-2">
          <Button size="sm" onClick={() => setPreviewing((v) => !v)} aria-expanded={previewing} data-testid="retention-preview-toggle">
            {previewing ? "Hide preview" : "Preview"}
          </Button>
          <Button size="sm" variant="danger-outline" disabled={!previewing || run.isPending} onClick={() => run.mutate(rule.id)} data-testid="retention-run" title={previewing ? "Run it now" : "Read the preview first"}>
            {run.isPending && <Spinner />}
            Run now
          </Button>
          <Button size="sm" onClick={() => update.mutate({ id: rule.id, patch: { enabled: !rule.enabled } })} disabled={update.isPending} data-testid="retention-toggle">
            {rule.enabled ? "Turn off" : "Turn on"}
          </Button>
          <Button size="sm" variant="ghost" onClick={() => remove.mutate(rule.id)} disabled={remove.isPending} aria-label={`Remove the rule: ${label}`}>
            Remove
          </Button>
        </div>
      </div>
      <p className="text-xs text-zinc-500">{KIND_HELP[rule.kind]}</p>
      {previewing && <Preview rule={rule} />}
      {(run.isError || update.isError || remove.isError) && <InlineError>{errorMessage(run.error ?? update.error ?? remove.error)}</InlineError>}
      <div>
        <h3 className="text-xs font-medium text-zinc-600 uppercase dark:text-zinc-400">Last runs</h3>
        {rule.last_runs.length === 0 ? (
          <p className="text-xs text-zinc-500">Not run yet.</p>
        ) : (
          <ol className="mt-1 space-y-0.5 text-xs" aria-label={`Last runs of: ${label}`}>
            {rule.last_runs.map((r) => (
              <li key={r.run_id} className="flex flex-wrap gap-x-3" data-testid="retention-run-row">
                <time dateTime={r.finished_at} className="text-zinc-500 tabular-nums">
                  {fmtTime(r.finished_at)}
                </time>
                <span>{r.trigger === "manual" ? `run by ${r.by}` : "scheduled"}</span>
                <span className="font-medium">{countsText(r.counts)}</span>
                {!r.complete && <Badge tone="amber">stopped early</Badge>}
              </li>
            ))}
          </ol>
        )}
      </div>
    </li>
  );
}

function AddRule() {
  const create = useCreateRetentionRule();
  const [kind, setKind] = useState<Kind>("delete_conversations");
  const [days, setDays] = useState("365");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ kind, days: Number(days), enabled: false });
  };
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-3 text-sm" aria-label="Add a retention rule">
      <label className="flex max-w-full min-w-0 flex-col gap-1">
        <span className="text-xs text-zinc-600 dark:text-zinc-400">Rule</span>
        <select value={kind} onChange={(e) => setKind(e.target.value as Kind)} className="h-9 max-w-full min-w-0 rounded-md border border-zinc-300 bg-white px-2 dark:border-zinc-700 dark:bg-zinc-900" data-testid="retention-kind">
          {(Object.keys(KIND_LABEL) as Kind[]).map((k) => (
            <option key={k} value={k}>
              {KIND_LABEL[k](0).replace("0", "N")}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-1">
        <span className="text-xs text-zinc-600 dark:text-zinc-400">Days (N)</span>
        <input
          type="number"
          min={1}
          max={36500}
          value={days}
          onChange={(e) => setDays(e.target.value)}
          className="h-9 w-24 rounded-md border border-zinc-300 bg-white px-2 tabular-nums dark:border-zinc-700 dark:bg-zinc-900"
          data-testid="retention-days"
        />
      </label>
      <Button type="submit" variant="primary" disabled={create.isPending} data-testid="retention-add">
        Add rule
      </Button>
      <p className="basis-full text-xs text-zinc-500">A new rule is off: read its preview, then turn it on to run it daily.</p>
      {create.isError && <InlineError>{errorMessage(create.error)}</InlineError>}
    </form>
  );
}

export function RetentionSettings() {
  const { data: state } = useAuthState();
  const admin = !!state?.scopes.includes("admin");
  const rules = useRetentionRules(admin);
  if (state && !admin) return <p className="text-sm text-zinc-600">Only project admins manage retention.</p>;
  return (
    <>
      <Section title="Retention rules" description="Keep data no longer than needed. Each rule that is on runs once a day (on one instance); every run is in the audit log with its counts.">
        <AddRule />
      </Section>
      <Section title="Rules">
        {rules.isError && <ErrorBox error={rules.error} onRetry={() => rules.refetch()} />}
        {rules.data && rules.data.data.length === 0 && <p className="text-sm text-zinc-500">No rules: nothing is deleted on a schedule.</p>}
        {rules.data && rules.data.data.length > 0 && (
          <ul className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {rules.data.data.map((r) => (
              <RuleCard key={r.id} rule={r} />
            ))}
          </ul>
        )}
      </Section>
    </>
  );
}
