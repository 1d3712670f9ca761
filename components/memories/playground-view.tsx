"use client";
import Link from "next/link";
import { useMemo, useState } from "react";
import type { MemoryType, SearchHit, SearchResponse, Weights } from "@/client/api-types";
import { useMemorySearch } from "@/client/hooks/memory-search";
import { useDebouncedValue } from "@/client/ui/use-debounced-value";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorBox, Spinner } from "@/components/ui/states";
import { MemoriesShell, useSelectedUser } from "./memories-shell";
import { TypeBadge } from "./type-badge";
import { MemoryTypeToggles } from "@/components/ui/memory-type-toggles";
import { SCORE_TERMS, ScoreBar } from "@/components/ui/score-bar";
import { SaveAsTest } from "@/components/evals/save-as-test";

const TERMS = SCORE_TERMS.map((t) => ({ ...t, swatch: t.color }));

const DEFAULTS: Weights = { similarity: 0.6, recency: 0.2, importance: 0.2 };
/**
 * Below this cosine a hit shares next to nothing with the query ("zzzz qqqq" leads with 0.059):
 * it ranks by recency and importance alone, which the page says instead of implying relevance.
 * With the lexical embedder, unrelated text still reaches about 0.28 by hash collisions
 * ("zzzz qqqq" against the demo memories); a real word match starts around 0.35.
 */
export const LOW_SIMILARITY = 0.3;

