"use client";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import {
  useCreateEvalSet,
  useEvalComparison,
  useEvalRunCase,
  useEvalRunCases,
  useEvalRuns,
  useEvalSets,
  useRunEval,
  type EvalRun,
} from "@/client/hooks/evals";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";
import { WriteButton, WriteFieldset } from "@/components/ui/write-button";
import { EmptyState, ErrorBox, Spinner } from "@/components/ui/states";
import { metricLabel } from "@/client/ui/eval-metrics";
import { configChangeText } from "@/client/ui/eval-config";
import { MetricChart } from "./metric-chart";

// /evals: sets, their runs (a chart of each metric over runs, a table of the same numbers),
// a run's cases (failed first), a case's drill-down into its retrieval, and a comparison
// of two runs. Which set, run, case and base are open lives in the URL.

const f3 = (v: number | null | undefined) => (v === null || v === undefined ? "–" : v.toFixed(3));

/** An expected memory as its text (an id says nothing to a reader); a deleted one says so. */
function expectedText(memories: { id: string; content: string | null; status: string | null }[], id: string): string {
  const m = memories.find((x) => x.id === id);
  if (!m || m.content === null) return `(deleted memory ${id.slice(0, 8)})`;
  return m.status === "active" ? m.content : `${m.content} (${m.status})`;
}

function useParam() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const set = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(params.toString());
    for (const [k, v] of Object.entries(changes)) v === null ? next.delete(k) : next.set(k, v);
    router.replace(`${pathname}?${next.toString()}`, { scroll: false });
  };
  return { get: (k: string) => params.get(k), set };
}

