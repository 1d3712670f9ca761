"use client";
import Link from "next/link";
import type { Conversation } from "@/client/api-types";
import { absoluteTime, formatInt } from "@/client/ui/format";
import { StatusBadge } from "@/components/ui/badge";
import { Skeleton } from "@/components/ui/skeleton";
import { ArchiveButton } from "@/components/conversations/archive-button";

export function ConversationHeader({ conversation: c }: { conversation: Conversation | undefined }) {
  return (
    <header className="border-b border-zinc-200 bg-white px-4 py-3 sm:px-6 dark:border-zinc-800 dark:bg-zinc-900/40">
      <nav aria-label="Breadcrumb" className="mb-1 text-xs">
        <Link href="/conversations" className="rounded text-zinc-500 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100">
          ← Conversations
        </Link>
      </nav>
      {c ? (
        <div>
          <div className="flex min-w-0 items-center gap-2">
            <h1 className="truncate text-lg font-semibold tracking-tight" data-testid="conversation-name">
              {c.name || <span className="text-zinc-500 italic">Untitled</span>}
            </h1>
            <StatusBadge status={c.status} />
            <div className="ml-auto pl-2">
              <ArchiveButton conversation={c} size="md" />
            </div>
          </div>
          <dl className="mt-1 flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-zinc-500 dark:text-zinc-400">
            <Meta label="App"><span className="font-mono text-zinc-700 dark:text-zinc-300">{c.app_id}</span></Meta>
            <Meta label="User"><span className="text-zinc-700 dark:text-zinc-300">{c.end_user_id ?? "—"}</span></Meta>
            <Meta label="Turns"><span className="tabular-nums text-zinc-700 dark:text-zinc-300">{formatInt(c.turn_count)}</span></Meta>
            <Meta label="Branches"><span className="tabular-nums text-zinc-700 dark:text-zinc-300">{formatInt(c.branch_count)}</span></Meta>
            <Meta label="Tokens"><span className="tabular-nums text-zinc-700 dark:text-zinc-300">{formatInt(c.token_count)}</span></Meta>
            <Meta label="Mode"><span className="text-zinc-700 dark:text-zinc-300">{c.mode}</span></Meta>
            <Meta label="Created"><span className="text-zinc-700 dark:text-zinc-300">{absoluteTime(c.created_at)}</span></Meta>
          </dl>
        </div>
      ) : (
        <div className="flex items-center gap-3 py-1">
          <Skeleton className="h-6 w-72" />
          <Skeleton className="h-4 w-96" />
        </div>
      )}
    </header>
  );
}

function Meta({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex items-center gap-1">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