export function PlaygroundView() {
  const { user, setUser } = useSelectedUser();
  const [draft, setDraft] = useState("");
  const [query, setQuery] = useState("");
  const [k, setK] = useState(10);
  const [weights, setWeights] = useState<Weights>(DEFAULTS);
  const [types, setTypes] = useState<MemoryType[]>([]);
  // 0 = no floor (the API's min_score left out).
  const [minScore, setMinScore] = useState(0);
  const [dryRun, setDryRun] = useState(true);
  // The hits marked as right answers, for Save as test (an eval case).
  const [marked, setMarked] = useState<string[]>([]);

  // Sliders re-rank live; debounced so dragging does not flood the server.
  const params = useDebouncedValue({ query, k, weights, types, minScore, dryRun }, 200);
  const search = useMemorySearch(user, {
    query: params.query.trim(),
    k: params.k,
    weights: params.weights,
    ...(params.types.length ? { memory_types: params.types } : {}),
    ...(params.minScore > 0 ? { min_score: params.minScore } : {}),
    dry_run: params.dryRun,
  });
  const sum = weights.similarity + weights.recency + weights.importance;
  const data = search.data;
  const scale = useMemo(() => Math.max(sum, ...(data?.data.map((h) => h.breakdown.final) ?? [0]), 0.0001), [sum, data]);
  const stale = search.isFetching && !!data;

  return (
    <MemoriesShell user={user} onUser={setUser} title="Retrieval playground" subtitle="Try a query against this user's memories and see why each one ranks where it does.">
      <main className="mx-auto grid w-full max-w-7xl gap-5 px-4 py-4 sm:px-6 lg:grid-cols-[320px_minmax(0,1fr)]">
        <aside className="flex flex-col gap-4 self-start rounded-lg border border-zinc-200 bg-white p-4 shadow-xs lg:sticky lg:top-16 dark:border-zinc-800 dark:bg-zinc-900">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              setQuery(draft);
            }}
            className="flex flex-col gap-2"
          >
            <label htmlFor="pg-query" className="text-xs font-semibold text-zinc-700 dark:text-zinc-300">
              Query
            </label>
            <textarea
              id="pg-query"
              data-testid="playground-query"
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.shiftKey) {
                  e.preventDefault();
                  setQuery(draft);
                }
              }}
              rows={3}
              placeholder="e.g. what should I book for dinner?"
              className="w-full resize-y rounded-md border border-zinc-300 bg-white px-2.5 py-2 text-sm shadow-xs dark:border-zinc-700 dark:bg-zinc-950"
            />
            <Button type="submit" variant="primary" data-testid="playground-run" disabled={!draft.trim()}>
              {search.isFetching && <Spinner />}
              Search
            </Button>
          </form>

          <fieldset className="flex flex-col gap-2.5">
            <legend className="mb-1 flex w-full items-center justify-between text-xs font-semibold text-zinc-700 dark:text-zinc-300">
              Weights
              <span className={`font-normal tabular-nums ${Math.abs(sum - 1) < 0.001 ? "text-zinc-500" : "text-amber-600 dark:text-amber-400"}`} data-testid="weights-sum">
                sum {sum.toFixed(2)}
              </span>
            </legend>
            {TERMS.map((t) => (
              <label key={t.key} className="grid grid-cols-[88px_1fr_36px] items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
                <span className="flex items-center gap-1.5">
                  <span aria-hidden className={`size-2.5 rounded-sm ${t.swatch}`} />
                  {t.label}
                </span>
                <input
                  type="range"
                  min={0}
                  max={1}
                  step={0.05}
                  value={weights[t.weight]}
                  data-testid={`weight-${t.weight}`}
                  onChange={(e) => setWeights((w) => ({ ...w, [t.weight]: Number(e.target.value) }))}
                  className="accent-indigo-600"
                />
                <span className="text-right text-zinc-900 tabular-nums dark:text-zinc-100">{weights[t.weight].toFixed(2)}</span>
              </label>
            ))}
            <div className="flex gap-2 text-[11px]">
              <button type="button" className="text-indigo-600 hover:underline dark:text-indigo-400" onClick={() => setWeights(DEFAULTS)}>
                Reset to 0.6 / 0.2 / 0.2
              </button>
              {Math.abs(sum - 1) >= 0.001 && sum > 0 && (
                <button
                  type="button"
                  className="text-indigo-600 hover:underline dark:text-indigo-400"
                  onClick={() => setWeights((w) => ({ similarity: +(w.similarity / sum).toFixed(2), recency: +(w.recency / sum).toFixed(2), importance: +(w.importance / sum).toFixed(2) }))}
                >
                  Normalise to 1
                </button>
              )}
            </div>
          </fieldset>

          <div className="flex flex-col gap-1.5">
            <span className="text-xs font-semibold text-zinc-700 dark:text-zinc-300">Types</span>
            <div className="flex flex-wrap gap-1.5">
              <MemoryTypeToggles value={types} onChange={setTypes} />
            </div>
            <span className="text-[11px] text-zinc-500">{types.length ? "Only the selected types" : "All types"}</span>
          </div>

          <label className="flex flex-col gap-1 text-xs text-zinc-600 dark:text-zinc-400">
            k (results)
            <input type="number" min={1} max={100} value={k} data-testid="playground-k" onChange={(e) => setK(Math.max(1, Math.min(100, Number(e.target.value) || 1)))} className="h-8 w-24 rounded-md border border-zinc-300 bg-white px-2 text-sm tabular-nums dark:border-zinc-700 dark:bg-zinc-950" />
          </label>

          <div className="flex flex-col gap-1">
            <label htmlFor="pg-min-score" className="flex items-center justify-between text-xs font-semibold text-zinc-700 dark:text-zinc-300">
              Minimum score
              <output htmlFor="pg-min-score" className="font-normal text-zinc-900 tabular-nums dark:text-zinc-100" data-testid="min-score-value">
                {minScore > 0 ? minScore.toFixed(2) : "off"}
              </output>
            </label>
            <input
              id="pg-min-score"
              type="range"
              min={0}
              max={1}
              step={0.05}
              value={minScore}
              data-testid="playground-min-score"
              onChange={(e) => setMinScore(Number(e.target.value))}
              className="accent-indigo-600"
            />
            <span className="text-[11px] text-zinc-600 dark:text-zinc-400">
              {minScore > 0 ? "Results scoring less are left out; the line on each bar marks it." : "Off: the k best are shown however weak."}
            </span>
          </div>

          <label className="flex items-start gap-2 text-xs text-zinc-600 dark:text-zinc-400">
            <input type="checkbox" checked={dryRun} data-testid="playground-dry-run" onChange={(e) => setDryRun(e.target.checked)} className="mt-0.5 size-3.5 accent-indigo-600" />
            <span>
              <span className="font-medium text-zinc-800 dark:text-zinc-200">Dry run</span> — don&apos;t count this as an access (no access_count / last used update; the retrieval is logged as a dry run and not listed on the memory).
            </span>
          </label>
        </aside>

        <section className="min-w-0">
          {data && <ModelBanner data={data} />}
          <div className="mt-3 flex flex-wrap items-center gap-4 text-[11px] text-zinc-500 dark:text-zinc-400" aria-label="Legend">
            {TERMS.map((t) => (
              <span key={t.key} className="inline-flex items-center gap-1.5">
                <span aria-hidden className={`h-2.5 w-4 rounded-sm ${t.color}`} />
                {t.label} term = {t.weight} weight × {t.weight === "similarity" ? "cosine" : t.weight === "recency" ? "time decay" : "importance"}
              </span>
            ))}
            {data && (
              <span className="ml-auto tabular-nums" data-testid="playground-summary">
                {stale && <Spinner className="mr-1 text-indigo-500" />}
                {data.data.length} results · min score {params.minScore > 0 ? params.minScore.toFixed(2) : "off"} · {data.latency_ms.toFixed(0)} ms
                {params.dryRun ? " · dry run" : " · counted as access"}
              </span>
            )}
          </div>
          <div className="mt-3">
            {!query.trim() ? (
              <div className="rounded-lg border border-dashed border-zinc-300 bg-white dark:border-zinc-700 dark:bg-zinc-900">
                <EmptyState title="Type a query and press Enter">
                  Each result shows how similarity, recency and importance add up to its score. Move the weights to re-rank.
                </EmptyState>
              </div>
            ) : search.isError && !data ? (
              <ErrorBox title="Search failed" error={search.error} onRetry={() => search.refetch()} />
            ) : !data ? (
              <div className="space-y-2">
                {Array.from({ length: 4 }, (_, i) => (
                  <Skeleton key={i} className="h-24 w-full" />
                ))}
              </div>
            ) : data.data.length === 0 ? (
              <div className="rounded-lg border border-dashed border-zinc-300 bg-white dark:border-zinc-700 dark:bg-zinc-900" data-testid="playground-empty">
                <EmptyState title="Nothing matched">Try other words, lower the min score or include more types.</EmptyState>
              </div>
            ) : (
              <>
              <LowSimilarityWarning data={data} />
              <ol className={`flex flex-col gap-2 transition-opacity ${stale ? "opacity-70" : ""}`} data-testid="playground-results">
                {data.data.map((h, i) => (
                  <Result
                    key={h.memory.id}
                    hit={h}
                    rank={i + 1}
                    scale={scale}
                    user={user}
                    minScore={params.minScore}
                    marked={marked.includes(h.memory.id)}
                    onMark={(on) => setMarked((m) => (on ? [...m, h.memory.id] : m.filter((x) => x !== h.memory.id)))}
                  />
                ))}
              </ol>
              <div className="mt-3">
                <SaveAsTest
                  key={`${user}:${params.query}`}
                  idPrefix="playground-test"
                  userId={user}
                  question={params.query.trim()}
                  memoryIds={marked.filter((id) => data.data.some((h) => h.memory.id === id))}
                  hint="Mark the right hits above; the case expects them within k of a run."
                />
              </div>
              </>
            )}
            {search.isError && data && <p role="alert" className="mt-2 text-xs text-red-600 dark:text-red-400">{search.error.message}</p>}
          </div>
        </section>
      </main>
    </MemoriesShell>
  );
}

