"use client";
import type { MemoryAccess as Access } from "@/client/api-types";
import { absoluteTime, relativeTime } from "@/client/ui/format";
import { EmptyState } from "@/components/ui/states";

/** "Retrieved by these queries": each retrieval with the rank and a score bar. */
export function AccessLog({ accesses }: { accesses: Access[] }) {
  if (!accesses.length)
    return (
      <EmptyState title="Never retrieved yet">
        Searches that return this memory (not dry runs in the playground) show up here.
      </EmptyState>
    );
  const max = Math.max(...accesses.map((a) => a.score), 0.0001);
  return (
    <ul className="divide-y divide-zinc-100 dark:divide-zinc-800" data-testid="access-log">
      {accesses.map((a) => (
        <li key={`${a.retrieval_id}`} className="grid grid-cols-[1fr_160px] items-center gap-3 py-2 text-sm" data-testid="access-item">
          <div className="min-w-0">
            <p className="truncate" title={a.query}>
              “{a.query}”
            </p>
            <p className="text-[11px] text-zinc-500 tabular-nums dark:text-zinc-400">
              rank #{a.rank} · cosine {a.cosine.toFixed(2)} · decay {a.time_decay.toFixed(2)} · importance {a.importance.toFixed(2)} ·{" "}
              <time dateTime={a.created_at} title={absoluteTime(a.created_at)}>
                {relativeTime(a.created_at)}
              </time>
            </p>
          </div>
          <div className="flex items-center gap-2" title={`score ${a.score.toFixed(3)}`}>
            <span aria-hidden className="h-2 flex-1 overflow-hidden rounded-full bg-zinc-100 dark:bg-zinc-800">
              <span className="block h-full rounded-full bg-indigo-500" style={{ width: `${Math.max(3, (a.score / max) * 100)}%` }} />
            </span>
            <span className="w-10 text-right text-xs tabular-nums">{a.score.toFixed(2)}</span>
          </div>
        </li>
      ))}
    </ul>
  );
}
