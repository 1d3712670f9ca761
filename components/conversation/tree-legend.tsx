import { formatInt } from "@/client/ui/format";

/** A quiet one-line key above the canvas: what the colours and badges on the tree mean. */
export function TreeLegend({ turns, threadLength, folded = 0 }: { turns: number; threadLength: number; folded?: number }) {
  return (
    <div data-testid="tree-legend" data-folded={folded} title="Click a turn to make it the leaf of the selected thread" className="pointer-events-none flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md border border-zinc-200 bg-white/90 px-2.5 py-1.5 text-[11px] text-zinc-600 shadow-xs backdrop-blur dark:border-zinc-800 dark:bg-zinc-900/90 dark:text-zinc-400">
      <span className="font-medium text-zinc-800 tabular-nums dark:text-zinc-200">
        {formatInt(turns)} turns · thread of {formatInt(threadLength)}
        {folded > 0 && <span className="font-normal"> · {formatInt(folded)} folded</span>}
      </span>
      <span className="flex items-center gap-1"><span className="size-2.5 rounded-sm bg-indigo-600" /> leaf</span>
      <span className="flex items-center gap-1"><span className="size-2.5 rounded-sm border border-indigo-300 bg-indigo-50 dark:border-indigo-700 dark:bg-indigo-950" /> thread</span>
      <span className="flex items-center gap-1"><span className="rounded-sm border border-dotted border-zinc-500 px-0.5 text-[9px]">…</span> folded turns</span>
      <span className="flex items-center gap-1"><span className="rounded-full bg-amber-400 px-1 text-[8px] font-semibold text-amber-950">NIL</span> UUID_NIL parent</span>
      <span className="flex items-center gap-1"><span className="rounded-full bg-red-500 px-1 text-[8px] font-semibold text-white">?</span> missing parent</span>
    </div>
  );
}