function ModelBanner({ data }: { data: SearchResponse }) {
  const lexical = data.embedding_kind === "lexical";
  return (
    <div
      data-testid="embedding-banner"
      data-kind={data.embedding_kind}
      className={`rounded-lg border px-4 py-2.5 text-sm ${
        lexical ? "border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-100" : "border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900"
      }`}
    >
      Embeddings: <span className="font-mono font-medium">{data.embedding_model}</span> <span className="text-xs opacity-75">({data.embedding_kind})</span>
      {lexical && (
        <span className="mt-0.5 block text-xs">
          This is the built-in lexical embedder: it matches words and word pieces, not meaning. “dinner” will not find “restaurant”. Configure an OpenAI-compatible embedding model for semantic search.
        </span>
      )}
    </div>
  );
}

/** Shown when even the best hit barely shares anything with the query: its rank comes from recency and importance. */
function LowSimilarityWarning({ data }: { data: SearchResponse }) {
  const best = Math.max(...data.data.map((h) => h.breakdown.cosine));
  if (!(best < LOW_SIMILARITY)) return null;
  return (
    <div
      role="status"
      data-testid="low-similarity-warning"
      className="mb-2 rounded-lg border border-amber-300 bg-amber-50 px-4 py-2.5 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-100"
    >
      <strong>Weak match.</strong> The best cosine similarity is {best.toFixed(3)}, below {LOW_SIMILARITY.toFixed(2)}: no memory is really about this query.
      These results rank by recency and importance. Raise the minimum score to leave them out.
    </div>
  );
}

