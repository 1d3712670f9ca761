"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import type { Conversation } from "@/client/api-types";
import { absoluteTime, formatCompact, formatInt, relativeTime } from "@/client/ui/format";
import { StatusBadge } from "@/components/ui/badge";
import { Skeleton } from "@/components/ui/skeleton";
import { ArchiveButton } from "./archive-button";

const th = "px-3 py-2 text-left whitespace-nowrap text-[11px] font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400";
const num = "px-3 py-1.5 text-right tabular-nums";
const cell = "px-3 py-1.5";

export function ConversationTable({ rows, loading }: { rows: Conversation[]; loading: boolean }) {
  // Token bars are relative to the largest conversation currently on screen.
  const maxTokens = rows.reduce((m, r) => Math.max(m, r.token_count), 0);
  return (
    // `relative` keeps the sr-only header inside this scroller; below 960 px the table scrolls here, not the page.
    <div className="relative max-w-full overflow-x-auto rounded-lg border border-zinc-200 bg-white shadow-xs dark:border-zinc-800 dark:bg-zinc-900" data-testid="conversation-table-scroller">
      {/* Fixed columns: widths never shift as relative times or counts change. */}
      {/* Sized for what they hold ("analytics-copilot", "li.wei@example.com", "11 minutes ago") from 1280 px on;
          below that Name, the column people scan, keeps 160 px or more and the others give way first. */}
      <table className="w-full min-w-[960px] table-fixed border-collapse text-sm">
        <colgroup>
          <col />
          <col className="w-32 xl:w-40" />
          <col className="w-36 xl:w-44" />
          <col className="w-16" />
          <col className="w-20" />
          <col className="w-24 xl:w-28" />
          <col className="w-28 xl:w-32" />
          <col className="w-20" />
          <col className="w-24" />
        </colgroup>
        <thead className="border-b border-zinc-200 bg-zinc-50/80 dark:border-zinc-800 dark:bg-zinc-900">
          <tr>
            <th scope="col" className={th}>Name</th>
            <th scope="col" className={th}>App</th>
            <th scope="col" className={th}>User</th>
            <th scope="col" className={`${th} text-right`}>Turns</th>
            <th scope="col" className={`${th} text-right`}>Branches</th>
            <th scope="col" className={th}>Tokens</th>
            <th scope="col" className={th}>Updated</th>
            <th scope="col" className={th}>Status</th>
            <th scope="col" className={th}><span className="sr-only">Actions</span></th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
          {loading
            ? Array.from({ length: 6 }, (_, i) => <SkeletonRow key={i} />)
            : rows.map((c) => <ConversationRow key={c.id} c={c} maxTokens={maxTokens} />)}
        </tbody>
      </table>
    </div>
  );
}

function ConversationRow({ c, maxTokens }: { c: Conversation; maxTokens: number }) {
  const pct = maxTokens > 0 ? Math.max(2, (c.token_count / maxTokens) * 100) : 0;
  const router = useRouter();
  return (
    <tr
      data-testid="conversation-row"
      data-id={c.id}
      // The whole row opens the conversation; the name stays the link for keyboards and new tabs.
      onClick={(e) => {
        if ((e.target as HTMLElement).closest("a, button, input, select")) return;
        if (window.getSelection()?.toString()) return;
        router.push(`/conversations/${c.id}`);
      }}
      className={`group h-10 cursor-pointer hover:bg-zinc-50 dark:hover:bg-zinc-800/40 ${c.status === "archived" ? "text-zinc-500 dark:text-zinc-400" : ""}`}
    >
      <td className={`${cell} min-w-0`}>
        <Link href={`/conversations/${c.id}`} className="block truncate rounded font-medium text-zinc-900 hover:text-indigo-600 hover:underline dark:text-zinc-100 dark:hover:text-indigo-400">
          {c.name || <span className="text-zinc-500 italic">Untitled</span>}
        </Link>
      </td>
      <td className={`${cell} truncate`} title={c.app_id}>
        <span className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-xs whitespace-nowrap text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300">{c.app_id}</span>
      </td>
      <td className="truncate px-3 py-1.5 text-zinc-600 dark:text-zinc-400" title={c.end_user_id ?? undefined}>
        {c.end_user_id ?? <span className="text-zinc-500">—</span>}
      </td>
      <td className={num}>{formatInt(c.turn_count)}</td>
      <td className={num}>{c.branch_count > 1 ? <span className="font-medium text-indigo-600 dark:text-indigo-400">{formatInt(c.branch_count)}</span> : formatInt(c.branch_count)}</td>
      <td className={cell}>
        <div className="flex items-center gap-2" title={`${formatInt(c.token_count)} tokens (o200k_base)`}>
          <span className="w-12 shrink-0 text-right tabular-nums">{formatCompact(c.token_count)}</span>
          <span aria-hidden className="h-1.5 flex-1 overflow-hidden rounded-full bg-zinc-100 dark:bg-zinc-800">
            <span className="block h-full rounded-full bg-indigo-500/70" style={{ width: `${pct}%` }} />
          </span>
        </div>
      </td>
      <td className="truncate px-3 py-1.5 whitespace-nowrap text-zinc-600 tabular-nums dark:text-zinc-400">
        <time dateTime={c.updated_at} title={absoluteTime(c.updated_at)}>
          {relativeTime(c.updated_at)}
        </time>
      </td>
      <td className={cell}>
        <StatusBadge status={c.status} />
      </td>
      <td className={`${cell} text-right`}>
        <ArchiveButton conversation={c} />
      </td>
    </tr>
  );
}

function SkeletonRow() {
  return (
    <tr aria-hidden>
      <td className="px-3 py-3"><Skeleton className="h-4 w-56" /><Skeleton className="mt-1.5 h-3 w-40" /></td>
      <td className="px-3 py-3"><Skeleton className="h-4 w-24" /></td>
      <td className="px-3 py-3"><Skeleton className="h-4 w-28" /></td>
      <td className="px-3 py-3"><Skeleton className="ml-auto h-4 w-8" /></td>
      <td className="px-3 py-3"><Skeleton className="ml-auto h-4 w-6" /></td>
      <td className="px-3 py-3"><Skeleton className="h-4 w-36" /></td>
      <td className="px-3 py-3"><Skeleton className="h-4 w-20" /></td>
      <td className="px-3 py-3"><Skeleton className="h-4 w-14" /></td>
      <td className="px-3 py-3"><Skeleton className="ml-auto h-7 w-16" /></td>
    </tr>
  );
}
