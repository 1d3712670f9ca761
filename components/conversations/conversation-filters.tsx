"use client";
import { useEffect, useRef } from "react";
import { STATUS_FILTERS, useFacets, type ListFilters } from "@/lib/ui/queries";
import { SegmentedControl } from "@/components/ui/segmented-control";

const selectCls =
  "h-9 rounded-md border border-zinc-300 bg-white px-2.5 text-sm text-zinc-800 shadow-xs dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100";

/** Search box (press "/" anywhere to focus it) plus app, user and status filters from /facets. */
export function ConversationFilters({
  filters,
  search,
  onSearch,
  onChange,
}: {
  filters: ListFilters;
  search: string;
  onSearch: (q: string) => void;
  onChange: (patch: Partial<ListFilters>) => void;
}) {
  const facets = useFacets();
  const searchRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "/" || e.metaKey || e.ctrlKey || e.altKey) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
      e.preventDefault();
      searchRef.current?.focus();
      searchRef.current?.select();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  return (
    <div className="flex flex-wrap items-center gap-2">
      <div className="relative min-w-64 flex-1">
        <svg aria-hidden viewBox="0 0 20 20" className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 fill-zinc-400">
          <path d="M8.5 3a5.5 5.5 0 0 1 4.38 8.83l3.65 3.64a.75.75 0 1 1-1.06 1.06l-3.64-3.65A5.5 5.5 0 1 1 8.5 3Zm0 1.5a4 4 0 1 0 0 8 4 4 0 0 0 0-8Z" />
        </svg>
        <input
          ref={searchRef}
          type="search"
          value={search}
          onChange={(e) => onSearch(e.target.value)}
          placeholder="Search name, id, user…"
          aria-label="Search conversations"
          data-testid="conversation-search"
          className="h-9 w-full rounded-md border border-zinc-300 bg-white pr-9 pl-8 text-sm shadow-xs placeholder:text-zinc-400 dark:border-zinc-700 dark:bg-zinc-900"
        />
        {!search && <kbd className="pointer-events-none absolute top-1/2 right-2 -translate-y-1/2 rounded border border-zinc-300 px-1.5 font-mono text-[10px] text-zinc-500 dark:border-zinc-700">
          /
        </kbd>}
      </div>
      <label className="sr-only" htmlFor="filter-app">
        App
      </label>
      <select id="filter-app" data-testid="filter-app" className={selectCls} value={filters.app_id} onChange={(e) => onChange({ app_id: e.target.value })}>
        <option value="">All apps</option>
        {facets.data?.apps.map((a) => (
          <option key={a} value={a}>
            {a}
          </option>
        ))}
      </select>
      <label className="sr-only" htmlFor="filter-user">
        User
      </label>
      <select id="filter-user" data-testid="filter-user" className={`${selectCls} max-w-56`} value={filters.user_id} onChange={(e) => onChange({ user_id: e.target.value })}>
        <option value="">All users</option>
        {facets.data?.users.map((u) => (
          <option key={u} value={u}>
            {u}
          </option>
        ))}
      </select>
      <SegmentedControl label="Status" options={STATUS_FILTERS} value={filters.status} onChange={(status) => onChange({ status })} testIdPrefix="filter-status-" />
    </div>
  );
}
