"use client";
import { BUDGET_KEYS, type Budget, type BudgetKey } from "@/client/ui/inspect-model";
import { formatCompact, formatInt } from "@/client/ui/format";
import { SECTION_STYLE } from "./section-style";

const USED: BudgetKey[] = ["system", "memories", "history", "query", "temporary"];

/**
 * The context window as one bar: each prompt section, the reserved output, then what is free.
 * When the prompt does not fit, the bar grows past the window and the overflow is red.
 * When the prompt is a sliver of the window, a second bar zooms in on its sections.
 */
export function BudgetStackedBar({ budget, fits, approximate, compact, testId = "budget-stacked-bar" }: { budget: Budget; fits: boolean; approximate?: boolean; compact?: boolean; testId?: string }) {
  const used = USED.reduce((s, k) => s + budget[k], 0);
  const demand = used + budget.reserved_output;
  const overflow = Math.max(0, demand - budget.context_window);
  const scale = Math.max(budget.context_window, demand, 1);
  const pct = (n: number) => (n / scale) * 100;
  const zoomed = used > 0 && demand / Math.max(1, budget.context_window) < 0.25;
  const data = Object.fromEntries(BUDGET_KEYS.map((k) => [`data-section-${k.replace("_", "-")}`, budget[k]]));

  return (
    <div data-testid={testId} data-fits={fits ? "true" : "false"} data-context-window={budget.context_window} data-total={budget.total} {...data}>
      <div className="mb-1.5 flex flex-wrap items-baseline gap-x-3 gap-y-1 text-xs">
        <span className="font-medium text-zinc-700 dark:text-zinc-300">Context window</span>
        <span className="tabular-nums">
          <strong className={`text-sm font-semibold ${fits ? "" : "text-red-600 dark:text-red-400"}`}>{formatInt(used)}</strong>
          <span className="text-zinc-500 dark:text-zinc-400">
            {" "}
            prompt + {formatInt(budget.reserved_output)} reserved / {formatInt(budget.context_window)}
          </span>
          <span className="ml-1.5 text-zinc-500 dark:text-zinc-400">({((demand / Math.max(1, budget.context_window)) * 100).toFixed(demand / budget.context_window < 0.1 ? 1 : 0)}%)</span>
        </span>
        {!fits && (
          <span data-testid="budget-overflow" className="rounded bg-red-600 px-1.5 py-px text-[11px] font-semibold text-white">
            Does not fit · {formatInt(overflow)} over
          </span>
        )}
        {approximate && (
          <span className="text-[11px] text-zinc-500 dark:text-zinc-400" title="/window reports only the total; sections are split by characters">
            sections ≈ by characters
          </span>
        )}
      </div>
      <div
        role="img"
        aria-label={`${formatInt(used)} prompt tokens and ${formatInt(budget.reserved_output)} reserved of a ${formatInt(budget.context_window)} token window${fits ? "" : `; ${formatInt(overflow)} over`}`}
        className={`relative flex ${compact ? "h-3.5" : "h-5"} overflow-hidden rounded-md bg-zinc-100 ring-1 ring-inset ring-zinc-200 dark:bg-zinc-800/60 dark:ring-zinc-700`}
      >
        {BUDGET_KEYS.map((k) => {
          const v = k === "free" ? Math.max(0, budget.context_window - demand) : budget[k];
          if (v <= 0) return null;
          return (
            <div
              key={k}
              data-section={k}
              title={`${SECTION_STYLE[k].label}: ${formatInt(v)} tokens`}
              className={`h-full shrink-0 ${SECTION_STYLE[k].bar} ${k === "free" ? "" : "min-w-[3px] border-r border-white/70 last:border-r-0 dark:border-zinc-950/60"}`}
              style={{ width: `${pct(v)}%` }}
            />
          );
        })}
        {!fits && (
          <>
            <div aria-hidden className="absolute inset-y-0 right-0 bg-[repeating-linear-gradient(135deg,rgb(239_68_68/0.55)_0_4px,transparent_4px_8px)]" style={{ width: `${pct(overflow)}%` }} />
            <div aria-hidden title="Context window limit" className="absolute -inset-y-0 w-0.5 bg-red-600" style={{ left: `${pct(budget.context_window)}%` }} />
          </>
        )}
      </div>
      {zoomed && (
        <div className="mt-1.5 flex items-center gap-2" data-testid="budget-zoom">
          <span className="w-24 shrink-0 text-[10px] font-medium tracking-wide text-zinc-500 uppercase dark:text-zinc-400">Prompt only</span>
          <div aria-hidden className={`flex ${compact ? "h-2" : "h-2.5"} min-w-0 flex-1 overflow-hidden rounded-full bg-zinc-100 dark:bg-zinc-800/60`}>
            {USED.map((k) =>
              budget[k] > 0 ? (
                <div key={k} data-zoom-section={k} title={`${SECTION_STYLE[k].label}: ${formatInt(budget[k])} tokens (${Math.round((budget[k] / used) * 100)}% of the prompt)`} className={`h-full min-w-[2px] border-r border-white/70 last:border-r-0 dark:border-zinc-950/60 ${SECTION_STYLE[k].bar}`} style={{ width: `${(budget[k] / used) * 100}%` }} />
              ) : null,
            )}
          </div>
        </div>
      )}
      <ul className={`mt-2 flex flex-wrap gap-x-4 gap-y-1 text-[11px] ${compact ? "" : "sm:text-xs"}`} aria-label="Budget legend">
        {BUDGET_KEYS.map((k) => {
          const v = budget[k];
          if (v <= 0 && (k === "temporary" || k === "memories" || k === "system" || k === "query")) return null;
          return (
            <li key={k} className="inline-flex items-center gap-1.5 text-zinc-600 dark:text-zinc-400" title={SECTION_STYLE[k].hint}>
              <span aria-hidden className={`size-2.5 rounded-sm ${k === "free" ? "bg-zinc-100 ring-1 ring-inset ring-zinc-300 dark:bg-zinc-800 dark:ring-zinc-600" : SECTION_STYLE[k].bar}`} />
              {SECTION_STYLE[k].label}
              <span className="font-medium text-zinc-900 tabular-nums dark:text-zinc-100">{compact ? formatCompact(v) : formatInt(v)}</span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
