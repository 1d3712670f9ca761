"use client";
import { summaryLine } from "@/lib/imports/schemas";
import { useImportJobs } from "@/client/hooks/imports";
import { relativeTime } from "@/client/ui/format";
import { Badge } from "@/components/ui/badge";
import { ErrorBox } from "@/components/ui/states";

/** The newest jobs: what ran when, and what it did. */
export function RecentImports() {
  const jobs = useImportJobs();
  if (jobs.isError) return <ErrorBox title="Recent imports could not be loaded" error={jobs.error} onRetry={() => void jobs.refetch()} />;
  if (!jobs.data?.length) return null;
  return (
    <section aria-labelledby="recent-h">
      <h2 id="recent-h" className="mb-2 text-sm font-semibold">
        Recent imports
      </h2>
      <ul className="divide-y divide-zinc-200 rounded-xl border border-zinc-200 text-sm dark:divide-zinc-800 dark:border-zinc-800" data-testid="recent-imports">
        {jobs.data.map((j) => (
          <li key={j.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2">
            {/* The whole file name, wrapped: cut to "conv…" it could not tell two exports apart. */}
            <span className="min-w-0 flex-1 basis-48 font-medium break-all" title={j.label} data-testid="import-label">
              {j.label}
            </span>
            {j.dry_run && <Badge tone="accent">dry run</Badge>}
            <Badge tone={j.status === "failed" ? "red" : j.status === "done" ? "neutral" : "amber"}>{j.status}</Badge>
            <span className="w-full font-mono text-xs text-zinc-600 sm:w-auto dark:text-zinc-400">{summaryLine(j.counts, j.dry_run, j.unrepresented)}</span>
            {j.actor && <span className="text-xs text-zinc-600 dark:text-zinc-400">by {j.actor}</span>}
            <time className="text-xs text-zinc-500" dateTime={j.created_at}>
              {relativeTime(j.created_at)}
            </time>
          </li>
        ))}
      </ul>
    </section>
  );
}
