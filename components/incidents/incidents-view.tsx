"use client";
import { useSearchParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { useCanWrite } from "@/client/hooks/auth";
import { useIncidents, useIncidentSummary } from "@/client/hooks/incidents";
import { formatInt } from "@/client/ui/format";
import { encodeIncidentQuery, isFiltered, NO_FILTERS, parseIncidentQuery, STATUS_LABEL, type IncidentFilters } from "@/client/ui/incident-model";
import { Button } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";
import { READ_ONLY_HINT } from "@/components/ui/write-button";
import { EmptyState, ErrorBox, Spinner } from "@/components/ui/states";
import { IncidentCard } from "./incident-card";
import { IncidentChart } from "./incident-chart";
import { IncidentFiltersBar } from "./incident-filters";
import { PrecisionCard } from "./precision-card";

/** /incidents: the turns where memory failed, found by rules over every turn; triage them here. */
export function IncidentsView() {
  const params = useSearchParams();
  const [filters, setFilters] = useState<IncidentFilters>(() => parseIncidentQuery(new URLSearchParams(params.toString())));

  // Mirror filters into the URL so Back from a replay restores the same list.
  useEffect(() => {
    const next = encodeIncidentQuery(filters);
    if (next !== window.location.search.replace(/^\?/, "")) window.history.replaceState(null, "", next ? `?${next}` : window.location.pathname);
  }, [filters]);

  const summary = useIncidentSummary();
  const list = useIncidents(filters);
  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.data) ?? [], [list.data]);
  const filtered = isFiltered(filters);
  const canWrite = useCanWrite();
  const refreshing = list.isFetching && !list.isFetchingNextPage && !list.isLoading;

  return (
    <main className="mx-auto w-full max-w-7xl px-4 py-6 sm:px-6">
      <div className="mb-5">
        <h1 className="text-xl font-semibold tracking-tight">Memory incidents</h1>
        <p className="mt-0.5 max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
          Turns where memory failed, found on every turn as it arrives: a memory that existed but stayed out of the prompt, a user repeating themselves, a correction of a stale memory, a reference to a dropped turn, a prompt over the model&apos;s window.
        </p>
      </div>

      <div className="grid gap-4 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        {summary.isError ? (
          <div className="lg:col-span-2">
            <ErrorBox title="Could not load the incident counts" error={summary.error} onRetry={() => summary.refetch()} />
          </div>
        ) : !summary.data ? (
          <>
            <Skeleton className="h-64" />
            <Skeleton className="h-64" />
          </>
        ) : (
          <>
            <IncidentChart summary={summary.data} onKind={(kind) => setFilters((f) => ({ ...f, kind }))} />
            <PrecisionCard summary={summary.data} />
          </>
        )}
      </div>

      <section aria-labelledby="incident-list-h" className="mt-6">
        <div className="mb-3 flex flex-wrap items-end justify-between gap-2">
          <h2 id="incident-list-h" className="text-base font-semibold">
            {filters.status === "all" ? "All incidents" : `${STATUS_LABEL[filters.status]} incidents`}
          </h2>
          <p className="flex items-center gap-2 text-xs text-zinc-600 tabular-nums dark:text-zinc-400" aria-live="polite" data-testid="incident-count">
            {refreshing && <Spinner className="text-indigo-500" />}
            {list.data && `${formatInt(rows.length)}${list.hasNextPage ? "+" : ""} shown`}
          </p>
        </div>
        {!canWrite && (
          <p className="mb-3 text-xs text-zinc-600 dark:text-zinc-400" data-testid="read-only-note">
            {READ_ONLY_HINT}: you can read incidents and replay their turns, not change their status or make eval cases.
          </p>
        )}
        <IncidentFiltersBar filters={filters} onChange={(patch) => setFilters((f) => ({ ...f, ...patch }))} />

        <div className="mt-4">
          {list.isError && !list.data ? (
            <ErrorBox title="Could not load incidents" error={list.error} onRetry={() => list.refetch()} />
          ) : list.isLoading ? (
            <div className="space-y-3" aria-busy="true">
              {[0, 1, 2].map((i) => (
                <Skeleton key={i} className="h-36" />
              ))}
            </div>
          ) : rows.length === 0 ? (
            <div className="rounded-lg border border-dashed border-zinc-300 bg-white dark:border-zinc-700 dark:bg-zinc-900" data-testid="incidents-empty">
              <EmptyState title={filtered ? "No incidents match these filters" : "No open incidents"}>
                {filtered ? (
                  <button type="button" className="mt-1 rounded text-indigo-700 hover:underline dark:text-indigo-300" onClick={() => setFilters(NO_FILTERS)}>
                    Show open incidents of every kind
                  </button>
                ) : (
                  <p className="max-w-md">
                    Every turn is checked as it arrives; nothing has been found that needs a look. Older turns are checked by a scan (POST /api/v1/incidents/scan).
                  </p>
                )}
              </EmptyState>
            </div>
          ) : (
            <ol className="space-y-3" data-testid="incident-list">
              {rows.map((incident) => (
                <li key={incident.id}>
                  <IncidentCard incident={incident} />
                </li>
              ))}
            </ol>
          )}
        </div>

        {list.isFetchNextPageError && (
          <div className="mt-3">
            <ErrorBox title="Could not load more" error={list.error} />
          </div>
        )}
        {list.hasNextPage && (
          <div className="mt-4 flex justify-center">
            <Button onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage} data-testid="load-more">
              {list.isFetchingNextPage && <Spinner />}
              Load more
            </Button>
          </div>
        )}
      </section>
    </main>
  );
}
