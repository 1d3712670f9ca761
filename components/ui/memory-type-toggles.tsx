"use client";
import type { MemoryType } from "@/client/api-types";
import { MEMORY_TYPE_LIST, TYPE_STYLE } from "@/client/ui/memory-format";

/** One toggle chip per memory type (several may be on; none means all types). The caller lays them out. */
export function MemoryTypeToggles({ value, onChange }: { value: MemoryType[]; onChange: (next: MemoryType[]) => void }) {
  return (
    <>
      {MEMORY_TYPE_LIST.map((t) => {
        const on = value.includes(t);
        return (
          <button
            key={t}
            type="button"
            aria-pressed={on}
            onClick={() => onChange(on ? value.filter((x) => x !== t) : [...value, t])}
            className={`inline-flex h-6 items-center gap-1 rounded-full px-2 text-[11px] font-medium ring-1 ring-inset ${
              on ? "bg-zinc-900 text-white ring-zinc-900 dark:bg-zinc-100 dark:text-zinc-900" : "text-zinc-600 ring-zinc-300 dark:text-zinc-400 dark:ring-zinc-700"
            }`}
          >
            <span aria-hidden className={`size-1.5 rounded-full ${TYPE_STYLE[t].dot}`} />
            {t}
          </button>
        );
      })}
    </>
  );
}
