"use client";
import Link from "next/link";
import { useId, useState } from "react";
import type { Incident } from "@/client/hooks/incidents";
import { absoluteTime, plainTimes, relativeTime } from "@/client/ui/format";
import { clip, evidenceParts, isKind, isStatus, KIND_HINT, KIND_LABEL, nextStatuses, STATUS_ACTION, STATUS_LABEL, type IncidentStatus } from "@/client/ui/incident-model";
import { replayHref } from "@/client/ui/replay-url";
import { Badge } from "@/components/ui/badge";
import { WriteButton } from "@/components/ui/write-button";
import { EvalCaseForm, StatusForm } from "./incident-actions";

const SEVERITY_TONE = { high: "red", medium: "amber", low: "neutral" } as const;
const STATUS_TONE = { open: "accent", acknowledged: "amber", resolved: "green", false_positive: "neutral" } as const;
/** Kinds whose regression case has an expected memory: the one the prompt lacked. */
const EVAL_KINDS = new Set(["missed_memory", "restated_memory"]);

/** One incident: what happened in words, where, and what to do about it. */
export function IncidentCard({ incident: i }: { incident: Incident }) {
  const [panel, setPanel] = useState<{ to: IncidentStatus } | "eval" | null>(null);
  const headingId = useId();
  const kind = isKind(i.kind) ? i.kind : null;
  const status = isStatus(i.status) ? i.status : "open";
  const parts = evidenceParts(i.kind, i.evidence);
  const memory = i.memory_ids[0] ?? null;
  const canEval = EVAL_KINDS.has(i.kind) && memory !== null;
  // A missed memory's question, so the sentence above has its context.
  const asked = i.kind === "missed_memory" && typeof i.evidence.query === "string" ? i.evidence.query : null;
  const conversationHref = `/conversations/${i.conversation_id}?leaf=${i.message_id}`;

  return (
    <article
      aria-labelledby={headingId}
      className={`rounded-lg border bg-white p-4 shadow-xs dark:bg-zinc-900 ${i.severity === "high" && status === "open" ? "border-red-200 dark:border-red-900/70" : "border-zinc-200 dark:border-zinc-800"}`}
      data-testid="incident"
      data-id={i.id}
      data-kind={i.kind}
      data-status={status}
      data-severity={i.severity}
    >
      <div className="flex flex-wrap items-center gap-1.5">
        <Badge tone={SEVERITY_TONE[i.severity as keyof typeof SEVERITY_TONE] ?? "neutral"} testId="incident-severity">
          {i.severity} severity
        </Badge>
        <Badge tone="neutral" title={kind ? KIND_HINT[kind] : undefined}>
          {kind ? KIND_LABEL[kind] : i.kind}
        </Badge>
        <Badge tone={STATUS_TONE[status]} testId="incident-status">
          {STATUS_LABEL[status]}
        </Badge>
        <span className="ml-auto text-xs text-zinc-600 dark:text-zinc-400">
          found <time dateTime={i.detected_at} title={absoluteTime(i.detected_at)}>{relativeTime(i.detected_at)}</time>
        </span>
      </div>

      {/* The evidence in plain words is the incident's title; the API's own summary when this page cannot word it. */}
      <h3 id={headingId} className="mt-2 text-sm leading-relaxed font-medium text-zinc-900 dark:text-zinc-50" data-testid="incident-evidence">
        {parts.length
          ? parts.map((p, k) =>
              "text" in p ? (
                <span key={k}>{p.text}</span>
              ) : "memory" in p ? (
                p.id ? (
                  <Link key={k} href={`/memories/${p.id}`} className="font-semibold italic underline decoration-zinc-300 underline-offset-2 hover:decoration-indigo-500 dark:decoration-zinc-600">
                    {p.memory}
                  </Link>
                ) : (
                  <em key={k} className="font-semibold">
                    {p.memory}
                  </em>
                )
              ) : (
                // Typed quotes, not <q>: they are part of the text people copy and tests read.
                <span key={k} className="font-normal">
                  “{p.quote}”
                </span>
              ),
            )
          : plainTimes(i.summary)}
      </h3>
      {asked && (
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
          The user asked <span className="text-zinc-800 dark:text-zinc-200">“{clip(asked, 160)}”</span>
        </p>
      )}
      {i.note && (
        <p className="mt-2 rounded-md bg-zinc-50 px-2.5 py-1.5 text-xs text-zinc-700 dark:bg-zinc-800/60 dark:text-zinc-300" data-testid="incident-note-shown">
          <span className="font-medium">Note</span>
          {i.status_changed_by ? ` from ${i.status_changed_by}` : ""}
          {i.status_changed_at ? `, ${relativeTime(i.status_changed_at)}` : ""}: {i.note}
        </p>
      )}

      <dl className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-600 dark:text-zinc-400">
        {i.user_id && (
          <div className="flex min-w-0 gap-1">
            <dt>User</dt>
            <dd className="truncate font-medium text-zinc-800 dark:text-zinc-200">{i.user_id}</dd>
          </div>
        )}
        {i.app_id && (
          <div className="flex min-w-0 gap-1">
            <dt>App</dt>
            <dd className="truncate font-medium text-zinc-800 dark:text-zinc-200">{i.app_id}</dd>
          </div>
        )}
        <div className="flex min-w-0 gap-1">
          <dt>Turn</dt>
          <dd>
            <Link href={conversationHref} title={`Conversation ${i.conversation_id}, turn ${i.message_id}`} className="font-medium text-indigo-700 hover:underline dark:text-indigo-300" data-testid="incident-conversation">
              {absoluteTime(i.turn_at)}
            </Link>
          </dd>
        </div>
      </dl>

      <div className="mt-3 flex flex-wrap items-center gap-2 border-t border-zinc-100 pt-3 dark:border-zinc-800">
        <Link
          href={replayHref({ conversation: i.conversation_id, turn: i.message_id, memory })}
          className="inline-flex h-7 items-center rounded-md bg-indigo-600 px-2.5 text-xs font-medium text-white hover:bg-indigo-500"
          data-testid="incident-replay"
        >
          Replay this turn
        </Link>
        {canEval && (
          <WriteButton size="sm" aria-expanded={panel === "eval"} onClick={() => setPanel(panel === "eval" ? null : "eval")} data-testid="incident-make-eval">
            Make eval case
          </WriteButton>
        )}
        <span className="flex flex-wrap gap-2 sm:ml-auto" role="group" aria-label="Change status">
          {nextStatuses(status).map((to) => (
            <WriteButton
              key={to}
              size="sm"
              variant={to === "false_positive" ? "ghost" : "secondary"}
              aria-expanded={typeof panel === "object" && panel?.to === to}
              onClick={() => setPanel(typeof panel === "object" && panel?.to === to ? null : { to })}
              data-testid={`incident-to-${to}`}
            >
              {STATUS_ACTION[to].verb}
            </WriteButton>
          ))}
        </span>
      </div>

      {panel === "eval" && memory && <EvalCaseForm incident={i} onClose={() => setPanel(null)} />}
      {panel && panel !== "eval" && <StatusForm key={panel.to} incident={i} to={panel.to} onClose={() => setPanel(null)} />}
    </article>
  );
}
