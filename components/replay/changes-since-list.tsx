"use client";
import Link from "next/link";
import { memo } from "react";
import type { ChangeSince, ReplayResult } from "@/client/api-types";
import { absoluteTime, plural } from "@/client/ui/format";
import { TypeBadge } from "@/components/memories/type-badge";
import { SinceBadges } from "./retrieval-list";

/**
 * When each mark happened: "created Oct 2" for a memory made after the turn, its last change
 * for the rest ("archived Oct 5"): never the archive time beside "created later" alone.
 */
function sinceTimes(c: ChangeSince): string {
  const at = absoluteTime(c.changed_at);
  if (c.changes.includes("created_later") && c.created_at) {
    const created = `created ${absoluteTime(c.created_at)}`;
    return c.changes.includes("archived_since") ? `${created} · archived ${at}` : created;
  }
  if (c.changes.includes("deleted_since")) return `deleted ${at}`;
  if (c.changes.includes("archived_since")) return `archived ${at}`;
  if (c.changes.includes("restored_since")) return `restored ${at}`;
  return `changed ${at}`;
}

/** The user's memories as they are now, marked by what happened to them after the replayed turn. */
export const ChangesSinceList = memo(function ChangesSinceList({ result, selected, onWhy }: { result: ReplayResult; selected: string | null; onWhy: (id: string) => void }) {
  const list = result.changes_since.memories;
  const inPrompt = new Set(result.why.filter((w) => w.in_prompt).map((w) => w.memory_id));
  return (
    <section aria-labelledby="since-h" data-testid="changes-since">
      <header className="mb-2 flex flex-wrap items-baseline gap-x-2">
        <h2 id="since-h" className="text-sm font-semibold">
          Memories changed since this turn
        </h2>
        <span className="text-xs text-zinc-600 dark:text-zinc-400">
          {list.length ? `${plural(list.length, "memory", "memories")}${result.changes_since.truncated ? " (the newest)" : ""}` : "none"}
        </span>
        <Link
          prefetch={false}
          href={`/memories?user=${encodeURIComponent(result.user_id)}&status=all&replay=${result.conversation_id}.${result.turn.message_id}`}
          className="ml-auto text-xs text-indigo-700 hover:underline dark:text-indigo-300"
          data-testid="all-memories-link"
        >
          All memories of {result.user_id}
        </Link>
      </header>
      {list.length === 0 ? (
        <p className="rounded-lg border border-dashed border-zinc-300 px-3 py-4 text-center text-xs text-zinc-600 dark:border-zinc-700 dark:text-zinc-400">
          No memory of this user was created, edited, archived or deleted after this turn: today’s memories are the ones of then.
        </p>
      ) : (
        <ul className="flex flex-col gap-1.5">
          {list.map((c: ChangeSince) => (
            <SinceRow key={c.memory_id} c={c} selected={selected === c.memory_id} inPrompt={inPrompt.has(c.memory_id)} onWhy={onWhy} />
          ))}
        </ul>
      )}
    </section>
  );
});

type RowProps = { c: ChangeSince; selected: boolean; inPrompt: boolean; onWhy: (id: string) => void };

const sameChange = (a: ChangeSince, b: ChangeSince) =>
  a === b ||
  (a.memory_id === b.memory_id &&
    a.memory_type === b.memory_type &&
    a.content === b.content &&
    a.content_then === b.content_then &&
    a.changed_at === b.changed_at &&
    a.created_at === b.created_at &&
    a.changes.join() === b.changes.join());

/**
 * One memory of the list. Compared by value: neighbouring turns list mostly the same newest
 * changes (up to 200), and a scrubber step then renders only the rows that differ.
 */
const SinceRow = memo(
  function SinceRow({ c, selected, inPrompt, onWhy }: RowProps) {
    return (
      <li
        data-testid="since-row"
        data-id={c.memory_id}
        data-changes={c.changes.join(" ")}
        className={`rounded-lg border px-3 py-2 text-xs ${selected ? "border-indigo-400 ring-1 ring-indigo-400 dark:border-indigo-600" : "border-zinc-200 dark:border-zinc-800"} bg-white dark:bg-zinc-900`}
      >
        <div className="flex flex-wrap items-center gap-1.5">
          <TypeBadge type={c.memory_type} />
          <SinceBadges change={c} />
          <span className="ml-auto text-[11px] text-zinc-600 tabular-nums" data-testid="since-times">
            {sinceTimes(c)}
          </span>
        </div>
        {c.content_then !== null && (
          <p className="mt-1 text-zinc-600 line-through decoration-zinc-400" data-testid="content-then">
            {c.content_then}
          </p>
        )}
        <p className="mt-1 line-clamp-2 text-zinc-800 dark:text-zinc-200">{c.content}</p>
        {!c.changes.includes("deleted_since") && (
          <button type="button" onClick={() => onWhy(c.memory_id)} className="mt-1 text-[11px] font-medium text-indigo-700 hover:underline dark:text-indigo-300" data-testid="since-why">
            {inPrompt ? "Why in the prompt?" : "Why not this memory?"}
          </button>
        )}
      </li>
    );
  },
  (a: RowProps, b: RowProps) => a.selected === b.selected && a.inPrompt === b.inPrompt && a.onWhy === b.onWhy && sameChange(a.c, b.c),
);
