import type { MemoryType } from "@/client/api-types";
import { TYPE_STYLE } from "@/client/ui/memory-format";

export function TypeBadge({ type, className = "" }: { type: MemoryType; className?: string }) {
  const s = TYPE_STYLE[type] ?? TYPE_STYLE.fact;
  return (
    <span data-testid="type-badge" data-type={type} className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-[11px] font-medium whitespace-nowrap ring-1 ring-inset ${s.badge} ${className}`}>
      <span aria-hidden className={`size-1.5 rounded-full ${s.dot}`} />
      {type}
    </span>
  );
}

/** A 0..1 value as a short bar plus its number. */
export function UnitBar({ value, className = "", tone = "bg-indigo-500/80" }: { value: number; className?: string; tone?: string }) {
  const pct = Math.max(0, Math.min(1, value)) * 100;
  return (
    <span className={`flex items-center gap-2 ${className}`} title={value.toFixed(3)}>
      <span aria-hidden className="h-1.5 w-12 shrink-0 overflow-hidden rounded-full bg-zinc-100 dark:bg-zinc-800">
        <span className={`block h-full rounded-full ${tone}`} style={{ width: `${pct}%` }} />
      </span>
      <span className="tabular-nums">{value.toFixed(2)}</span>
    </span>
  );
}
