"use client";
import { STATUS_FILTERS, useFacets, type ListFilters } from "@/client/hooks/conversations";
import { SearchBox } from "@/components/ui/search-box";
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
  return (
    <div className="flex flex-wrap items-center gap-2">
      <SearchBox value={search} onChange={onSearch} placeholder="Search name, id, user…" label="Search conversations" testId="conversation-search" />
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
