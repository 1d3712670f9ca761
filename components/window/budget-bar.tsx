import { formatInt } from "@/client/ui/format";

/**
 * Used tokens against max_token_limit. When the window overflows (Dify keeps at least one
 * message even if it alone is over budget) the track grows to the total and a tick marks the limit.
 */
export function BudgetBar({ used, limit, stale }: { used: number; limit: number; stale?: boolean }) {
  const over = used > limit;
  const scale = Math.max(used, limit, 1);
  const usedPct = (Math.min(used, limit) / scale) * 100;
  const overPct = over ? ((used - limit) / scale) * 100 : 0;
  const ratio = limit > 0 ? used / limit : used > 0 ? Infinity : 0;
  const fill = over ? "bg-red-500" : ratio >= 0.9 ? "bg-amber-500" : "bg-indigo-500";
  return (
    <div data-testid="budget-bar" data-used={used} data-limit={limit} data-over={over ? "true" : "false"} className={stale ? "opacity-60 transition-opacity" : "transition-opacity"}>
      <div className="mb-1.5 flex items-baseline justify-between gap-2 text-xs">
        <span className="text-zinc-500 dark:text-zinc-400">Token budget</span>
        <span className="tabular-nums">
          <strong className={`text-sm font-semibold ${over ? "text-red-600 dark:text-red-400" : ""}`}>{formatInt(used)}</strong>
          <span className="text-zinc-500 dark:text-zinc-400"> / {formatInt(limit)}</span>
          {limit > 0 && <span className="ml-1.5 text-zinc-500 dark:text-zinc-400">({Math.round(ratio * 100)}%)</span>}
          {over && <span className="ml-1.5 font-medium text-red-600 dark:text-red-400">+{formatInt(used - limit)} over</span>}
        </span>
      </div>
      <div
        role="meter"
        aria-label="Tokens used of max_token_limit"
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={used}
        className="relative h-2.5 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
      >
        <div className={`absolute inset-y-0 left-0 ${fill} transition-[width] duration-200`} style={{ width: `${usedPct}%` }} />
        {over && (
          <div
            className="absolute inset-y-0 bg-[repeating-linear-gradient(135deg,var(--color-red-500)_0_4px,var(--color-red-300)_4px_8px)]"
            style={{ left: `${usedPct}%`, width: `${overPct}%` }}
          />
        )}
        {over && <div aria-hidden className="absolute inset-y-0 w-0.5 bg-zinc-900 dark:bg-white" style={{ left: `${usedPct}%` }} />}
      </div>
    </div>
  );
}
