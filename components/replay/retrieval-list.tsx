"use client";
import Link from "next/link";
import { memo } from "react";
import type { ChangeSince, ReplayResult, Why } from "@/client/api-types";
import { plainTimes } from "@/client/ui/format";
import { CHANGE_LABEL, RULE_LABEL } from "@/client/ui/replay-model";
import { Badge } from "@/components/ui/badge";
import { SCORE_TERMS, ScoreBar } from "@/components/ui/score-bar";
import { TypeBadge } from "@/components/memories/type-badge";

/** Marks of what happened to a memory after the replayed turn. */
export function SinceBadges({ change }: { change: ChangeSince | undefined }) {
  if (!change) return null;
  return (
    <>
      {change.changes.map((c) => (
        <Badge key={c} tone={c === "created_later" ? "accent" : c === "edited_since" ? "amber" : c === "deleted_since" ? "red" : "neutral"} testId="since-badge">
          {CHANGE_LABEL[c]}
        </Badge>
      ))}
    </>
  );
}

export function RuleBadge({ why }: { why: Why }) {
  return (
    <Badge tone={why.in_prompt ? "green" : why.rule === "created_after_turn" ? "accent" : "neutral"} testId="why-rule" title={plainTimes(why.reason)}>
      {RULE_LABEL[why.rule]}
    </Badge>
  );
}

/**
 * The retrieval of then: every memory the search ranked (the ones in the prompt and the next
 * ones k or min_score cut), with its score parts as they were, drawn on one scale.
 */
