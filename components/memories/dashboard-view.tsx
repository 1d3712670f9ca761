"use client";
import Link from "next/link";
import type { MemoryType } from "@/client/api-types";
import { useEmbeddingStatus, useMetrics } from "@/client/hooks/memory-dashboard";
import { MEMORY_TYPE_LIST, TYPE_STYLE } from "@/client/ui/memory-format";
import { absoluteTime, formatInt, plural, relativeTime } from "@/client/ui/format";
import { Badge } from "@/components/ui/badge";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorBox } from "@/components/ui/states";
import { Card } from "./card";
import { MemoriesShell, useSelectedUser } from "./memories-shell";
import { TypeBadge } from "./type-badge";

function Bars({ rows, testId }: { rows: { label: React.ReactNode; value: number; color: string; key: string }[]; testId: string }) {
  const max = Math.max(1, ...rows.map((r) => r.value));
  return (
    <ul className="flex flex-col gap-2" data-testid={testId}>
      {rows.map((r) => (
        <li key={r.key} className="grid grid-cols-[96px_1fr_48px] items-center gap-3 text-sm" data-key={r.key} data-value={r.value}>
          <span className="truncate text-xs text-zinc-600 dark:text-zinc-400">{r.label}</span>
          <span className="h-5 overflow-hidden rounded bg-zinc-100 dark:bg-zinc-800">
            <span className={`block h-full rounded ${r.color} transition-[width] duration-500`} style={{ width: `${(r.value / max) * 100}%` }} />
          </span>
          <span className="text-right tabular-nums">{formatInt(r.value)}</span>
        </li>
      ))}
    </ul>
  );
}

function Stat({ label, value, hint, testId, dataValue }: { label: string; value: React.ReactNode; hint?: React.ReactNode; testId?: string; dataValue?: number }) {
  return (
    <div className="rounded-lg border border-zinc-200 bg-white p-4 shadow-xs dark:border-zinc-800 dark:bg-zinc-900" data-testid={testId} data-value={dataValue}>
      <p className="text-xs text-zinc-500 dark:text-zinc-400">{label}</p>
      <p className="mt-1 text-2xl font-semibold tracking-tight tabular-nums">{value}</p>
      {hint && <div className="mt-1.5 text-xs text-zinc-500 dark:text-zinc-400">{hint}</div>}
    </div>
  );
}

