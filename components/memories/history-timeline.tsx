"use client";
import { WriteButton } from "@/components/ui/write-button";
import type { Memory, MemoryEvent, MemoryType } from "@/client/api-types";
import { usePatchMemory } from "@/client/hooks/memories";
import { stringifyField, wordDiff } from "@/client/ui/memory-format";
import { absoluteTime, relativeTime } from "@/client/ui/format";
import { Badge } from "@/components/ui/badge";
import { EmptyState, Spinner } from "@/components/ui/states";

const FIELDS = ["content", "memory_type", "importance_score", "confidence", "status", "structured_data"] as const;
const EDITABLE = ["content", "memory_type", "importance_score", "confidence", "structured_data"] as const;

const EVENT_TONE: Record<string, "neutral" | "accent" | "green" | "amber" | "red"> = {
  created: "green",
  create: "green",
  update: "accent",
  archive: "amber",
  restore: "green",
  merge: "accent",
  unmerge: "amber",
  updated: "accent",
  archived: "amber",
  restored: "green",
  merged: "accent",
  unmerged: "amber",
  deleted: "red",
};

export function Diff({ before, after }: { before: string; after: string }) {
  return (
    <span className="whitespace-pre-wrap" data-testid="diff">
      {wordDiff(before, after).map((p, i) =>
        p.kind === "same" ? (
          <span key={i}>{p.text}</span>
        ) : p.kind === "removed" ? (
          <del key={i} data-testid="diff-removed" className="mr-1 rounded-sm bg-red-100 px-0.5 text-red-800 decoration-red-500/60 dark:bg-red-950/70 dark:text-red-300">
            {p.text}
          </del>
        ) : (
          <ins key={i} data-testid="diff-added" className="rounded-sm bg-emerald-100 px-0.5 text-emerald-900 no-underline dark:bg-emerald-950/70 dark:text-emerald-300">
            {p.text}
          </ins>
        ),
      )}
    </span>
  );
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Newest first; each event shows who, why, when and a per-field word diff, with "Restore this version". */
export function HistoryTimeline({ memory, events }: { memory: Memory; events: MemoryEvent[] }) {
  const patch = usePatchMemory();
  if (!events.length) return <EmptyState title="No history recorded" />;
  return (
    <ol className="relative ml-2 border-l border-zinc-200 dark:border-zinc-800" data-testid="history">
      {events.map((ev, i) => {
        const before = ev.before ?? {};
        const after = ev.after ?? {};
        const changed = FIELDS.filter((f) => (ev.before || ev.after) && !same(before[f], after[f]) && (ev.before ? true : f === "content"));
        const version = typeof after.version === "number" ? after.version : events.length - i;
        const isCurrent = version === memory.version;
        const restorable = !!ev.after && !isCurrent && EDITABLE.some((f) => f in after && !same(after[f], (memory as Record<string, unknown>)[f]));
        return (
          <li key={ev.id} className="relative pb-5 pl-5" data-testid="history-event" data-event={ev.event_type} data-version={version}>
            <span aria-hidden className={`absolute top-1 -left-[5px] size-2.5 rounded-full ring-4 ring-white dark:ring-zinc-900 ${i === 0 ? "bg-indigo-500" : "bg-zinc-300 dark:bg-zinc-600"}`} />
            <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs">
              <Badge tone={EVENT_TONE[ev.event_type] ?? "neutral"}>{ev.event_type}</Badge>
              <span className="font-mono text-[11px] text-zinc-500">v{version}</span>
              <span className="text-zinc-500 dark:text-zinc-400">
                by{" "}
                <span className="font-medium break-all text-zinc-700 dark:text-zinc-300" data-testid="history-actor">
                  {ev.actor_label ?? ev.actor}
                </span>
                {ev.actor_label && <span className="text-zinc-500 dark:text-zinc-400"> ({ev.actor})</span>}
              </span>
              <time className="text-zinc-500 dark:text-zinc-400" dateTime={ev.created_at} title={absoluteTime(ev.created_at)}>
                {relativeTime(ev.created_at)}
              </time>
              {isCurrent && <Badge tone="accent">current</Badge>}
              {restorable && (
                <WriteButton
                  size="sm"
                  variant="ghost"
                  className="ml-auto"
                  data-testid="history-restore"
                  disabled={patch.isPending}
                  onClick={() => {
                    const body: Record<string, unknown> = {};
                    for (const f of EDITABLE) if (f in after) body[f] = after[f];
                    patch.mutate({
                      id: memory.id,
                      version: memory.version,
                      ...(body as { content?: string; memory_type?: MemoryType; importance_score?: number; confidence?: number; structured_data?: Record<string, unknown> | null }),
                      reason: `restored version ${version}`,
                    });
                  }}
                >
                  {patch.isPending && patch.variables?.reason === `restored version ${version}` && <Spinner />}
                  Restore this version
                </WriteButton>
              )}
            </div>
            {ev.reason && <p className="mt-1 text-xs text-zinc-600 italic dark:text-zinc-400">“{ev.reason}”</p>}
            {changed.length > 0 && (
              <dl className="mt-2 space-y-1.5 rounded-md border border-zinc-200 bg-zinc-50/70 p-2.5 text-xs dark:border-zinc-800 dark:bg-zinc-950/40">
                {changed.map((f) => (
                  <div key={f} className="grid grid-cols-[110px_1fr] gap-2">
                    <dt className="font-mono text-[11px] text-zinc-500">{f}</dt>
                    <dd className={f === "structured_data" ? "font-mono text-[11px]" : "leading-5"}>
                      <Diff before={ev.before ? stringifyField(before[f]) : ""} after={stringifyField(after[f])} />
                    </dd>
                  </div>
                ))}
              </dl>
            )}
          </li>
        );
      })}
      {patch.isError && <li role="alert" className="pl-5 text-xs text-red-600 dark:text-red-400">{patch.error.message}</li>}
    </ol>
  );
}
