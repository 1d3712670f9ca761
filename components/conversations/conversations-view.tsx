"use client";
import { useSearchParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { STATUS_FILTERS, useConversationList, type ListFilters, type StatusFilter } from "@/client/hooks/conversations";
import { useDebouncedValue } from "@/client/ui/use-debounced-value";
import { formatInt } from "@/client/ui/format";
import { Button } from "@/components/ui/button";
import { EmptyState, ErrorBox, Spinner } from "@/components/ui/states";
import { ConversationFilters } from "./conversation-filters";
import { ConversationTable } from "./conversation-table";

export function ConversationsView() {
  const params = useSearchParams();
  const [search, setSearch] = useState(() => params.get("q") ?? "");
  const [filters, setFilters] = useState<Omit<ListFilters, "q">>(() => {
    const status = params.get("status") as StatusFilter | null;
    return { app_id: params.get("app") ?? "", user_id: params.get("user") ?? "", status: status && STATUS_FILTERS.includes(status) ? status : "all" };
  });
  const q = useDebouncedValue(search, 250);
  const listFilters = useMemo(() => ({ ...filters, q }), [filters, q]);

  // Mirror filters into the URL so Back from a conversation restores the same list.
  useEffect(() => {
    const sp = new URLSearchParams();
    if (q.trim()) sp.set("q", q.trim());
    if (listFilters.app_id) sp.set("app", listFilters.app_id);
    if (listFilters.user_id) sp.set("user", listFilters.user_id);
    if (listFilters.status !== "all") sp.set("status", listFilters.status);
    const next = sp.toString();
    if (next !== window.location.search.replace(/^\?/, "")) window.history.replaceState(null, "", next ? `?${next}` : window.location.pathname);
  }, [q, listFilters]);

  const list = useConversationList(listFilters);
  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.data) ?? [], [list.data]);
  const filtered = q.trim() !== "" || filters.app_id !== "" || filters.user_id !== "" || filters.status !== "all";
  // Stale rows stay visible while new filters load; a thin spinner says so.
  const refreshing = list.isFetching && !list.isFetchingNextPage && !list.isLoading;

  return (
    <main className="mx-auto w-full max-w-7xl px-4 py-6 sm:px-6">
      <div className="mb-4 flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">Conversations</h1>
          <p className="mt-0.5 text-sm text-zinc-500 dark:text-zinc-400">
            Pick a conversation to see its message tree and what the model would remember.
          </p>
        </div>
        <p className="flex items-center gap-2 text-xs text-zinc-500 tabular-nums dark:text-zinc-400" aria-live="polite">
          {refreshing && <Spinner className="text-indigo-500" />}
          {list.data && `${formatInt(rows.length)}${list.hasNextPage ? "+" : ""} shown`}
        </p>
      </div>

      <ConversationFilters
        filters={listFilters}
        search={search}
        onSearch={setSearch}
        onChange={(patch) => setFilters((f) => ({ ...f, ...patch }))}
      />

      <div className="mt-4">
        {list.isError && !list.data ? (
          <ErrorBox title="Could not load conversations" error={list.error} onRetry={() => list.refetch()} />
        ) : !list.isLoading && rows.length === 0 ? (
          <div className="rounded-lg border border-dashed border-zinc-300 bg-white dark:border-zinc-700 dark:bg-zinc-900" data-testid="conversations-empty">
            <EmptyState title={filtered ? "No conversations match" : "No conversations yet"}>
              {filtered ? (
                <button
                  type="button"
                  className="mt-1 rounded text-indigo-600 hover:underline dark:text-indigo-400"
                  onClick={() => {
                    setSearch("");
                    setFilters({ app_id: "", user_id: "", status: "all" });
                  }}
                >
                  Clear filters
                </button>
              ) : (
                <p>Create one with POST /api/v1/conversations.</p>
              )}
            </EmptyState>
          </div>
        ) : (
          <ConversationTable rows={rows} loading={list.isLoading} />
        )}
      </div>

      {list.isFetchNextPageError && <div className="mt-3"><ErrorBox title="Could not load more" error={list.error} /></div>}
      {list.hasNextPage && (
        <div className="mt-4 flex justify-center">
          <Button onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage} data-testid="load-more">
            {list.isFetchingNextPage && <Spinner />}
            Load more
          </Button>
        </div>
      )}
    </main>
  );
}