export function DashboardView() {
  const { user, setUser } = useSelectedUser();
  const metrics = useMetrics(user);
  const m = metrics.data;

  return (
    <MemoriesShell user={user} onUser={setUser} title="Dashboard" subtitle="How much this user's agents remember, and how retrieval is doing.">
      <main className="mx-auto flex w-full max-w-7xl flex-col gap-5 px-4 py-4 sm:px-6">
        <EmbeddingPanel />
        {metrics.isError ? (
          <ErrorBox title="Could not load metrics" error={metrics.error} onRetry={() => metrics.refetch()} />
        ) : !m ? (
          <div className="grid gap-4 sm:grid-cols-4">
            {Array.from({ length: 4 }, (_, i) => (
              <Skeleton key={i} className="h-24" />
            ))}
          </div>
        ) : (
          <>
            <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
              <Stat label="Memories" value={formatInt(m.totals.total)} hint={`${formatInt(m.totals.by_status.active ?? 0)} active · ${formatInt(m.totals.by_status.archived ?? 0)} archived`} testId="stat-total" />
              <Stat
                label="Average importance (active)"
                value={m.average_importance === null ? "—" : m.average_importance.toFixed(2)}
                hint={
                  <span className="block h-1.5 overflow-hidden rounded-full bg-zinc-100 dark:bg-zinc-800">
                    <span className="block h-full rounded-full bg-indigo-500" style={{ width: `${(m.average_importance ?? 0) * 100}%` }} />
                  </span>
                }
              />
              <Stat label="Retrievals" value={formatInt(m.retrieval.count)} hint="searches logged (incl. playground)" testId="stat-retrievals" dataValue={m.retrieval.count} />
              <Stat label="Retrieval latency" value={<LatencyValue p50={m.retrieval.p50_ms} p99={m.retrieval.p99_ms} />} hint={<LatencyBars p50={m.retrieval.p50_ms} p99={m.retrieval.p99_ms} />} testId="stat-latency" />
            </div>
            <div className="grid gap-5 lg:grid-cols-2">
              <Card title="By type">
                <Bars
                  testId="chart-by-type"
                  rows={[...new Set([...MEMORY_TYPE_LIST, ...Object.keys(m.totals.by_type)])].map((t) => ({
                    key: t,
                    label: TYPE_STYLE[t as MemoryType] ? <TypeBadge type={t as MemoryType} /> : t,
                    value: m.totals.by_type[t] ?? 0,
                    color: TYPE_STYLE[t as MemoryType]?.bar ?? "bg-zinc-400",
                  }))}
                />
              </Card>
              <Card title="By status">
                <Bars
                  testId="chart-by-status"
                  rows={Object.entries({ active: 0, archived: 0, ...m.totals.by_status }).map(([k, v]) => ({ key: k, label: k, value: v, color: k === "active" ? "bg-emerald-500" : "bg-zinc-400 dark:bg-zinc-600" }))}
                />
              </Card>
              <Card title="Most retrieved memories">
                {m.most_accessed.length === 0 ? (
                  <p className="text-sm text-zinc-500">No memory has been retrieved yet.</p>
                ) : (
                  <ol className="flex flex-col gap-2" data-testid="most-accessed">
                    {m.most_accessed.map((x, i) => {
                      const max = m.most_accessed[0]?.access_count || 1;
                      return (
                        <li
                          key={x.memory.id}
                          className="grid grid-cols-[20px_1fr_120px] items-center gap-3 text-sm"
                          data-testid="most-accessed-item"
                          data-id={x.memory.id}
                          data-status={x.memory.status}
                        >
                          <span className="text-right font-mono text-xs text-zinc-500">{i + 1}</span>
                          <Link href={`/memories/${x.memory.id}?user=${encodeURIComponent(user)}`} className="flex min-w-0 items-center gap-2 hover:text-indigo-700 dark:hover:text-indigo-300">
                            <TypeBadge type={x.memory.memory_type} />
                            {/* Its retrievals still count, but an archived (or merged-away) memory is no longer retrieved: say so. */}
                            {x.memory.status !== "active" && <Badge tone="neutral">{x.memory.status}</Badge>}
                            <span className={`truncate ${x.memory.status !== "active" ? "text-zinc-500 dark:text-zinc-400" : ""}`}>{x.memory.content}</span>
                          </Link>
                          <span className="flex items-center gap-2">
                            <span aria-hidden className="h-2 flex-1 overflow-hidden rounded-full bg-zinc-100 dark:bg-zinc-800">
                              <span className="block h-full rounded-full bg-indigo-500" style={{ width: `${(x.access_count / max) * 100}%` }} />
                            </span>
                            <span className="w-8 text-right text-xs tabular-nums" data-testid="most-accessed-count">{formatInt(x.access_count)}</span>
                          </span>
                        </li>
                      );
                    })}
                  </ol>
                )}
              </Card>
              <Card title="Recent retrievals">
                {m.recent_retrievals.length === 0 ? (
                  <p className="text-sm text-zinc-500">No searches yet. Try the playground with dry run off.</p>
                ) : (
                  <ul className="divide-y divide-zinc-100 dark:divide-zinc-800" data-testid="recent-retrievals">
                    {m.recent_retrievals.map((r) => (
                      <li key={r.id} className="grid grid-cols-[1fr_auto_auto] items-center gap-3 py-1.5 text-sm">
                        <span className="truncate" title={r.query}>“{r.query}”</span>
                        <span className="text-xs text-zinc-500 tabular-nums">{plural(r.result_count, "hit")} · {r.latency_ms.toFixed(0)} ms</span>
                        <time className="w-24 text-right text-xs text-zinc-500" dateTime={r.created_at} title={absoluteTime(r.created_at)}>
                          {relativeTime(r.created_at)}
                        </time>
                      </li>
                    ))}
                  </ul>
                )}
              </Card>
            </div>
          </>
        )}
      </main>
    </MemoriesShell>
  );
}

