"use client";
import type { ImportJob } from "@/client/api-types";
import { summaryLine } from "@/lib/imports/schemas";
import { Stat } from "@/components/ui/stat";

// What a job did (or, for a dry run, would do): the figures, the same split as a bar,
// and the first problems naming their record and field.

export function JobCounts({ job }: { job: ImportJob }) {
  const c = job.counts;
  const written = c.conversations + c.memories;
  const parts = [
    { key: "new", label: job.dry_run ? "would import" : "imported", n: written, color: "bg-emerald-500" },
    { key: "skipped", label: "skipped (already imported)", n: c.skipped, color: "bg-zinc-400 dark:bg-zinc-500" },
    { key: "failed", label: "failed", n: c.failed, color: "bg-red-500" },
  ];
  const total = Math.max(1, parts.reduce((s, p) => s + p.n, 0));
  return (
    <div className="space-y-3">
      <dl className="grid grid-cols-2 gap-2 text-sm sm:grid-cols-5">
        <Stat label="Conversations" value={String(c.conversations)} testId="count-conversations" />
        <Stat label="Turns" value={String(c.turns)} testId="count-turns" />
        <Stat label="Memories" value={String(c.memories)} testId="count-memories" />
        <Stat label="Skipped" value={String(c.skipped)} testId="count-skipped" />
        <Stat label="Failed" value={String(c.failed)} testId="count-failed" warn={c.failed > 0} />
      </dl>
      <div>
        <div className="flex h-2.5 overflow-hidden rounded-full bg-zinc-100 dark:bg-zinc-800" role="img" aria-label={`Records: ${parts.map((p) => `${p.n} ${p.label}`).join(", ")}`}>
          {parts.map((p) => (p.n ? <div key={p.key} className={p.color} style={{ width: `${(p.n / total) * 100}%` }} /> : null))}
        </div>
        <ul className="mt-1.5 flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-600 dark:text-zinc-400">
          {parts.map((p) => (
            <li key={p.key} className="flex items-center gap-1.5">
              <span aria-hidden className={`size-2 rounded-full ${p.color}`} />
              {p.n} {p.label}
            </li>
          ))}
        </ul>
      </div>
      <p className="font-mono text-xs text-zinc-700 dark:text-zinc-300" data-testid="summary-line">
        {summaryLine(c, job.dry_run, job.unrepresented)}
      </p>
      <Unrepresented job={job} />
    </div>
  );
}

/** What the source held that Memscope keeps only in a turn's metadata or leaves out, by reason: nothing is lost without a word. */
function Unrepresented({ job }: { job: ImportJob }) {
  const kept = Object.entries(job.unrepresented ?? {})
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => a.localeCompare(b));
  if (!kept.length) return null;
  return (
    <div className="text-xs text-zinc-700 dark:text-zinc-300" data-testid="unrepresented">
      <p className="font-medium">Kept only in metadata or left out</p>
      <ul className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
        {kept.map(([reason, n]) => (
          <li key={reason}>
            <span className="font-mono">{reason}</span>: {n}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function JobProblems({ job }: { job: ImportJob }) {
  if (!job.problems.length && !job.error) return null;
  return (
    <div className="rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm dark:border-amber-900/60 dark:bg-amber-950/30" data-testid="problems">
      {job.error && <p className="mb-2 font-medium text-red-700 dark:text-red-300">Stopped: {job.error}</p>}
      {job.problems.length > 0 && (
        <>
          <p className="font-medium text-amber-900 dark:text-amber-200">
            {job.counts.failed} {job.counts.failed === 1 ? "record" : "records"} not imported, each defect named{job.problems.length >= 50 ? ` (first ${job.problems.length} defects shown)` : ""}
          </p>
          <ul className="mt-1.5 space-y-1">
            {job.problems.map((p, i) => (
              <li key={i} className="text-amber-900 dark:text-amber-200">
                <span className="font-mono text-xs">{p.record}</span>
                {p.field && (
                  <>
                    {" "}
                    <span className="rounded bg-amber-100 px-1 font-mono text-xs dark:bg-amber-900/50">{p.field}</span>
                  </>
                )}
                : {p.message}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

export function ProgressBar({ job }: { job: ImportJob }) {
  const total = Math.max(job.total, job.processed);
  const pct = total ? Math.round((job.processed / total) * 100) : job.status === "done" ? 100 : 0;
  return (
    <div>
      <div className="mb-1 flex justify-between text-xs text-zinc-600 dark:text-zinc-400">
        <span>
          {job.processed} of {total} records
        </span>
        <span>{pct}%</span>
      </div>
      <div
        role="progressbar"
        aria-label={job.dry_run ? "Dry run progress" : "Import progress"}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
        data-testid="progress"
        className="h-2 overflow-hidden rounded-full bg-zinc-100 dark:bg-zinc-800"
      >
        <div className="h-full bg-indigo-600 transition-[width] duration-200" style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}
