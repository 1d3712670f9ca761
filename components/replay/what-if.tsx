"use client";
import { useMemo, useState } from "react";
import type { ReplayResult, ReplayVariantResult, Why } from "@/client/api-types";
import { useProfileHistory } from "@/client/hooks/profiles";
import { formatInt } from "@/client/ui/format";
import { diffMessages, STRATEGY_LABEL, STRATEGY_TYPES, isStrategyType } from "@/client/ui/inspect-model";
import { onlyMarks, RULE_LABEL } from "@/client/ui/replay-model";
import { variantLabel, type VariantSpec } from "@/client/ui/replay-url";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/states";
import { BudgetStackedBar } from "@/components/inspect/budget-stacked-bar";
import { PromptBubbles } from "@/components/inspect/prompt-bubbles";

type Draft = { k: string; min: string; sim: string; rec: string; imp: string; strategy: string; profile: string };

function draftOf(r: ReplayResult, v: VariantSpec | null): Draft {
  const m = r.settings.memory;
  const w = m.weights ?? { similarity: 0.6, recency: 0.2, importance: 0.2 };
  return {
    k: String(v?.k ?? m.k),
    min: v?.min_score !== undefined ? String(v.min_score) : m.min_score !== undefined ? String(m.min_score) : "",
    sim: String(v?.weights?.similarity ?? w.similarity),
    rec: String(v?.weights?.recency ?? w.recency),
    imp: String(v?.weights?.importance ?? w.importance),
    strategy: v?.strategy ?? "",
    profile: v?.profile_version !== undefined ? String(v.profile_version) : "",
  };
}

/** Only what differs from the original's settings travels (and shows in the label). */
function specOf(d: Draft, r: ReplayResult): VariantSpec {
  const m = r.settings.memory;
  const w = m.weights ?? { similarity: 0.6, recency: 0.2, importance: 0.2 };
  const v: VariantSpec = {};
  const n = (s: string) => (s.trim() === "" ? undefined : Number(s));
  if (n(d.k) !== undefined && n(d.k) !== m.k) v.k = n(d.k);
  if (n(d.min) !== undefined && n(d.min) !== m.min_score) v.min_score = n(d.min);
  const weights: NonNullable<VariantSpec["weights"]> = {};
  if (n(d.sim) !== undefined && n(d.sim) !== w.similarity) weights.similarity = n(d.sim);
  if (n(d.rec) !== undefined && n(d.rec) !== w.recency) weights.recency = n(d.rec);
  if (n(d.imp) !== undefined && n(d.imp) !== w.importance) weights.importance = n(d.imp);
  if (Object.keys(weights).length) v.weights = weights;
  if (isStrategyType(d.strategy)) v.strategy = d.strategy;
  if (d.profile) v.profile_version = Number(d.profile);
  return v;
}

const field = "h-8 w-full rounded-md border border-zinc-300 bg-white px-2 text-sm tabular-nums dark:border-zinc-700 dark:bg-zinc-900";

/** Counterfactuals: the same turn under another k, weights, minimum score, strategy or profile version, side by side with the diff drawn. */
export function WhatIf({ result, variant, onVariant, pending }: { result: ReplayResult; variant: VariantSpec | null; onVariant: (v: VariantSpec | null) => void; pending: boolean }) {
  // Re-seeded when the replayed turn or the applied variant changes (the key of the form below).
  // Every version of the app's profile, also for a turn older than its first one (which ran on defaults).
  const profiles = useProfileHistory(result.app_id ?? null);
  const v = result.variants[0];
  return (
    <div className="flex flex-col gap-4" data-testid="what-if">
      <VariantForm key={`${result.turn.message_id}|${variantLabel(variant ?? {})}`} result={result} variant={variant} onVariant={onVariant} versions={profiles.data?.versions.map((p) => p.version) ?? []} pending={pending} />
      {!variant ? (
        <p className="rounded-xl border border-dashed border-zinc-300 px-4 py-8 text-center text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400" data-testid="what-if-empty">
          Change k, the weights, the minimum score, the strategy or the profile version above and press <strong>Replay with these</strong>: the same turn is replayed under them, beside the original, with every difference drawn.
        </p>
      ) : !v ? (
        <p className="flex items-center gap-2 text-sm text-zinc-600 dark:text-zinc-400">
          <Spinner /> Replaying the variant…
        </p>
      ) : (
        <>
          <DiffSummary result={result} variant={v} />
          <SideBySide result={result} variant={v} />
        </>
      )}
    </div>
  );
}

