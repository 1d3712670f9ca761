"use client";
import { useRef, type KeyboardEvent } from "react";

/**
 * One choice out of a few, as a row of toggle buttons (aria-pressed) in a labelled group;
 * each button shows its value, capitalized.
 * Every button is a plain button (Tab, Enter and Space work as usual); the arrow keys,
 * Home and End also move the focus along the row.
 */
export function SegmentedControl<V extends string>({
  label,
  options,
  value,
  onChange,
  testIdPrefix,
}: {
  /** The group's accessible name. */
  label: string;
  options: readonly V[];
  value: V;
  onChange: (v: V) => void;
  /** Each button gets `${testIdPrefix}${value}`. */
  testIdPrefix?: string;
}) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const onKeyDown = (e: KeyboardEvent, i: number) => {
    const n = options.length;
    const to = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1 + n, ArrowUp: i - 1 + n, Home: 0, End: n - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    refs.current[to % n]?.focus();
  };
  return (
    <div role="group" aria-label={label} className="inline-flex h-9 rounded-md border border-zinc-300 bg-white p-0.5 text-sm dark:border-zinc-700 dark:bg-zinc-900">
      {options.map((o, i) => (
        <button
          key={o}
          ref={(el) => {
            refs.current[i] = el;
          }}
          type="button"
          aria-pressed={value === o}
          data-testid={testIdPrefix ? `${testIdPrefix}${o}` : undefined}
          onClick={() => onChange(o)}
          onKeyDown={(e) => onKeyDown(e, i)}
          className={`rounded px-2.5 capitalize transition-colors focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500 ${
            value === o ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900" : "text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100"
          }`}
        >
          {o}
        </button>
      ))}
    </div>
  );
}