function LatencyValue({ p50, p99 }: { p50: number | null; p99: number | null }) {
  if (p50 === null) return <>—</>;
  return (
    <span>
      {p50.toFixed(0)}
      <span className="text-sm font-normal text-zinc-500"> ms p50 · </span>
      {p99 === null ? "—" : p99.toFixed(0)}
      <span className="text-sm font-normal text-zinc-500"> ms p99</span>
    </span>
  );
}

function LatencyBars({ p50, p99 }: { p50: number | null; p99: number | null }) {
  if (p50 === null || p99 === null) return <span>no searches yet</span>;
  const max = Math.max(p99, 1);
  return (
    <svg viewBox="0 0 100 14" preserveAspectRatio="none" className="h-3.5 w-full" role="img" aria-label={`p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms`}>
      <rect x="0" y="1" width="100" height="12" rx="3" className="fill-zinc-100 dark:fill-zinc-800" />
      <rect x="0" y="1" width={(p99 / max) * 100} height="12" rx="3" className="fill-indigo-300 dark:fill-indigo-800" />
      <rect x="0" y="1" width={Math.max(1.5, (p50 / max) * 100)} height="12" rx="3" className="fill-indigo-600 dark:fill-indigo-400" />
    </svg>
  );
}

function EmbeddingPanel() {
  const status = useEmbeddingStatus();
  const s = status.data;
  const job = s?.job;
  const running = job && (job.status === "running" || job.status === "pending");
  return (
    <div className="rounded-lg border border-zinc-200 bg-white px-4 py-3 shadow-xs dark:border-zinc-800 dark:bg-zinc-900" data-testid="embedding-status">
      {status.isError ? (
        <p className="text-sm text-zinc-500">Embedding status unavailable: {status.error.message}</p>
      ) : !s ? (
        <Skeleton className="h-5 w-80" />
      ) : (
        <div className="flex flex-wrap items-center gap-x-5 gap-y-2 text-sm">
          <span>
            <span className="text-zinc-500">Embedding model </span>
            <span className="font-mono font-medium">{s.active_model.model}</span>
            <span className="text-xs text-zinc-500"> · {s.active_model.dimensions} dims</span>
          </span>
          <Badge tone={s.active_model.kind === "lexical" ? "amber" : "accent"}>{s.active_model.kind}</Badge>
          {s.configured_model && s.configured_model.model !== s.active_model.model && (
            <span className="text-xs text-amber-700 dark:text-amber-400">
              configured: <span className="font-mono">{s.configured_model.model}</span> (re-embedding needed)
            </span>
          )}
          {s.configuration_error && <span className="text-xs text-red-600 dark:text-red-400">{s.configuration_error}</span>}
          {s.active_model.kind === "lexical" && <span className="text-xs text-zinc-500">matches words and word pieces, not meaning</span>}
          {job && (
            <div className="flex min-w-64 flex-1 items-center gap-3" data-testid="embedding-job" data-status={job.status}>
              <span className="text-xs text-zinc-500">
                Re-embedding <span className="font-mono">{job.model}</span>: {job.status}
              </span>
              <div role="progressbar" aria-valuemin={0} aria-valuemax={job.total} aria-valuenow={job.done} className="h-2 flex-1 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800">
                <div className={`h-full rounded-full ${running ? "bg-indigo-500" : job.status === "failed" ? "bg-red-500" : "bg-emerald-500"} transition-[width]`} style={{ width: `${job.total ? (job.done / job.total) * 100 : 0}%` }} />
              </div>
              <span className="text-xs tabular-nums">
                {formatInt(job.done)} / {formatInt(job.total)}
              </span>
            </div>
          )}
        </div>
      )}
    </div>
  );
}
