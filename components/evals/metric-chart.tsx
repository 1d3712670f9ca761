"use client";
import { useState } from "react";
import type { EvalRun } from "@/client/hooks/evals";
import { METRIC_LABELS } from "@/client/ui/eval-metrics";

// Each metric over a set's runs, oldest to newest, as an SVG line with the 95% interval as a
// band. Accessible: the SVG has a title and description, every point a <title>, and the same
// numbers are in the runs table below it (the chart is never the only place they are).

const METRICS = (["recall", "precision", "mrr", "ndcg", "hit_rate"] as const).map((key) => ({ key, label: METRIC_LABELS[key] }));
type MetricKey = (typeof METRICS)[number]["key"];

const W = 640;
const H = 200;
const PAD = { l: 36, r: 12, t: 12, b: 24 };

export function MetricChart({ runs, onPick }: { runs: EvalRun[]; onPick?: (runId: string) => void }) {
  const [metric, setMetric] = useState<MetricKey>("recall");
  const label = METRICS.find((m) => m.key === metric)!.label;
  const pts = runs.map((r, i) => ({ run: r, i, v: r.metrics.overall[metric] }));
  const x = (i: number) => PAD.l + (runs.length <= 1 ? (W - PAD.l - PAD.r) / 2 : (i * (W - PAD.l - PAD.r)) / (runs.length - 1));
  const y = (v: number) => PAD.t + (1 - v) * (H - PAD.t - PAD.b);
  const valued = pts.filter((p) => p.v.value !== null);
  const line = valued.map((p, k) => `${k ? "L" : "M"}${x(p.i).toFixed(1)},${y(p.v.value!).toFixed(1)}`).join(" ");
  const band = valued.length
    ? `M${valued.map((p) => `${x(p.i).toFixed(1)},${y(p.v.high!).toFixed(1)}`).join(" L")} L${[...valued].reverse().map((p) => `${x(p.i).toFixed(1)},${y(p.v.low!).toFixed(1)}`).join(" L")} Z`
    : "";
  const last = valued.at(-1);
  return (
    <figure className="rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900" data-testid="eval-chart">
      <div className="mb-2 flex flex-wrap items-center gap-2">
        <figcaption className="text-sm font-medium">{label} over runs</figcaption>
        <div role="group" aria-label="Metric" className="ml-auto flex flex-wrap gap-1">
          {METRICS.map((m) => (
            <button
              key={m.key}
              type="button"
              aria-pressed={metric === m.key}
              onClick={() => setMetric(m.key)}
              className={`rounded px-2 py-1 text-xs ${metric === m.key ? "bg-indigo-600 text-white" : "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"}`}
            >
              {m.label}
            </button>
          ))}
        </div>
      </div>
      <svg viewBox={`0 0 ${W} ${H}`} className="h-auto w-full" role="img" aria-labelledby="eval-chart-title eval-chart-desc">
        <title id="eval-chart-title">{`${label} of ${runs.length} runs`}</title>
        <desc id="eval-chart-desc">
          {last ? `Latest ${label} ${last.v.value!.toFixed(3)} (95% interval ${last.v.low!.toFixed(3)} to ${last.v.high!.toFixed(3)}). The shaded band is the 95% bootstrap interval.` : "No run yet."}
        </desc>
        {[0, 0.25, 0.5, 0.75, 1].map((t) => (
          <g key={t}>
            <line x1={PAD.l} x2={W - PAD.r} y1={y(t)} y2={y(t)} className="stroke-zinc-200 dark:stroke-zinc-700" strokeWidth={1} />
            <text x={PAD.l - 6} y={y(t) + 4} textAnchor="end" className="fill-zinc-600 text-[10px] dark:fill-zinc-400">
              {t.toFixed(2)}
            </text>
          </g>
        ))}
        {band && <path d={band} className="fill-indigo-200/60 dark:fill-indigo-900/60" />}
        {line && <path d={line} fill="none" className="stroke-indigo-600 dark:stroke-indigo-400" strokeWidth={2} />}
        {valued.map((p) => (
          <circle
            key={p.run.id}
            cx={x(p.i)}
            cy={y(p.v.value!)}
            r={5}
            className="cursor-pointer fill-indigo-600 stroke-white dark:fill-indigo-400"
            strokeWidth={2}
            onClick={() => onPick?.(p.run.id)}
          >
            <title>{`${p.run.label ?? `run ${p.i + 1}`}: ${label} ${p.v.value!.toFixed(3)} [${p.v.low!.toFixed(3)}, ${p.v.high!.toFixed(3)}]`}</title>
          </circle>
        ))}
        {pts.map((p) => (
          <text key={p.run.id} x={x(p.i)} y={H - 6} textAnchor="middle" className="fill-zinc-600 text-[10px] dark:fill-zinc-400">
            {p.i + 1}
          </text>
        ))}
      </svg>
    </figure>
  );
}
