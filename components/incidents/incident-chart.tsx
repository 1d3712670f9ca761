"use client";
import { useLayoutEffect, useMemo, useRef, useState } from "react";
import { SUMMARY_DAYS, type IncidentSummary } from "@/client/hooks/incidents";
import { formatInt, plural } from "@/client/ui/format";
import { chartDays, INCIDENT_KINDS, KIND_FILL, KIND_HINT, KIND_LABEL, KIND_SWATCH, type IncidentKind } from "@/client/ui/incident-model";

// Incidents found per day over the last 30 days, one stacked bar a day, a colour per kind: an
// SVG drawn here as the evals chart is (no chart library). Accessible: the SVG has a title and
// a description with each kind's total, every bar a <title> with its day's counts, and the
// legend under it repeats the totals as buttons that filter the list to one kind. The SVG is
// drawn at its box's own width (measured), so its labels keep their size from 390 px up.

const H = 170;
const PAD = { l: 28, r: 6, t: 8, b: 20 };
const dayLabel = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
const dayName = (d: string) => dayLabel.format(new Date(`${d}T00:00:00Z`));

/** A round top for the y axis: 1, 2, 5, 10, 20, 50... at or above `n`. */
function niceMax(n: number): number {
  if (n <= 4) return Math.max(1, n);
  const p = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((m) => m * p).find((v) => v >= n) ?? 10 * p;
}

export function IncidentChart({ summary, onKind }: { summary: IncidentSummary; onKind: (kind: IncidentKind) => void }) {
  const box = useRef<HTMLDivElement>(null);
  const [W, setW] = useState(640);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setW(Math.max(240, Math.round(el.clientWidth)));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const days = useMemo(() => chartDays(summary.days, SUMMARY_DAYS, Date.parse(`${summary.to}T12:00:00Z`)), [summary.days, summary.to]);
  const totals = useMemo(() => {
    const t = Object.fromEntries(INCIDENT_KINDS.map((k) => [k, 0])) as Record<IncidentKind, number>;
    for (const d of days) for (const k of INCIDENT_KINDS) t[k] += d.counts[k] ?? 0;
    return t;
  }, [days]);
  const all = INCIDENT_KINDS.reduce((s, k) => s + totals[k], 0);
  const top = niceMax(Math.max(0, ...days.map((d) => d.total)));
  const slot = (W - PAD.l - PAD.r) / days.length;
  const barW = Math.max(2, slot * 0.7);
  const y = (v: number) => PAD.t + (1 - v / top) * (H - PAD.t - PAD.b);
  const ticks = top <= 4 ? Array.from({ length: top + 1 }, (_, i) => i) : [0, top / 2, top];
  const desc = all
    ? `${plural(all, "incident")} in the last ${SUMMARY_DAYS} days: ${INCIDENT_KINDS.filter((k) => totals[k])
        .map((k) => `${KIND_LABEL[k].toLowerCase()} ${formatInt(totals[k])}`)
        .join(", ")}.`
    : `No incident in the last ${SUMMARY_DAYS} days.`;

  return (
    <figure className="min-w-0 rounded-lg border border-zinc-200 bg-white p-4 shadow-xs dark:border-zinc-800 dark:bg-zinc-900" data-testid="incident-chart" data-total={all}>
      <figcaption className="flex flex-wrap items-baseline justify-between gap-x-3">
        <span className="text-sm font-semibold">Incidents found per day</span>
        <span className="text-xs text-zinc-600 dark:text-zinc-400">
          last {SUMMARY_DAYS} days · {plural(all, "incident")}
        </span>
      </figcaption>
      <div ref={box} className="mt-2">
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} className="block max-w-full" role="img" aria-labelledby="incident-chart-title incident-chart-desc">
        <title id="incident-chart-title">{`Incidents per day, by kind, over the last ${SUMMARY_DAYS} days`}</title>
        <desc id="incident-chart-desc">{desc}</desc>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={PAD.l} x2={W - PAD.r} y1={y(t)} y2={y(t)} className="stroke-zinc-200 dark:stroke-zinc-700" strokeWidth={1} />
            <text x={PAD.l - 5} y={y(t) + 3.5} textAnchor="end" className="fill-zinc-600 text-[10px] dark:fill-zinc-400">
              {formatInt(t)}
            </text>
          </g>
        ))}
        {days.map((d, i) => {
          const x = PAD.l + i * slot + (slot - barW) / 2;
          let acc = 0;
          return (
            <g key={d.day} data-day={d.day} data-total={d.total}>
              <title>{`${dayName(d.day)}: ${d.total ? INCIDENT_KINDS.filter((k) => d.counts[k]).map((k) => `${KIND_LABEL[k]} ${d.counts[k]}`).join(", ") : "none"}`}</title>
              {/* The whole slot answers hover, so an empty day still shows its "none". */}
              <rect x={PAD.l + i * slot} y={PAD.t} width={slot} height={H - PAD.t - PAD.b} fill="transparent" />
              {INCIDENT_KINDS.map((k) => {
                const n = d.counts[k] ?? 0;
                if (!n) return null;
                const y0 = y(acc);
                acc += n;
                return <rect key={k} x={x} y={y(acc)} width={barW} height={Math.max(0, y0 - y(acc))} className={KIND_FILL[k]} />;
              })}
            </g>
          );
        })}
        {days.map((d, i) =>
          // A date under the first bar and every seventh (not one crowding today's), and "today".
          (i % 7 === 0 && i < days.length - 5) || i === days.length - 1 ? (
            <text key={d.day} x={PAD.l + i * slot + slot / 2} y={H - 5} textAnchor={i === days.length - 1 ? "end" : "middle"} className="fill-zinc-600 text-[10px] dark:fill-zinc-400">
              {i === days.length - 1 ? "today" : dayName(d.day)}
            </text>
          ) : null,
        )}
      </svg>
      </div>
      <ul className="mt-3 flex flex-wrap gap-x-1 gap-y-1 text-xs" aria-label="Kinds (show only one)" data-testid="incident-legend">
        {INCIDENT_KINDS.map((k) => (
          <li key={k}>
            <button
              type="button"
              title={`${KIND_HINT[k]}. Show only these.`}
              onClick={() => onKind(k)}
              className="inline-flex items-center gap-1.5 rounded px-1.5 py-1 text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
              data-kind={k}
            >
              <span aria-hidden className={`size-2.5 rounded-sm ${KIND_SWATCH[k]}`} />
              {KIND_LABEL[k]}
              <span className="font-semibold tabular-nums">{formatInt(totals[k])}</span>
            </button>
          </li>
        ))}
      </ul>
    </figure>
  );
}
