"use client";
import { useId } from "react";
import type { Message } from "@/client/api-types";
import { absoluteTime, formatInt, oneLine } from "@/client/ui/format";
import { Spinner } from "@/components/ui/states";

/**
 * Steps through the thread's turns. A native range input: Left/Right (and Up/Down, Home/End,
 * Page Up/Down) move it, and assistive technology reads it as "turn 12 of 40". The buttons
 * beside it step one turn for pointer users.
 */
export function TurnScrubber({ turns, index, onIndex, pending }: { turns: Message[]; index: number; onIndex: (i: number) => void; pending: boolean }) {
  const id = useId();
  const n = turns.length;
  const turn = turns[index];
  if (!turn) return null;
  return (
    <div className="flex flex-col gap-2" data-testid="turn-scrubber">
      <div className="flex min-w-0 items-center gap-2">
        <button
          type="button"
          onClick={() => onIndex(index - 1)}
          disabled={index <= 0}
          aria-label="Previous turn"
          data-testid="scrub-prev"
          className="grid size-8 shrink-0 place-items-center rounded-md border border-zinc-300 bg-white text-zinc-700 hover:bg-zinc-50 disabled:opacity-40 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200"
        >
          ‹
        </button>
        <label htmlFor={id} className="sr-only">
          Turn of the thread
        </label>
        <input
          id={id}
          type="range"
          min={0}
          max={Math.max(0, n - 1)}
          step={1}
          value={index}
          onChange={(e) => onIndex(Number(e.target.value))}
          aria-valuetext={`turn ${index + 1} of ${n}: ${oneLine(turn.query, 80)}`}
          data-testid="scrub-range"
          className="h-2 min-w-0 flex-1 cursor-pointer accent-indigo-600"
        />
        <button
          type="button"
          onClick={() => onIndex(index + 1)}
          disabled={index >= n - 1}
          aria-label="Next turn"
          data-testid="scrub-next"
          className="grid size-8 shrink-0 place-items-center rounded-md border border-zinc-300 bg-white text-zinc-700 hover:bg-zinc-50 disabled:opacity-40 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200"
        >
          ›
        </button>
      </div>
      <p className="flex min-w-0 flex-wrap items-baseline gap-x-2 gap-y-0.5 text-xs text-zinc-600 dark:text-zinc-400" aria-live="polite">
        <span className="font-semibold text-zinc-900 tabular-nums dark:text-zinc-100" data-testid="scrub-position">
          Turn {formatInt(index + 1)} of {formatInt(n)}
        </span>
        <time dateTime={turn.created_at} className="tabular-nums">
          {absoluteTime(turn.created_at)}
        </time>
        <span className="min-w-0 truncate italic" title={turn.query}>
          “{oneLine(turn.query, 120) || "(empty query)"}”
        </span>
        {pending && (
          <span className="inline-flex items-center gap-1 text-indigo-600 dark:text-indigo-400">
            <Spinner /> replaying…
          </span>
        )}
      </p>
    </div>
  );
}
