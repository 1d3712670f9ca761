"use client";
import { WriteButton } from "@/components/ui/write-button";
import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useState } from "react";
import type { Memory, MemoryType } from "@/client/api-types";
import { MEMORY_STATUS_FILTERS, useMemoryList, useMemoryUsers, type MemoryFilters, type MemorySort, type MemoryStatusFilter } from "@/client/hooks/memories";
import { useBulk, useBulkUndo } from "@/client/hooks/memory-curation";
import { MEMORY_TYPE_LIST } from "@/client/ui/memory-format";
import { useDebouncedValue } from "@/client/ui/use-debounced-value";
import { formatInt, plural } from "@/client/ui/format";
import { ApiError, errorMessage } from "@/client/api-error";
import { Button } from "@/components/ui/button";
import { EmptyState, ErrorBox, Spinner } from "@/components/ui/states";
import { UserPrivacyActions } from "@/components/privacy/user-privacy-actions";
import { MemoriesShell, useSelectedUser } from "./memories-shell";
import { MemoryFiltersBar } from "./memory-filters";
import { MemoryTable } from "./memory-table";
import { MergeDialog } from "./merge-dialog";
import { useToast } from "./toast";
import { parseReplayRef, replayHref, replayRef } from "@/client/ui/replay-url";
import Link from "next/link";

const SORTS: MemorySort[] = ["updated_at", "created_at", "importance_score", "access_count", "last_accessed_at"];

function readFilters(p: URLSearchParams): MemoryFilters {
  const t = p.get("type") as MemoryType | null;
  const s = p.get("status") as MemoryStatusFilter | null;
  const sort = p.get("sort") as MemorySort | null;
  const n = (k: string) => {
    const v = p.get(k);
    return v === null || v === "" || Number.isNaN(Number(v)) ? null : Number(v);
  };
  return {
    memory_type: t && MEMORY_TYPE_LIST.includes(t) ? t : "",
    status: s && MEMORY_STATUS_FILTERS.includes(s) ? s : "active",
    q: "",
    min_importance: n("min"),
    max_importance: n("max"),
    sort: sort && SORTS.includes(sort) ? sort : "updated_at",
    order: p.get("order") === "asc" ? "asc" : "desc",
  };
}

