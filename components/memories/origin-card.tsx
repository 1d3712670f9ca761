"use client";
import Link from "next/link";
import type { ReactNode } from "react";
import type { MemoryOrigin } from "@/client/api-types";
import type { MemoryEvent } from "@/client/api-types";
import { absoluteTime, oneLine, relativeTime } from "@/client/ui/format";
import { useMemoryOrigin } from "@/client/hooks/memories";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorBox } from "@/components/ui/states";
import { Card } from "./card";
import { TypeBadge } from "./type-badge";

const link = "font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300";

/** The history API adds `actor_label` (the account's email or the key's name) to events; older servers do not. */
export function actorLabel(ev: MemoryEvent | undefined): string | null {
  return ev?.actor_label || null;
}

/** "Origin": the conversation and turn a memory came from, its import, merge sources, and who made it. */
export function OriginCard({ memoryId, events }: { memoryId: string; events: MemoryEvent[] | undefined }) {
  const origin = useMemoryOrigin(memoryId);
  // History is newest first: the oldest event is how the row came to be.
  const first = events?.at(-1);
  return (
    <Card title="Origin" testId="origin-card">
      {origin.isError ? (
        <ErrorBox error={origin.error} onRetry={() => origin.refetch()} />
      ) : !origin.data ? (
        <Skeleton className="h-16 w-full" />
      ) : (
        <OriginList o={origin.data} label={actorLabel(first)} />
      )}
    </Card>
  );
}

function OriginList({ o, label }: { o: MemoryOrigin; label: string | null }) {
  const rows: ReactNode[] = [];
  if (o.conversation) {
    const c = o.conversation;
    const name = c.name || "Untitled conversation";
    rows.push(
      <Row key="conv" term={o.turn ? "Extracted from" : "Conversation"} testId="origin-conversation">
        {c.deleted ? (
          <span>{name} (deleted)</span>
        ) : (
          <Link className={link} href={`/conversations/${c.id}${o.turn ? `?leaf=${o.turn.id}` : ""}`}>
            {name}
          </Link>
        )}
        {o.turn && (
          <span className="block text-zinc-600 dark:text-zinc-400" data-testid="origin-turn">
            turn “{oneLine(o.turn.query, 120)}”
          </span>
        )}
      </Row>,
    );
  }
  if (o.import) {
    rows.push(
      <Row key="import" term="Imported" testId="origin-import">
        from <span className="font-mono">{o.import.source}</span>
        {o.import.label ? <> ({o.import.label})</> : null}, source id <span className="font-mono break-all">{o.import.external_id}</span>,{" "}
        <time dateTime={o.import.created_at} title={absoluteTime(o.import.created_at)}>{relativeTime(o.import.created_at)}</time>
        {" · "}
        <Link className={link} href="/import">
          imports
        </Link>
      </Row>,
    );
  }
  for (const [key, term, list] of [["merged", "Merged from", o.merged_from], ["derived", "Compressed from", o.derived_from]] as const) {
    if (!list.length) continue;
    rows.push(
      <Row key={key} term={term} testId={`origin-${key}`}>
        <ul className="space-y-1">
          {list.map((m) => (
            <li key={m.id} className="flex min-w-0 items-center gap-2">
              <TypeBadge type={m.memory_type} />
              <Link className={`${link} truncate`} href={`/memories/${m.id}`} title={m.content}>
                {oneLine(m.content, 80)}
              </Link>
              {/* Never squeezed: the page lets words break anywhere, and a shrunk mark read "archive / d". */}
              {m.status === "archived" && <span className="shrink-0 text-xs whitespace-nowrap text-zinc-600 dark:text-zinc-400" data-testid="origin-archived">archived</span>}
            </li>
          ))}
        </ul>
      </Row>,
    );
  }
  if (o.created) {
    rows.push(
      <Row key="created" term="Created" testId="origin-created">
        <span className="font-mono">{o.created.event_type}</span> by{" "}
        <span className="font-medium" data-testid="origin-actor">
          {label ? `${label} (${o.created.actor})` : o.created.actor}
        </span>
        ,{" "}
        <time dateTime={o.created.created_at} title={absoluteTime(o.created.created_at)}>{relativeTime(o.created.created_at)}</time>
        {o.created.reason && <span className="block text-zinc-600 dark:text-zinc-400">{o.created.reason}</span>}
      </Row>,
    );
  }
  // A <dl> holds only term/description groups: the "saved directly" sentence stands before it.
  const direct = !o.conversation && !o.import && !o.merged_from.length && !o.derived_from.length;
  return (
    <div className="space-y-2.5 text-sm">
      {direct && (
        <p className="text-zinc-600 dark:text-zinc-400" data-testid="origin-none">
          Saved directly, not from a conversation, an import or a merge.
        </p>
      )}
      <dl className="space-y-2.5">{rows}</dl>
    </div>
  );
}

function Row({ term, children, testId }: { term: string; children: ReactNode; testId: string }) {
  return (
    <div className="grid grid-cols-[7.5rem_minmax(0,1fr)] gap-2" data-testid={testId}>
      <dt className="text-xs font-medium text-zinc-500 uppercase tracking-wide pt-0.5 dark:text-zinc-400">{term}</dt>
      <dd className="min-w-0">{children}</dd>
    </div>
  );
}