function Result({ hit, rank, scale, user, minScore, marked, onMark }: { hit: SearchHit; rank: number; scale: number; user: string; minScore: number; marked: boolean; onMark: (on: boolean) => void }) {
  const b = hit.breakdown;
  return (
    <li
      data-testid="playground-result"
      data-id={hit.memory.id}
      data-score={hit.score.toFixed(6)}
      className="rounded-lg border border-zinc-200 bg-white p-3 shadow-xs dark:border-zinc-800 dark:bg-zinc-900"
    >
      <div className="flex items-start gap-3">
        <span className="mt-0.5 w-6 shrink-0 text-right font-mono text-xs text-zinc-500 tabular-nums">#{rank}</span>
        <input
          type="checkbox"
          className="mt-1 size-4 shrink-0 accent-indigo-600"
          checked={marked}
          onChange={(e) => onMark(e.target.checked)}
          aria-label={`Right answer: ${hit.memory.content}`}
          data-testid="mark-right-hit"
        />
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-1.5">
            <TypeBadge type={hit.memory.memory_type} />
            {b.cosine < LOW_SIMILARITY && (
              <Badge tone="amber" title={`cosine ${b.cosine.toFixed(3)} is below ${LOW_SIMILARITY}`} testId="low-similarity-badge">
                low similarity
              </Badge>
            )}
            {b.matched_by.map((mb) => (
              <Badge key={mb} tone={mb === "vector" ? "accent" : "neutral"} title={mb === "vector" ? "Found by embedding similarity" : "Found by text match"}>
                {mb}
              </Badge>
            ))}
          </div>
          <Link href={`/memories/${hit.memory.id}?user=${encodeURIComponent(user)}`} className="mt-1 line-clamp-2 text-sm leading-5 hover:text-indigo-700 dark:hover:text-indigo-300">
            {hit.memory.content}
          </Link>
        </div>
        <div className="shrink-0 text-right">
          <div className="text-lg leading-none font-semibold tabular-nums" data-testid="result-score">
            {b.final.toFixed(3)}
          </div>
          <div className="text-[10px] text-zinc-500 uppercase">final</div>
        </div>
      </div>
      <div className="mt-2.5 ml-9">
        <ScoreBar parts={b} scale={scale} minScore={minScore} />
        <dl className="mt-1.5 flex flex-wrap gap-x-4 gap-y-0.5 text-[11px] text-zinc-500 tabular-nums dark:text-zinc-400">
          <Num label="cosine" v={b.cosine.toFixed(3)} />
          <Num label="decay" v={b.time_decay.toFixed(3)} />
          <Num label="days since access" v={b.days_since_access >= 365 ? "never" : b.days_since_access.toFixed(1)} />
          <Num label="importance" v={b.importance.toFixed(2)} />
          <Num label="sim + rec + imp" v={`${b.similarity_term.toFixed(3)} + ${b.recency_term.toFixed(3)} + ${b.importance_term.toFixed(3)}`} />
          <Num label="final" v={b.final.toFixed(3)} strong />
        </dl>
      </div>
    </li>
  );
}

function Num({ label, v, strong }: { label: string; v: string; strong?: boolean }) {
  return (
    <div className="flex gap-1">
      <dt>{label}</dt>
      <dd className={strong ? "font-semibold text-zinc-900 dark:text-zinc-100" : "text-zinc-700 dark:text-zinc-300"}>{v}</dd>
    </div>
  );
}