export function MemoryTableView() {
  const params = useSearchParams();
  const { user, setUser } = useSelectedUser();
  const users = useMemoryUsers();
  const [search, setSearch] = useState(() => params.get("q") ?? "");
  const [filters, setFilters] = useState<Omit<MemoryFilters, "q">>(() => readFilters(params));
  const q = useDebouncedValue(search, 250);
  const listFilters = useMemo<MemoryFilters>(() => ({ ...filters, q: q.trim() }), [filters, q]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [merging, setMerging] = useState(false);
  // The user just erased: the page leaves them and says so (their id stays only in this message).
  const [erased, setErased] = useState<{ user: string; total: number; receiptId: string } | null>(null);
  // Opened from a replayed turn (?replay=): each row can ask "why not?" for that turn.
  const [replayed] = useState(() => parseReplayRef(params.get("replay")));
  const whyHref = useCallback((id: string) => replayHref({ ...replayed!, memory: id }), [replayed]);

  // Filters live in the URL so Back from a memory restores the same view.
  useEffect(() => {
    if (!user) return;
    const sp = new URLSearchParams();
    sp.set("user", user);
    if (listFilters.q) sp.set("q", listFilters.q);
    if (listFilters.memory_type) sp.set("type", listFilters.memory_type);
    if (listFilters.status !== "active") sp.set("status", listFilters.status);
    if (listFilters.min_importance !== null) sp.set("min", String(listFilters.min_importance));
    if (listFilters.max_importance !== null) sp.set("max", String(listFilters.max_importance));
    if (listFilters.sort !== "updated_at") sp.set("sort", listFilters.sort);
    if (listFilters.order !== "desc") sp.set("order", listFilters.order);
    if (replayed) sp.set("replay", replayRef(replayed));
    const next = sp.toString();
    if (next !== window.location.search.replace(/^\?/, "")) window.history.replaceState(window.history.state, "", `?${next}`);
  }, [user, listFilters, replayed]);

  // A different user or filter: the old selection no longer means anything.
  useEffect(() => setSelected(new Set()), [user, listFilters]);

  const list = useMemoryList(user, listFilters);
  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.data) ?? [], [list.data]);
  const byId = useMemo(() => new Map(rows.map((r) => [r.id, r] as const)), [rows]);
  const filtered = !!listFilters.q || !!listFilters.memory_type || listFilters.status !== "active" || listFilters.min_importance !== null || listFilters.max_importance !== null;
  const refreshing = list.isFetching && !list.isFetchingNextPage && !list.isLoading;
  const userInfo = users.data?.find((u) => u.user_id === user);

  const onSelect = useCallback((ids: string[], on: boolean) => {
    setSelected((prev) => {
      const next = new Set(prev);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  }, []);
  const clear = useCallback(() => setSelected(new Set()), []);
  const onSort = useCallback(
    (s: MemorySort) => setFilters((f) => ({ ...f, sort: s, order: f.sort === s && f.order === "desc" ? "asc" : "desc" })),
    [],
  );
  const { fetchNextPage } = list;
  const loadMore = useCallback(() => void fetchNextPage(), [fetchNextPage]);

  const noUsers = users.isFetched && !users.data?.length;

  return (
    <MemoriesShell
      user={user}
      onUser={setUser}
      title="Memories"
      subtitle={
        userInfo ? (
          <>
            {formatInt(userInfo.active)} active of {formatInt(userInfo.total)} memories for <span className="font-medium text-zinc-700 dark:text-zinc-300">{user}</span>
          </>
        ) : (
          "What your agents remember about each user: edit, merge, archive."
        )
      }
      actions={
        <>
          <p className="flex items-center gap-2 text-xs text-zinc-500 tabular-nums dark:text-zinc-400" aria-live="polite">
            {refreshing && <Spinner className="text-indigo-500" />}
          </p>
          {/* Not only while the user has memories: the erase dialog stays open on its receipt. */}
          {user && (
            <UserPrivacyActions
              user={user}
              onErased={(receipt) => {
                setErased({ user, total: receipt.total, receiptId: receipt.receipt_id });
                // On to the user with the most memories, never back to the erased one (the list may not have refetched yet).
                const next = [...(users.data ?? [])].filter((u) => u.user_id !== user).sort((a, b) => b.total - a.total)[0]?.user_id;
                setUser(next ?? "");
              }}
            />
          )}
        </>
      }
    >
      <main className="mx-auto flex min-h-0 w-full max-w-7xl flex-1 flex-col px-4 pt-4 pb-4 sm:px-6">
        {erased && user !== erased.user && (
          <p role="status" className="mb-3 rounded-lg border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950/40 dark:text-emerald-100" data-testid="erased-banner">
            <strong>{erased.user}</strong> was erased: {formatInt(erased.total)} rows removed (receipt {erased.receiptId.slice(0, 8)}, also in Settings → Audit log).
          </p>
        )}
        {replayed && (
          <p className="mb-3 flex flex-wrap items-center gap-2 rounded-lg border border-indigo-200 bg-indigo-50/60 px-3 py-2 text-xs text-zinc-800 dark:border-indigo-900 dark:bg-indigo-950/30 dark:text-zinc-200" data-testid="replay-banner">
            Opened from a replayed turn: <strong>Why not?</strong> on a row explains that memory for the turn.
            <Link href={replayHref(replayed)} className="ml-auto font-medium text-indigo-700 hover:underline dark:text-indigo-300">
              Back to the replay
            </Link>
          </p>
        )}
        <MemoryFiltersBar filters={listFilters} search={search} onSearch={setSearch} onChange={(patch) => setFilters((f) => ({ ...f, ...patch }))} />
        <BulkBar user={user} selected={selected} byId={byId} onClear={clear} onMerge={() => setMerging(true)} />
        <div className="mt-3 flex min-h-0 flex-1 flex-col">
          {noUsers ? (
            <div className="rounded-lg border border-dashed border-zinc-300 bg-white dark:border-zinc-700 dark:bg-zinc-900" data-testid="memories-empty">
              <EmptyState title="No memories yet">
                <p>Agents add them with POST /api/v1/users/&#123;user_id&#125;/memories.</p>
              </EmptyState>
            </div>
          ) : list.isError && !list.data ? (
            <ErrorBox title="Could not load memories" error={list.error} onRetry={() => list.refetch()} />
          ) : !list.isLoading && user && rows.length === 0 ? (
            <div className="rounded-lg border border-dashed border-zinc-300 bg-white dark:border-zinc-700 dark:bg-zinc-900" data-testid="memories-empty">
              <EmptyState title={filtered ? "No memories match" : "This user has no memories yet"}>
                {filtered && (
                  <button
                    type="button"
                    className="mt-1 rounded text-indigo-600 hover:underline dark:text-indigo-400"
                    onClick={() => {
                      setSearch("");
                      setFilters(readFilters(new URLSearchParams()));
                    }}
                  >
                    Clear filters
                  </button>
                )}
              </EmptyState>
            </div>
          ) : (
            <MemoryTable
              rows={rows}
              user={user}
              loading={list.isLoading || !user}
              hasNextPage={!!list.hasNextPage}
              fetchingNext={list.isFetchingNextPage}
              onLoadMore={loadMore}
              sort={listFilters.sort}
              order={listFilters.order}
              onSort={onSort}
              selected={selected}
              onSelect={onSelect}
              onClearSelection={clear}
              whyHref={replayed ? whyHref : undefined}
              openSuffix={replayed ? `&replay=${replayRef(replayed)}` : ""}
            />
          )}
          {list.isFetchNextPageError && (
            <div className="mt-3">
              <ErrorBox title="Could not load more" error={list.error} onRetry={loadMore} />
            </div>
          )}
        </div>
      </main>
      {merging && (
        <MergeDialog
          user={user}
          sources={[...selected].map((id) => byId.get(id)).filter((m): m is Memory => !!m)}
          onClose={() => setMerging(false)}
          onMerged={clear}
        />
      )}
    </MemoriesShell>
  );
}

/** Why an undo was refused, in words: the API lists the memories that moved on since the batch. */
function undoFailure(e: unknown): string {
  if (e instanceof ApiError && e.status === 409) {
    const moved = e.details.filter((d) => d.field === "memory_id").length;
    if (moved) return `Could not undo: ${plural(moved, "memory", "memories")} changed after the batch, and undoing would overwrite ${moved === 1 ? "that change" : "those changes"}. Nothing was undone.`;
  }
  return `Could not undo: ${errorMessage(e)}`;
}

const ACTION_VERB = { archive: "Archived", restore: "Restored", set_type: "Changed the type of", set_importance: "Changed the importance of" } as const;

function BulkBar({ user, selected, byId, onClear, onMerge }: { user: string; selected: Set<string>; byId: Map<string, Memory>; onClear: () => void; onMerge: () => void }) {
  const bulk = useBulk(user);
  const undo = useBulkUndo(user);
  const toast = useToast();
  const [type, setType] = useState<MemoryType>("fact");
  const [importance, setImportance] = useState("0.5");
  if (selected.size === 0) return null;
  const ids = [...selected];
  const anyActive = ids.some((id) => byId.get(id)?.status !== "archived");
  const anyArchived = ids.some((id) => byId.get(id)?.status === "archived");

  const run = (action: keyof typeof ACTION_VERB, extra: { memory_type?: MemoryType; importance_score?: number } = {}) =>
    bulk.mutate(
      { action, ids, ...extra },
      {
        onSuccess: (r) => {
          onClear();
          toast.show({
            message: (
              <span data-testid="bulk-toast-message">
                {ACTION_VERB[action]} {plural(r.affected, "memory", "memories")}
              </span>
            ),
            action: {
              label: "Undo",
              testId: "bulk-undo",
              run: () =>
                undo.mutateAsync(r.batch_id).then(
                  () => toast.show({ message: `Undone: ${plural(r.affected, "memory", "memories")} back as before` }),
                  (e) => {
                    throw new Error(undoFailure(e));
                  },
                ),
            },
          });
        },
        onError: (e) => toast.show({ message: e.message, tone: "error" }),
      },
    );

  return (
    <div
      data-testid="bulk-bar"
      className="mt-3 flex flex-wrap items-center gap-2 rounded-lg border border-indigo-200 bg-indigo-50 px-3 py-2 text-sm dark:border-indigo-900 dark:bg-indigo-950/50"
    >
      <span className="font-medium text-indigo-900 tabular-nums dark:text-indigo-200" data-testid="bulk-count">
        {formatInt(selected.size)} selected
      </span>
      <span className="mx-1 h-5 w-px bg-indigo-200 dark:bg-indigo-800" />
      {anyActive && (
        <WriteButton size="sm" data-testid="bulk-archive" disabled={bulk.isPending} onClick={() => run("archive")}>
          Archive
        </WriteButton>
      )}
      {anyArchived && (
        <WriteButton size="sm" data-testid="bulk-restore" disabled={bulk.isPending} onClick={() => run("restore")}>
          Restore
        </WriteButton>
      )}
      <span className="inline-flex items-center gap-1">
        <select
          aria-label="New type"
          value={type}
          onChange={(e) => setType(e.target.value as MemoryType)}
          className="h-7 rounded-md border border-zinc-300 bg-white px-1.5 text-xs dark:border-zinc-700 dark:bg-zinc-900"
        >
          {MEMORY_TYPE_LIST.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <WriteButton size="sm" data-testid="bulk-set-type" disabled={bulk.isPending} onClick={() => run("set_type", { memory_type: type })}>
          Set type
        </WriteButton>
      </span>
      <span className="inline-flex items-center gap-1">
        <input
          type="number"
          min={0}
          max={1}
          step={0.05}
          aria-label="New importance"
          value={importance}
          onChange={(e) => setImportance(e.target.value)}
          className="h-7 w-16 rounded-md border border-zinc-300 bg-white px-1.5 text-xs tabular-nums dark:border-zinc-700 dark:bg-zinc-900"
        />
        <WriteButton
          size="sm"
          data-testid="bulk-set-importance"
          disabled={bulk.isPending || importance === "" || Number.isNaN(Number(importance))}
          onClick={() => run("set_importance", { importance_score: Math.max(0, Math.min(1, Number(importance))) })}
        >
          Set importance
        </WriteButton>
      </span>
      <WriteButton size="sm" variant="primary" data-testid="bulk-merge" disabled={selected.size < 2 || bulk.isPending} onClick={onMerge} title={selected.size < 2 ? "Select at least two memories" : undefined}>
        Merge {selected.size >= 2 ? formatInt(selected.size) : ""}…
      </WriteButton>
      {bulk.isPending && <Spinner className="text-indigo-500" />}
      <Button size="sm" variant="ghost" className="ml-auto" onClick={onClear}>
        Clear
      </Button>
    </div>
  );
}
