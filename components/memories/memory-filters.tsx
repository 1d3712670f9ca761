"use client";
import type { MemoryType } from "@/client/api-types";
import { MEMORY_STATUS_FILTERS, type MemoryFilters } from "@/client/hooks/memories";
import { MEMORY_TYPE_LIST, TYPE_STYLE } from "@/client/ui/memory-format";
import { SearchBox } from "@/components/ui/search-box";
import { SegmentedControl } from "@/components/ui/segmented-control";

const inputCls = "h-9 rounded-md border border-zinc-300 bg-white px-2.5 text-sm shadow-xs dark:border-zinc-700 dark:bg-zinc-900";

export function MemoryFiltersBar({
  filters,
  search,
  onSearch,
  onChange,
}: {
  filters: MemoryFilters;
  search: string;
  onSearch: (q: string) => void;
  onChange: (patch: Partial<MemoryFilters>) => void;
}) {
  const chip = (t: MemoryType | "", label: string) => {
    const on = filters.memory_type === t;
    return (
      <button
        key={t || "all"}
        type="button"
        aria-pressed={on}
        data-testid={`type-chip-${t || "all"}`}
        onClick={() => onChange({ memory_type: t })}
        className={`inline-flex h-7 items-center gap-1.5 rounded-full px-2.5 text-xs font-medium ring-1 transition-colors ring-inset ${
          on
            ? "bg-zinc-900 text-white ring-zinc-900 dark:bg-zinc-100 dark:text-zinc-900 dark:ring-zinc-100"
            : "bg-white text-zinc-600 ring-zinc-300 hover:text-zinc-900 dark:bg-zinc-900 dark:text-zinc-400 dark:ring-zinc-700 dark:hover:text-zinc-100"
        }`}
      >
        {t && <span aria-hidden className={`size-1.5 rounded-full ${TYPE_STYLE[t].dot}`} />}
        {label}
      </button>
    );
  };

  const num = (v: string) => (v === "" ? null : Math.max(0, Math.min(1, Number(v))));

  return (
    <div className="flex flex-col gap-2.5">
      <div className="flex flex-wrap items-center gap-2">
        <SearchBox value={search} onChange={onSearch} placeholder="Search memory content…" label="Search memories" testId="memory-search" />
        <SegmentedControl label="Status" options={MEMORY_STATUS_FILTERS} value={filters.status} onChange={(status) => onChange({ status })} testIdPrefix="memory-status-" />
        <fieldset className="flex items-center gap-1.5 text-xs text-zinc-500 dark:text-zinc-400">
          <legend className="sr-only">Importance range</legend>
          Importance
          <input
            type="number"
            min={0}
            max={1}
            step={0.1}
            placeholder="0"
            aria-label="Minimum importance"
            data-testid="min-importance"
            value={filters.min_importance ?? ""}
            onChange={(e) => onChange({ min_importance: num(e.target.value) })}
            className={`${inputCls} w-16 px-1.5 text-center tabular-nums`}
          />
          –
          <input
            type="number"
            min={0}
            max={1}
            step={0.1}
            placeholder="1"
            aria-label="Maximum importance"
            data-testid="max-importance"
            value={filters.max_importance ?? ""}
            onChange={(e) => onChange({ max_importance: num(e.target.value) })}
            className={`${inputCls} w-16 px-1.5 text-center tabular-nums`}
          />
        </fieldset>
      </div>
      <div className="flex flex-wrap items-center gap-1.5" role="group" aria-label="Memory type">
        {chip("", "All types")}
        {MEMORY_TYPE_LIST.map((t) => chip(t, TYPE_STYLE[t].label))}
      </div>
    </div>
  );
}