export const RetrievalList = memo(function RetrievalList({
  result,
  since,
  newInPrompt,
  selected,
  onWhy,
}: {
  result: ReplayResult;
  since: Map<string, ChangeSince>;
  /** In this turn's prompt and not in the previous turn's. */
  newInPrompt: Set<string>;
  selected: string | null;
  onWhy: (id: string) => void;
}) {
  const ranked = result.why.filter((w) => w.rank !== null).sort((a, b) => a.rank! - b.rank!);
  const loggedRank = new Map((result.logged?.hits ?? []).map((h) => [h.memory_id, h.rank]));
  const scale = Math.max(0.0001, ...ranked.map((w) => w.score ?? 0));
  const k = result.settings.memory.k;
  const minScore = result.settings.memory.min_score ?? undefined;
  const inPrompt = ranked.filter((w) => w.in_prompt).length;
  return (
    <section aria-labelledby="retrieval-h" data-testid="replay-retrieval">
      <header className="mb-2 flex flex-wrap items-baseline gap-x-2 gap-y-1">
        <h2 id="retrieval-h" className="text-sm font-semibold">
          Retrieval then
        </h2>
        <span className="text-xs text-zinc-600 dark:text-zinc-400">
          {result.retrieval
            ? `${inPrompt} in the prompt · k = ${k}${minScore !== undefined ? ` · min score ${minScore}` : ""} · ${result.retrieval.candidate_count} candidates · ${result.retrieval.embedding_model}`
            : "no retrieval (memory is off in the profile of then)"}
        </span>
      </header>
      {ranked.length > 0 && (
        <p className="mb-2 flex flex-wrap gap-x-3 text-[11px] text-zinc-600 dark:text-zinc-400" aria-label="Score bar colours">
          {SCORE_TERMS.map((t) => (
            <span key={t.key} className="inline-flex items-center gap-1">
              <span aria-hidden className={`size-2 rounded-sm ${t.color}`} />
              {t.label} × {(result.retrieval?.weights[t.weight] ?? 0).toFixed(2)}
            </span>
          ))}
        </p>
      )}
      {result.retrieval && !result.retrieval.reconstructed && (
        <p className="mb-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-1.5 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200" data-testid="not-reconstructed">
          The history cannot rebuild every memory of then exactly: the affected ones say why below.
        </p>
      )}
      {ranked.length === 0 ? (
        <p className="rounded-lg border border-dashed border-zinc-300 px-3 py-4 text-center text-xs text-zinc-600 dark:border-zinc-700 dark:text-zinc-400">
          {result.retrieval ? "The user had no memory the search could rank at this turn." : "Nothing was retrieved."}
        </p>
      ) : (
        <ol className="flex flex-col gap-1.5">
          {ranked.map((w) => {
            const isSelected = selected === w.memory_id;
            return (
              <li
                key={w.memory_id}
                data-testid="retrieval-row"
                data-id={w.memory_id}
                data-in-prompt={w.in_prompt ? "true" : "false"}
                data-rule={w.rule}
                className={`rounded-lg border px-3 py-2 text-xs ${
                  isSelected
                    ? "border-indigo-400 bg-indigo-50/60 ring-1 ring-indigo-400 dark:border-indigo-600 dark:bg-indigo-950/30"
                    : w.in_prompt
                      ? "border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900"
                      : "border-dashed border-zinc-300 bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900/40"
                }`}
              >
                <RowMain w={w} change={since.get(w.memory_id)} isNew={newInPrompt.has(w.memory_id)} loggedRank={loggedRank.get(w.memory_id)} scale={scale} minScore={minScore} />
                <div className="mt-1.5 flex items-center gap-3">
                  <button
                    type="button"
                    onClick={() => onWhy(w.memory_id)}
                    aria-pressed={isSelected}
                    data-testid="why-button"
                    className="text-[11px] font-medium text-indigo-700 hover:underline dark:text-indigo-300"
                  >
                    {w.in_prompt ? "Why this memory?" : "Why not this memory?"}
                  </button>
                  {/* Not prefetched: the link names the turn, so each scrubber step would prefetch every row's page again. */}
                  <Link prefetch={false} href={`/memories/${w.memory_id}?user=${encodeURIComponent(result.user_id)}&replay=${result.conversation_id}.${result.turn.message_id}`} className="text-[11px] text-zinc-600 hover:underline dark:text-zinc-400">
                    Open memory
                  </Link>
                </div>
              </li>
            );
          })}
        </ol>
      )}
      {result.logged && result.logged.differences.length > 0 && (
        <details className="mt-3 rounded-lg border border-zinc-200 bg-white px-3 py-2 text-xs dark:border-zinc-800 dark:bg-zinc-900" data-testid="logged-differences">
          <summary className="cursor-pointer font-medium">
            The logged retrieval differs ({result.logged.differences.length})
          </summary>
          <ul className="mt-2 flex flex-col gap-1 text-zinc-700 dark:text-zinc-300">
            {result.logged.differences.map((d) => (
              <li key={d.memory_id}>
                <span className="font-mono text-[11px]">{d.memory_id.slice(0, 8)}</span> logged #{d.logged_rank ?? "—"}, replayed #{d.replayed_rank ?? "—"}: {d.explanation}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
});

type MainProps = {
  w: Why;
  change: ChangeSince | undefined;
  isNew: boolean;
  loggedRank: number | null | undefined;
  scale: number;
  minScore: number | undefined;
};

/** JSON of a plain API object: equal text, equal row (a new answer holds new objects for the same memory). */
const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/**
 * A ranked memory's marks, text and score bar: most of a row. Compared by value: the turns next
 * to each other rank mostly the same memories, and a scrubber step then renders only the rows
 * that differ (the row's links, which name the turn, are rendered apart).
 */
const RowMain = memo(
  function RowMain({ w, change, isNew, loggedRank, scale, minScore }: MainProps) {
    return (
      <>
        <div className="flex flex-wrap items-center gap-1.5">
          <span className="w-7 font-mono text-zinc-600 tabular-nums">#{w.rank}</span>
          {w.state && <TypeBadge type={w.state.memory_type} />}
          <RuleBadge why={w} />
          {isNew && (
            <Badge tone="accent" testId="new-in-prompt" title="In this turn's prompt, not in the previous turn's">
              new since last turn
            </Badge>
          )}
          <SinceBadges change={change} />
          {loggedRank !== undefined && <span className="text-[11px] text-zinc-600">logged #{loggedRank}</span>}
          <span className="ml-auto font-mono font-semibold tabular-nums">{w.score?.toFixed(3)}</span>
        </div>
        <p className="mt-1 line-clamp-2 text-zinc-800 dark:text-zinc-200">{w.state?.content}</p>
        {w.score_parts && (
          <div className="mt-1.5">
            <ScoreBar parts={w.score_parts} scale={scale} minScore={minScore} size="sm" animated={false} />
          </div>
        )}
      </>
    );
  },
  (a: MainProps, b: MainProps) => a.isNew === b.isNew && a.loggedRank === b.loggedRank && a.scale === b.scale && a.minScore === b.minScore && same(a.w, b.w) && same(a.change, b.change),
);