function VariantForm({ result, variant, onVariant, versions, pending }: { result: ReplayResult; variant: VariantSpec | null; onVariant: (v: VariantSpec | null) => void; versions: number[]; pending: boolean }) {
  const [d, setD] = useState<Draft>(() => draftOf(result, variant));
  const set = (k: keyof Draft) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setD((x) => ({ ...x, [k]: e.target.value }));
  const spec = specOf(d, result);
  const nothing = Object.keys(spec).length === 0;
  return (
    <form
      className="rounded-xl border border-zinc-200 bg-white p-4 shadow-xs dark:border-zinc-800 dark:bg-zinc-900"
      onSubmit={(e) => {
        e.preventDefault();
        if (!nothing) onVariant(spec);
      }}
      aria-labelledby="whatif-h"
    >
      <h2 id="whatif-h" className="text-sm font-semibold">
        What if this turn had run with…
      </h2>
      <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">
        Original: profile {result.profile.version ? `v${result.profile.version}` : "defaults"} · k = {result.settings.memory.k} · {result.settings.strategy.type}
      </p>
      <div className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-4 xl:grid-cols-7">
        <label className="text-xs font-medium">
          k
          <input type="number" min={1} max={100} step={1} value={d.k} onChange={set("k")} className={field} data-testid="whatif-k" />
        </label>
        <label className="text-xs font-medium">
          Min score
          <input type="number" min={-10} max={10} step={0.05} value={d.min} onChange={set("min")} placeholder="none" className={field} data-testid="whatif-min" />
        </label>
        <label className="text-xs font-medium">
          Similarity
          <input type="number" min={0} max={10} step={0.05} value={d.sim} onChange={set("sim")} className={field} data-testid="whatif-sim" />
        </label>
        <label className="text-xs font-medium">
          Recency
          <input type="number" min={0} max={10} step={0.05} value={d.rec} onChange={set("rec")} className={field} data-testid="whatif-rec" />
        </label>
        <label className="text-xs font-medium">
          Importance
          <input type="number" min={0} max={10} step={0.05} value={d.imp} onChange={set("imp")} className={field} data-testid="whatif-imp" />
        </label>
        <label className="text-xs font-medium">
          Strategy
          <select value={d.strategy} onChange={set("strategy")} className={field} data-testid="whatif-strategy">
            <option value="">as then</option>
            {STRATEGY_TYPES.map((t) => (
              <option key={t} value={t}>
                {STRATEGY_LABEL[t]}
              </option>
            ))}
          </select>
        </label>
        <label className="text-xs font-medium">
          Profile version
          <select value={d.profile} onChange={set("profile")} className={field} data-testid="whatif-profile">
            <option value="">as then{result.profile.version ? ` (v${result.profile.version})` : ""}</option>
            {versions.map((n) => (
              <option key={n} value={n}>
                v{n}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <Button type="submit" variant="primary" size="sm" disabled={nothing} data-testid="whatif-run">
          {pending && <Spinner />}
          Replay with these
        </Button>
        {variant && (
          <Button size="sm" onClick={() => onVariant(null)} data-testid="whatif-clear">
            Clear
          </Button>
        )}
        <span className="text-xs text-zinc-600 dark:text-zinc-400">{nothing ? "Change a setting to compare." : `Variant: ${variantLabel(spec)}`}</span>
      </div>
    </form>
  );
}

function contentOf(id: string, ...lists: Why[][]): string {
  for (const l of lists) {
    const w = l.find((x) => x.memory_id === id);
    if (w?.state) return w.state.content;
  }
  return id.slice(0, 8);
}

/** The diff the API answered: memories in and out with both ranks, tokens per section, messages. */
function DiffSummary({ result, variant: v }: { result: ReplayResult; variant: ReplayVariantResult }) {
  const d = v.diff;
  const sections = Object.entries(d.tokens);
  return (
    <section aria-labelledby="diff-h" className="rounded-xl border border-zinc-200 bg-white p-4 shadow-xs dark:border-zinc-800 dark:bg-zinc-900" data-testid="variant-diff" data-empty={d.empty ? "true" : "false"}>
      <h2 id="diff-h" className="text-sm font-semibold">
        Difference from the original <span className="font-normal text-zinc-600 dark:text-zinc-400">({v.label})</span>
      </h2>
      {d.empty ? (
        <p className="mt-2 text-sm text-zinc-700 dark:text-zinc-300">No difference: the prompt would have been the same, byte for byte.</p>
      ) : (
        <div className="mt-3 grid gap-4 md:grid-cols-3">
          <div>
            <h3 className="text-xs font-semibold tracking-wide text-zinc-600 uppercase">Memories</h3>
            <ul className="mt-1.5 flex flex-col gap-1 text-xs">
              {d.memories.in.map((m) => (
                <li key={m.memory_id} data-testid="diff-memory-in" data-id={m.memory_id} className="flex gap-1.5">
                  <span className="shrink-0 font-bold text-emerald-700 dark:text-emerald-400">+ in</span>
                  <span className="min-w-0">
                    {contentOf(m.memory_id, v.why, result.why)}{" "}
                    <span className="text-zinc-600">
                      (rank {m.rank ?? "—"}; was {RULE_LABEL[m.original_rule]}
                      {m.original_rank ? `, #${m.original_rank}` : ""})
                    </span>
                  </span>
                </li>
              ))}
              {d.memories.out.map((m) => (
                <li key={m.memory_id} data-testid="diff-memory-out" data-id={m.memory_id} className="flex gap-1.5">
                  <span className="shrink-0 font-bold text-red-700 dark:text-red-400">− out</span>
                  <span className="min-w-0">
                    {contentOf(m.memory_id, result.why, v.why)} <span className="text-zinc-600">({RULE_LABEL[m.rule]}; was #{m.original_rank ?? "—"})</span>
                  </span>
                </li>
              ))}
              {!d.memories.in.length && !d.memories.out.length && <li className="text-zinc-600">the same memories</li>}
            </ul>
          </div>
          <div>
            <h3 className="text-xs font-semibold tracking-wide text-zinc-600 uppercase">Tokens per section</h3>
            <table className="mt-1.5 w-full text-xs tabular-nums">
              <tbody>
                {sections.length ? (
                  sections.map(([s, t]) => (
                    <tr key={s} data-testid="diff-tokens" data-section={s}>
                      <th scope="row" className="py-0.5 text-left font-normal">
                        {s}
                      </th>
                      <td className="text-right">{formatInt(t.original)}</td>
                      <td className="px-1 text-center text-zinc-600">→</td>
                      <td className="text-right">{formatInt(t.variant)}</td>
                      <td className={`pl-2 text-right font-semibold ${s === "free" ? "" : t.delta > 0 ? "text-red-700 dark:text-red-400" : "text-emerald-700 dark:text-emerald-400"}`}>
                        {t.delta > 0 ? "+" : ""}
                        {formatInt(t.delta)}
                      </td>
                    </tr>
                  ))
                ) : (
                  <tr>
                    <td className="text-zinc-600">the same</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          <div>
            <h3 className="text-xs font-semibold tracking-wide text-zinc-600 uppercase">Messages</h3>
            <p className="mt-1.5 text-xs" data-testid="diff-messages">
              <strong className="text-emerald-700 dark:text-emerald-400">{d.messages.added.length}</strong> added ·{" "}
              <strong className="text-red-700 dark:text-red-400">{d.messages.dropped.length}</strong> dropped ·{" "}
              <strong className="text-amber-700 dark:text-amber-400">{d.messages.changed.length}</strong> changed
            </p>
          </div>
        </div>
      )}
    </section>
  );
}

function SideBySide({ result, variant: v }: { result: ReplayResult; variant: ReplayVariantResult }) {
  const marks = useMemo(() => diffMessages(result.context.messages, v.context.messages), [result.context.messages, v.context.messages]);
  const cols = [
    { side: "A" as const, title: "Original", sub: `profile ${result.profile.version ? `v${result.profile.version}` : "defaults"} · k = ${result.settings.memory.k}`, r: result, marks: onlyMarks(marks.a) },
    { side: "B" as const, title: "Variant", sub: v.label, r: v, marks: onlyMarks(marks.b) },
  ];
  return (
    <div className="grid gap-4 lg:grid-cols-2" data-testid="variant-side-by-side">
      {cols.map((c) => (
        <section key={c.side} aria-label={c.title} data-testid={`variant-column-${c.side.toLowerCase()}`} className="flex min-w-0 flex-col gap-3">
          <div className={`rounded-xl border bg-white p-3 shadow-xs dark:bg-zinc-900 ${c.side === "A" ? "border-orange-300 dark:border-orange-900" : "border-teal-300 dark:border-teal-900"}`}>
            <div className="mb-2 flex min-w-0 items-center gap-2">
              <span className={`grid size-5 shrink-0 place-items-center rounded text-[11px] font-bold text-white ${c.side === "A" ? "bg-orange-700" : "bg-teal-700"}`}>{c.side}</span>
              <span className="text-sm font-semibold">{c.title}</span>
              <span className="min-w-0 truncate text-xs text-zinc-600 dark:text-zinc-400">{c.sub}</span>
            </div>
            <BudgetStackedBar budget={c.r.context.sections} fits={c.r.context.fits} approximate={c.r.context.approximate} compact testId={`variant-budget-${c.side.toLowerCase()}`} />
          </div>
          <PromptBubbles messages={c.r.context.messages} sections={c.r.context.message_sections} marks={c.marks} side={c.side} memories={c.r.context.sections.memories > 0} />
        </section>
      ))}
    </div>
  );
}
