"use client";
import Link from "next/link";
import type { ChangeSince, ReplayResult, Why } from "@/client/api-types";
import { absoluteTime, formatInt, plainTimes } from "@/client/ui/format";
import { RULE_LABEL } from "@/client/ui/replay-model";
import { ScoreBar } from "@/components/ui/score-bar";
import { Spinner } from "@/components/ui/states";
import { TypeBadge } from "@/components/memories/type-badge";
import { SinceBadges } from "./retrieval-list";

/**
 * "Why not this memory?" for the replayed turn: the verdict, the rule that cut it and its
 * numbers, the memory's state then and its score parts, and what happened to it since.
 */
export function WhyPanel({ memoryId, result, pending, since, onClose }: { memoryId: string; result: ReplayResult; pending: boolean; since: ChangeSince | undefined; onClose: () => void }) {
  const why: Why | undefined = result.why.find((w) => w.memory_id === memoryId);
  const s = why?.state;
  return (
    <section
      aria-labelledby="why-h"
      data-testid="why-panel"
      data-rule={why?.rule}
      className="rounded-xl border border-indigo-300 bg-white p-4 shadow-sm dark:border-indigo-800 dark:bg-zinc-900"
    >
      <header className="flex items-start gap-2">
        <div className="min-w-0">
          <h2 id="why-h" className="text-sm font-semibold">
            {why?.in_prompt ? "Why this memory?" : "Why not this memory?"}
          </h2>
          <p className="font-mono text-[11px] break-all text-zinc-600">{memoryId}</p>
        </div>
        <button type="button" onClick={onClose} className="ml-auto rounded px-1.5 text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 dark:hover:bg-zinc-800" aria-label="Close the explanation" data-testid="why-close">
          ✕
        </button>
      </header>
      {!why ? (
        pending ? (
          <p className="mt-3 flex items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
            <Spinner /> Replaying the turn with this memory explained…
          </p>
        ) : (
          <p className="mt-3 text-xs text-zinc-600 dark:text-zinc-400">The replay did not explain this memory.</p>
        )
      ) : (
        <>
          <p
            className={`mt-3 rounded-lg px-3 py-2 text-sm ${why.in_prompt ? "bg-emerald-50 text-emerald-900 dark:bg-emerald-950/40 dark:text-emerald-100" : "bg-zinc-100 text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100"}`}
            data-testid="why-verdict"
          >
            <strong>{why.in_prompt ? "In the prompt" : `Left out: ${RULE_LABEL[why.rule]}`}.</strong> <span data-testid="why-reason">{plainTimes(why.reason)}</span>
          </p>
          <dl className="mt-3 grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-xs">
            <dt className="text-zinc-600">Turn</dt>
            <dd>
              #{result.turn.index + 1} · {absoluteTime(result.turn.created_at)}
            </dd>
            <dt className="text-zinc-600">Rank then</dt>
            <dd className="tabular-nums" data-testid="why-rank">
              {why.rank === null ? "not ranked" : `#${why.rank} (k = ${result.settings.memory.k})`}
            </dd>
            <dt className="text-zinc-600">Score then</dt>
            <dd className="tabular-nums">{why.score === null ? "—" : why.score.toFixed(4)}</dd>
            {s && (
              <>
                <dt className="text-zinc-600">State then</dt>
                <dd className="flex flex-wrap items-center gap-1.5">
                  <TypeBadge type={s.memory_type} />
                  <span>{s.status}</span>
                  <span className="text-zinc-600">
                    v{s.version} · importance {s.importance_score.toFixed(2)} · {formatInt(s.access_count)} accesses
                  </span>
                </dd>
              </>
            )}
            {since && (
              <>
                <dt className="text-zinc-600">Since</dt>
                <dd className="flex flex-wrap items-center gap-1.5">
                  <SinceBadges change={since} />
                </dd>
              </>
            )}
          </dl>
          {s && (
            <blockquote className="mt-3 border-l-2 border-zinc-300 pl-3 text-sm whitespace-pre-wrap text-zinc-800 dark:border-zinc-700 dark:text-zinc-200" data-testid="why-content-then">
              {s.content}
            </blockquote>
          )}
          {s && !s.reconstructed && <p className="mt-2 text-xs text-amber-800 dark:text-amber-300">Not rebuilt exactly: {s.reconstruction_note}</p>}
          {why.score_parts && (
            <div className="mt-3">
              <ScoreBar parts={why.score_parts} scale={Math.max(why.score_parts.final, 0.0001)} animated={false} />
              <p className="mt-1 text-[11px] text-zinc-600 tabular-nums dark:text-zinc-400">
                {why.score_parts.similarity_term.toFixed(3)} similarity (cosine {why.score_parts.cosine.toFixed(3)}) + {why.score_parts.recency_term.toFixed(3)} recency (decay{" "}
                {why.score_parts.time_decay.toFixed(3)}) + {why.score_parts.importance_term.toFixed(3)} importance = {why.score_parts.final.toFixed(3)}
              </p>
            </div>
          )}
          <Link
            href={`/memories/${memoryId}?user=${encodeURIComponent(result.user_id)}&replay=${result.conversation_id}.${result.turn.message_id}`}
            className="mt-3 inline-block text-xs font-medium text-indigo-700 hover:underline dark:text-indigo-300"
          >
            Open this memory’s page
          </Link>
        </>
      )}
    </section>
  );
}
