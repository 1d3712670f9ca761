"use client";
import { useRef, useState } from "react";
import type { BranchLeaf } from "@/client/ui/tree-collapse";
import { absoluteTime, formatInt, oneLine, relativeTime } from "@/client/ui/format";

/** Every leaf of the tree (its last query, depth and time), newest first: a click jumps to it. */
export function BranchList({ leaves, selected, onJump }: { leaves: BranchLeaf[]; selected: string | null; onJump: (id: string) => void }) {
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  if (leaves.length < 2) return null;
  return (
    <div className="pointer-events-auto flex max-h-full min-h-0 flex-col self-start">
      <button
        ref={toggle}
        type="button"
        aria-expanded={open}
        aria-controls="branch-list"
        data-testid="branch-list-toggle"
        onClick={() => setOpen((o) => !o)}
        className="rounded-md border border-zinc-300 bg-white px-2.5 py-1 text-xs font-medium text-zinc-800 shadow-xs hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800"
      >
        {formatInt(leaves.length)} branches {open ? "▴" : "▾"}
      </button>
      {open && (
        <ul
          id="branch-list"
          aria-label="Branches"
          data-testid="branch-list"
          className="mt-1 max-h-72 w-80 max-w-[calc(100vw-2.5rem)] overflow-y-auto rounded-md border border-zinc-200 bg-white text-xs shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
        >
          {leaves.map((l) => {
            const current = l.id === selected;
            return (
              <li key={l.id} className="border-b border-zinc-100 last:border-0 dark:border-zinc-800">
                <button
                  type="button"
                  data-testid="branch-item"
                  data-id={l.id}
                  aria-current={current ? "true" : undefined}
                  onClick={() => {
                    // The list covers the tree's upper left: once a branch is picked, get out of its way.
                    setOpen(false);
                    toggle.current?.focus();
                    onJump(l.id);
                  }}
                  className={`block w-full px-3 py-2 text-left hover:bg-indigo-50 dark:hover:bg-indigo-950/50 ${current ? "bg-indigo-50 dark:bg-indigo-950/60" : ""}`}
                >
                  <span className="line-clamp-2 text-zinc-900 dark:text-zinc-100">{oneLine(l.query, 140) || <em>(empty query)</em>}</span>
                  <span className="mt-0.5 flex gap-2 text-[11px] text-zinc-600 tabular-nums dark:text-zinc-400">
                    <span>turn {formatInt(l.depth)}</span>
                    <time dateTime={l.created_at} title={absoluteTime(l.created_at)}>{relativeTime(l.created_at)}</time>
                    {current && <span className="font-medium text-indigo-700 dark:text-indigo-300">selected</span>}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