export function EvalsView() {
  const p = useParam();
  const sets = useEvalSets();
  const setId = p.get("set") ?? sets.data?.data[0]?.id ?? null;
  const current = sets.data?.data.find((s) => s.id === setId) ?? null;
  return (
    <main id="main" className="mx-auto grid w-full max-w-7xl gap-5 px-4 py-5 sm:px-6 lg:grid-cols-[260px_minmax(0,1fr)]">
      <aside className="flex flex-col gap-3 self-start">
        <h1 className="text-lg font-semibold">Memory evals</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Questions with known right answers, run against the memories under a configuration.</p>
        {sets.isError ? (
          <ErrorBox title="Could not load the sets" error={sets.error} onRetry={() => sets.refetch()} />
        ) : !sets.data ? (
          <Skeleton className="h-24 w-full" />
        ) : (
          <nav aria-label="Eval sets">
            <ul className="flex flex-col gap-1" data-testid="eval-sets">
              {sets.data.data.map((s) => (
                <li key={s.id}>
                  <Link
                    href={`/evals?set=${s.id}`}
                    aria-current={s.id === setId ? "page" : undefined}
                    className={`flex items-center justify-between gap-2 rounded-md px-2.5 py-2 text-sm ${s.id === setId ? "bg-indigo-50 font-medium text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200" : "hover:bg-zinc-100 dark:hover:bg-zinc-800"}`}
                  >
                    <span className="truncate">{s.name}</span>
                    <span className="shrink-0 text-xs text-zinc-600 tabular-nums dark:text-zinc-400">
                      {s.case_count} cases · {s.run_count} runs
                    </span>
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        )}
        <NewSet onMade={(id) => p.set({ set: id, run: null, case: null, base: null })} />
      </aside>
      <section className="min-w-0">
        {sets.data && !current ? (
          <div className="rounded-lg border border-dashed border-zinc-300 dark:border-zinc-700">
            <EmptyState title="No eval set yet">Make one here, use Save as test in the retrieval playground, or run the CLI with --cases.</EmptyState>
          </div>
        ) : current ? (
          <SetPanel setId={current.id} name={current.name} cases={current.case_count} />
        ) : null}
      </section>
    </main>
  );
}

function NewSet({ onMade }: { onMade: (id: string) => void }) {
  const [name, setName] = useState("");
  const create = useCreateEvalSet();
  return (
    <form
      className="flex flex-col gap-1.5"
      onSubmit={async (e) => {
        e.preventDefault();
        const s = await create.mutateAsync(name.trim()).catch(() => null);
        if (s) {
          setName("");
          onMade(s.id);
        }
      }}
    >
      <label htmlFor="new-set" className="text-xs font-medium text-zinc-700 dark:text-zinc-300">
        New set
      </label>
      <WriteFieldset className="flex gap-1.5">
        <input
          id="new-set"
          value={name}
          onChange={(e) => setName(e.target.value)}
          className="h-9 min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
          placeholder="e.g. travel-agent"
        />
        <Button type="submit" disabled={!name.trim() || create.isPending}>
          Add
        </Button>
      </WriteFieldset>
      {create.isError && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-400">
          {create.error.message}
        </p>
      )}
    </form>
  );
}

function SetPanel({ setId, name, cases }: { setId: string; name: string; cases: number }) {
  const p = useParam();
  const runs = useEvalRuns(setId);
  const run = useRunEval();
  const [k, setK] = useState(10);
  const [similarity, setSimilarity] = useState(0.6);
  const [label, setLabel] = useState("");
  const list = runs.data?.data ?? [];
  const runId = p.get("run") ?? list.at(-1)?.id ?? null;
  const baseId = p.get("base");
  const selected = list.find((r) => r.id === runId) ?? null;
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-end gap-3 rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900">
        <div className="mr-auto">
          <h2 className="text-base font-semibold" data-testid="eval-set-name">
            {name}
          </h2>
          <p className="text-xs text-zinc-600 dark:text-zinc-400">{cases} cases</p>
        </div>
        <label className="flex flex-col text-xs font-medium">
          k
          <input type="number" min={1} max={100} value={k} onChange={(e) => setK(Math.max(1, Math.min(100, Number(e.target.value) || 1)))} className="mt-1 h-9 w-20 rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-900" />
        </label>
        <label className="flex flex-col text-xs font-medium">
          Similarity weight
          <input type="number" min={0} max={10} step={0.1} value={similarity} onChange={(e) => setSimilarity(Math.max(0, Number(e.target.value) || 0))} className="mt-1 h-9 w-24 rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-900" />
        </label>
        <label className="flex flex-col text-xs font-medium">
          Label
          <input value={label} onChange={(e) => setLabel(e.target.value)} className="mt-1 h-9 w-36 rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-900" placeholder="optional" />
        </label>
        <WriteButton
          variant="primary"
          disabled={run.isPending || cases === 0}
          onClick={async () => {
            const r = await run.mutateAsync({ setId, config: { k, status: "active", weights: { similarity } }, label: label.trim() || undefined }).catch(() => null);
            if (r) p.set({ run: r.id, case: null });
          }}
        >
          {run.isPending && <Spinner />} Run set
        </WriteButton>
        {run.isError && (
          <p role="alert" className="w-full text-xs text-red-700 dark:text-red-400">
            {run.error.message}
          </p>
        )}
      </div>
      {runs.isError ? (
        <ErrorBox title="Could not load the runs" error={runs.error} onRetry={() => runs.refetch()} />
      ) : !runs.data ? (
        <Skeleton className="h-48 w-full" />
      ) : list.length === 0 ? (
        <div className="rounded-lg border border-dashed border-zinc-300 dark:border-zinc-700">
          <EmptyState title="No run yet">Run the set to measure recall, precision, MRR and nDCG.</EmptyState>
        </div>
      ) : (
        <>
          <MetricChart runs={list} onPick={(id) => p.set({ run: id, case: null })} />
          <RunsTable runs={list} runId={runId} baseId={baseId} />
          {selected && baseId && baseId !== selected.id && <ComparisonPanel runId={selected.id} baseId={baseId} onOpen={(c) => p.set({ case: c })} />}
          {selected && <RunCases run={selected} />}
        </>
      )}
    </div>
  );
}

function RunsTable({ runs, runId, baseId }: { runs: EvalRun[]; runId: string | null; baseId: string | null }) {
  const p = useParam();
  return (
    // Focusable: on a phone the table scrolls sideways, and a keyboard must reach that too.
    <div tabIndex={0} role="region" aria-label="Runs" className="overflow-x-auto rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
      <table className="w-full text-sm whitespace-nowrap" data-testid="eval-runs">
        <caption className="sr-only">Runs of this set, oldest first, with their metrics and 95% intervals</caption>
        <thead className="text-left text-xs text-zinc-600 dark:text-zinc-400">
          <tr>
            <th scope="col" className="px-3 py-2">#</th>
            <th scope="col" className="px-3 py-2">Run</th>
            <th scope="col" className="px-3 py-2 text-right">Recall@k</th>
            <th scope="col" className="px-3 py-2 text-right">MRR</th>
            <th scope="col" className="px-3 py-2 text-right">nDCG@k</th>
            <th scope="col" className="px-3 py-2 text-right">Failed</th>
            <th scope="col" className="px-3 py-2">Compare</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r, i) => {
            const m = r.metrics.overall;
            return (
              <tr key={r.id} className={`border-t border-zinc-100 dark:border-zinc-800 ${r.id === runId ? "bg-indigo-50/60 dark:bg-indigo-950/40" : ""}`} data-testid="eval-run-row" data-run={r.id}>
                <td className="px-3 py-2 tabular-nums">{i + 1}</td>
                <td className="px-3 py-2">
                  <button type="button" className="text-left text-indigo-700 hover:underline dark:text-indigo-300" aria-current={r.id === runId ? "true" : undefined} onClick={() => p.set({ run: r.id, case: null })}>
                    {r.label ?? `k=${r.k}, similarity ${r.config.weights?.similarity ?? 0.6}`}
                  </button>
                  <div className="text-xs text-zinc-600 dark:text-zinc-400">{new Date(r.created_at).toLocaleString()}</div>
                </td>
                <td className="px-3 py-2 text-right tabular-nums" title={`95% interval ${f3(m.recall.low)} – ${f3(m.recall.high)}`}>
                  {f3(m.recall.value)}
                  <div className="text-[11px] text-zinc-600 dark:text-zinc-400">
                    [{f3(m.recall.low)}, {f3(m.recall.high)}]
                  </div>
                </td>
                <td className="px-3 py-2 text-right tabular-nums">{f3(m.mrr.value)}</td>
                <td className="px-3 py-2 text-right tabular-nums">{f3(m.ndcg.value)}</td>
                <td className="px-3 py-2 text-right tabular-nums">{r.failed_cases}</td>
                <td className="px-3 py-2">
                  {r.id !== runId && (
                    <Button size="sm" variant={baseId === r.id ? "primary" : "secondary"} aria-pressed={baseId === r.id} onClick={() => p.set({ base: baseId === r.id ? null : r.id })}>
                      {baseId === r.id ? "Base" : "Use as base"}
                    </Button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function ComparisonPanel({ runId, baseId, onOpen }: { runId: string; baseId: string; onOpen: (caseId: string) => void }) {
  const c = useEvalComparison(runId, baseId);
  if (c.isError) return <ErrorBox title="Could not compare" error={c.error} onRetry={() => c.refetch()} />;
  if (!c.data) return <Skeleton className="h-32 w-full" />;
  const d = c.data;
  return (
    <section aria-labelledby="compare-title" className="rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900" data-testid="eval-comparison">
      <h3 id="compare-title" className="mb-1 text-sm font-semibold">
        Against the base run {d.regressed ? <Badge tone="red">regressed</Badge> : <Badge tone="green">no significant regression</Badge>}
      </h3>
      <p className="mb-2 text-xs text-zinc-600 dark:text-zinc-400">{d.paired_cases} paired cases · paired bootstrap, 10 000 resamples: a difference counts when its 95% interval excludes 0.</p>
      {d.config_changes.length > 0 && (
        <div role="alert" className="mb-2 rounded border border-amber-300 bg-amber-50 p-2 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200" data-testid="config-changes">
          <p className="font-semibold">These runs differ in configuration: their scores do not compare like with like.</p>
          <ul className="mt-1 list-disc pl-5">
            {d.config_changes.map((c) => (
              <li key={c.field}>{configChangeText(c)}</li>
            ))}
          </ul>
        </div>
      )}
      <div tabIndex={0} role="region" aria-label="Metric deltas" className="overflow-x-auto">
        <table className="w-full text-sm whitespace-nowrap">
          <thead className="text-left text-xs text-zinc-600 dark:text-zinc-400">
            <tr>
              <th scope="col" className="py-1 pr-3">Metric</th>
              <th scope="col" className="py-1 pr-3 text-right">Base</th>
              <th scope="col" className="py-1 pr-3 text-right">This run</th>
              <th scope="col" className="py-1 pr-3 text-right">Delta [95%]</th>
              <th scope="col" className="py-1 text-right">p</th>
            </tr>
          </thead>
          <tbody>
            {d.deltas.map((x) => (
              <tr key={x.metric} className="border-t border-zinc-100 dark:border-zinc-800">
                <th scope="row" className="py-1 pr-3 text-left font-normal">{metricLabel(x.metric)}</th>
                <td className="py-1 pr-3 text-right tabular-nums">{f3(x.base)}</td>
                <td className="py-1 pr-3 text-right tabular-nums">{f3(x.head)}</td>
                <td className={`py-1 pr-3 text-right tabular-nums ${x.worse ? "font-semibold text-red-700 dark:text-red-400" : x.significant ? "text-emerald-700 dark:text-emerald-400" : ""}`}>
                  {x.delta === null ? "–" : `${x.delta >= 0 ? "+" : ""}${x.delta.toFixed(3)}`} [{f3(x.low)}, {f3(x.high)}]
                </td>
                <td className="py-1 text-right tabular-nums">{f3(x.p_value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="mt-3 grid gap-3 sm:grid-cols-2">
        <CaseLinks title={`Newly failed (${d.newly_failed.length})`} cases={d.newly_failed} onOpen={onOpen} testId="newly-failed" />
        <CaseLinks title={`Newly passed (${d.newly_passed.length})`} cases={d.newly_passed} onOpen={onOpen} testId="newly-passed" />
      </div>
    </section>
  );
}

function CaseLinks({ title, cases, onOpen, testId }: { title: string; cases: { case_id: string; question: string }[]; onOpen: (id: string) => void; testId: string }) {
  return (
    <div>
      <h4 className="text-xs font-semibold">{title}</h4>
      <ul className="mt-1 flex flex-col gap-0.5 text-sm" data-testid={testId}>
        {cases.map((c) => (
          <li key={c.case_id}>
            <button type="button" className="text-left text-indigo-700 hover:underline dark:text-indigo-300" onClick={() => onOpen(c.case_id)}>
              {c.question}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

function RunCases({ run }: { run: EvalRun }) {
  const p = useParam();
  const cases = useEvalRunCases(run.id);
  const caseId = p.get("case");
  if (cases.isError) return <ErrorBox title="Could not load the cases" error={cases.error} onRetry={() => cases.refetch()} />;
  if (!cases.data) return <Skeleton className="h-32 w-full" />;
  return (
    // One column of minmax(0, 1fr) below xl: an auto column grows to a case's longest line (and the page scrolls sideways at 390 px).
    <div className="grid grid-cols-[minmax(0,1fr)] gap-4 xl:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
      <section aria-labelledby="cases-title" className="rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
        <h3 id="cases-title" className="border-b border-zinc-100 px-3 py-2 text-sm font-semibold dark:border-zinc-800">
          Cases of this run ({run.failed_cases} failed)
        </h3>
        <ul className="divide-y divide-zinc-100 dark:divide-zinc-800" data-testid="eval-run-cases">
          {cases.data.data.map((c) => (
            <li key={c.case_id}>
              <button
                type="button"
                onClick={() => p.set({ case: c.case_id })}
                aria-current={c.case_id === caseId ? "true" : undefined}
                className={`flex w-full items-start gap-2 px-3 py-2 text-left text-sm hover:bg-zinc-50 dark:hover:bg-zinc-800 ${c.case_id === caseId ? "bg-indigo-50/60 dark:bg-indigo-950/40" : ""}`}
                data-testid="eval-run-case"
                data-hit={String(c.hit)}
              >
                {c.unscorable ? (
                  <Badge tone="amber" testId="unscorable" title="The benchmark file gave this question no evidence that names a turn (the import listed the defect): no run can score it.">
                    unscorable
                  </Badge>
                ) : c.hit === null ? (
                  <Badge>unscored</Badge>
                ) : c.hit ? (
                  <Badge tone="green">hit</Badge>
                ) : (
                  <Badge tone="red">miss</Badge>
                )}
                <span className="min-w-0 flex-1">
                  <span className="block">{c.question}</span>
                  <span className="block truncate text-xs text-zinc-600 dark:text-zinc-400">
                    {c.user_id}
                    {c.category ? ` · ${c.category}` : ""} · ranks {c.expected_ranks.map((r) => r.rank ?? "–").join(", ") || "–"}
                  </span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      </section>
      {caseId ? <CaseDrillDown runId={run.id} caseId={caseId} k={run.k} /> : null}
    </div>
  );
}

function CaseDrillDown({ runId, caseId, k }: { runId: string; caseId: string; k: number }) {
  const c = useEvalRunCase(runId, caseId);
  if (c.isError) return <ErrorBox title="Could not load the case" error={c.error} onRetry={() => c.refetch()} />;
  if (!c.data) return <Skeleton className="h-48 w-full" />;
  const d = c.data;
  return (
    <section aria-labelledby="drill-title" className="rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900" data-testid="eval-case-detail">
      <h3 id="drill-title" className="text-sm font-semibold">
        {d.question}
      </h3>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        {d.user_id} · {d.unscorable ? "unscorable: the benchmark file gave this question no evidence that names a turn (see the import's defects)" : d.hit === null ? "no expected item" : d.hit ? "hit" : `miss: nothing expected within k=${k}`}
        {d.scores && ` · recall ${f3(d.scores.recall)} · RR ${f3(d.scores.rr)} · nDCG ${f3(d.scores.ndcg)}`}
      </p>
      <h4 className="mt-3 text-xs font-semibold">Expected</h4>
      {d.expected_ranks.length === 0 && <p className="text-sm text-zinc-600 dark:text-zinc-400">Nothing: this case lists no expected item.</p>}
      <ul className="mt-1 flex flex-col gap-0.5 text-sm">
        {d.expected_ranks.map((r) => (
          <li key={`${r.kind}:${r.target}`} className="flex gap-2">
            <Badge>{r.kind}</Badge>
            <span className="min-w-0 flex-1 truncate">
              {r.kind === "memory" ? (
                <Link className="text-indigo-700 hover:underline dark:text-indigo-300" href={`/memories/${r.target}`} title={r.target} data-testid="expected-memory">
                  {expectedText(d.expected_memories, r.target)}
                </Link>
              ) : (
                r.target
              )}
            </span>
            <span className="shrink-0 tabular-nums">{r.rank === null ? "not retrieved" : `rank ${r.rank}`}</span>
          </li>
        ))}
      </ul>
      <h4 className="mt-3 text-xs font-semibold">Retrieved (score = similarity + recency + importance terms)</h4>
      {d.retrieved.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Nothing was retrieved.</p>
      ) : (
        <ol className="mt-1 flex flex-col gap-1.5">
          {d.retrieved.map((r) => (
            <li key={r.memory_id} className={`rounded-md border p-2 text-sm ${r.relevant ? "border-emerald-300 bg-emerald-50/60 dark:border-emerald-800 dark:bg-emerald-950/40" : "border-zinc-200 dark:border-zinc-800"}`} data-testid="eval-retrieved" data-relevant={String(r.relevant)}>
              <div className="flex items-start gap-2">
                <span className="w-6 shrink-0 text-right font-mono text-xs text-zinc-600 dark:text-zinc-400">#{r.rank}</span>
                <Link href={`/memories/${r.memory_id}`} className="min-w-0 flex-1 hover:underline">
                  {r.content}
                </Link>
                {r.relevant && <Badge tone="green">expected</Badge>}
              </div>
              <div className="mt-1 pl-8 font-mono text-[11px] text-zinc-600 tabular-nums dark:text-zinc-400">
                {r.breakdown.final.toFixed(3)} = {r.breakdown.similarity_term.toFixed(3)} + {r.breakdown.recency_term.toFixed(3)} + {r.breakdown.importance_term.toFixed(3)} · cosine {r.breakdown.cosine.toFixed(3)}
              </div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
