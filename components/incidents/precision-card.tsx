"use client";
import type { IncidentSummary } from "@/client/hooks/incidents";
import { formatInt } from "@/client/ui/format";
import { INCIDENT_KINDS, isKind, KIND_HINT, KIND_LABEL, KIND_SWATCH } from "@/client/ui/incident-model";

/**
 * Each rule's precision as people judged it: of the incidents someone acknowledged, resolved or
 * marked a false positive, the share that were real. A kind nobody judged says so, not 0 or 1.
 */
export function PrecisionCard({ summary }: { summary: IncidentSummary }) {
  const byKind = new Map(summary.precision.filter((p) => isKind(p.kind)).map((p) => [p.kind, p] as const));
  return (
    <section aria-labelledby="precision-h" className="min-w-0 rounded-lg border border-zinc-200 bg-white p-4 shadow-xs dark:border-zinc-800 dark:bg-zinc-900" data-testid="precision-card">
      <h2 id="precision-h" className="text-sm font-semibold">
        Precision as judged
      </h2>
      <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">Of the incidents people triaged, the share that were real (not false positives).</p>
      <dl className="mt-3 space-y-2 text-sm">
        {INCIDENT_KINDS.map((k) => {
          const p = byKind.get(k);
          const judged = p?.judged ?? 0;
          const value = p && judged > 0 && p.precision !== null ? p.precision : null;
          return (
            <div key={k} className="grid grid-cols-[minmax(0,1fr)_auto] items-baseline gap-x-2" data-testid="precision-row" data-kind={k} data-judged={judged} data-precision={value ?? ""}>
              <dt className="flex min-w-0 items-center gap-1.5 text-zinc-700 dark:text-zinc-300" title={KIND_HINT[k]}>
                <span aria-hidden className={`size-2.5 shrink-0 rounded-sm ${KIND_SWATCH[k]}`} />
                <span>{KIND_LABEL[k]}</span>
              </dt>
              <dd className="text-right text-xs tabular-nums">
                {value === null ? (
                  <span className="text-zinc-600 dark:text-zinc-400">not judged yet</span>
                ) : (
                  <>
                    <span className="text-sm font-semibold">{Math.round(value * 100)}%</span>
                    <span className="text-zinc-600 dark:text-zinc-400">
                      {" "}
                      of {formatInt(judged)} judged
                      {p && p.false_positive > 0 ? ` · ${formatInt(p.false_positive)} false positive${p.false_positive === 1 ? "" : "s"}` : ""}
                    </span>
                  </>
                )}
              </dd>
              {value !== null && (
                <dd aria-hidden className="col-span-2 mt-1 h-1.5 overflow-hidden rounded-full bg-zinc-100 dark:bg-zinc-800">
                  <div className={`h-full rounded-full ${value >= 0.9 ? "bg-emerald-500" : value >= 0.7 ? "bg-amber-500" : "bg-red-500"}`} style={{ width: `${value * 100}%` }} />
                </dd>
              )}
            </div>
          );
        })}
      </dl>
    </section>
  );
}
