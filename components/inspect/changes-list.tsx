"use client";
import { useId, useState } from "react";
import type { InspectResult, TransformAction } from "@/client/ui/inspect-model";
import { formatInt, plural } from "@/client/ui/format";
import { useOffloaded } from "@/client/hooks/inspect";
import { TYPE_STYLE } from "@/client/ui/memory-format";
import { Badge } from "@/components/ui/badge";

const ACTION_TONE: Record<TransformAction, string> = {
  truncated: "bg-orange-100 text-orange-800 dark:bg-orange-900/50 dark:text-orange-200",
  merged: "bg-sky-100 text-sky-800 dark:bg-sky-900/50 dark:text-sky-200",
  summarized: "bg-violet-100 text-violet-800 dark:bg-violet-900/50 dark:text-violet-200",
  offloaded: "bg-amber-100 text-amber-900 dark:bg-amber-900/50 dark:text-amber-200",
  system_inserted: "bg-zinc-200 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200",
  temporary_appended: "bg-pink-100 text-pink-800 dark:bg-pink-900/50 dark:text-pink-200",
  tool_calls_removed: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200",
  split: "bg-orange-100 text-orange-800 dark:bg-orange-900/50 dark:text-orange-200",
  message_inserted: "bg-zinc-200 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200",
  kept_unpaired: "bg-yellow-100 text-yellow-900 dark:bg-yellow-900/50 dark:text-yellow-200",
};

const SHOW = 4;
const CHIPS = 36;

type Item = { key: string; index: number; reason: string; preview?: string; kind: "dropped" | "transformed"; section?: string; action?: TransformAction; ref?: string };

/** Every drop and change with its reason, grouped by reason so 600 identical drops read as one line. */
export function ChangesList({ result, compact }: { result: InspectResult; compact?: boolean }) {
  const dropped: Item[] = result.dropped.map((d, i) => ({ key: `d${i}`, kind: "dropped", index: d.index, reason: d.reason, preview: d.preview, section: d.section }));
  const transformed: Item[] = result.transformed.map((t, i) => ({ key: `t${i}`, kind: "transformed", index: t.index, reason: t.reason, preview: t.preview, action: t.action, ref: t.ref }));
  const groups = group([...dropped, ...transformed]);
  const counts = new Map<string, number>();
  for (const t of result.transformed) counts.set(t.action, (counts.get(t.action) ?? 0) + 1);
  const hid = useId();

  return (
    <section aria-labelledby={hid} data-testid="changes-list">
      <h3 id={hid} className="flex flex-wrap items-center gap-2 text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
        What changed
        <span className="font-normal normal-case tracking-normal">
          {dropped.length || transformed.length ? (
            <>
              {plural(dropped.length, "drop")}
              {[...counts].map(([a, n]) => ` · ${formatInt(n)} ${a.replace("_", " ")}`).join("")}
            </>
          ) : (
            "nothing: the history went in as is"
          )}
        </span>
        {result.strategy.triggered !== undefined && (
          <Badge tone={result.strategy.triggered ? "amber" : "neutral"}>{result.strategy.triggered ? "compression triggered" : "under thresholds: not triggered"}</Badge>
        )}
      </h3>
      {groups.length > 0 && (
        <ul className={`mt-2 flex flex-col gap-2 ${compact ? "max-h-72 overflow-y-auto pr-1" : ""}`}>
          {groups.map((g) => (
            <Group key={g.id} items={g.items} />
          ))}
        </ul>
      )}
    </section>
  );
}

function group(items: Item[]) {
  const map = new Map<string, Item[]>();
  for (const it of items) {
    // Reasons carry per-item numbers (lengths, tokens): group on the reason's shape.
    const id = `${it.kind}|${it.action ?? it.section}|${it.reason.replace(/\d[\d,.]*/g, "#")}`;
    const list = map.get(id);
    if (list) list.push(it);
    else map.set(id, [it]);
  }
  return [...map].map(([id, items]) => ({ id, items }));
}

function Group({ items }: { items: Item[] }) {
  const [all, setAll] = useState(false);
  const first = items[0];
  // Without previews (a stored conversation's history is not sent back) the indices say it all.
  const chips = items.every((i) => !i.preview && !i.ref);
  const limit = chips ? CHIPS : SHOW;
  const shown = all ? items : items.slice(0, limit);
  const indices = items.map((i) => i.index).filter((i) => i >= 0);
  const range = indices.length > 1 ? `#${Math.min(...indices) + 1}–#${Math.max(...indices) + 1}` : null;
  const tone = first.kind === "dropped" ? "bg-red-100 text-red-800 dark:bg-red-900/50 dark:text-red-200" : ACTION_TONE[first.action!];
  return (
    <li className="rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
      <div className="flex flex-wrap items-center gap-2 border-b border-zinc-100 px-3 py-1.5 text-xs dark:border-zinc-800">
        <span className={`rounded px-1.5 py-px text-[11px] font-semibold ${tone}`}>{first.kind === "dropped" ? `dropped ${first.section === "memories" ? "memory" : ""}`.trim() : first.action!.replace(/_/g, " ")}</span>
        <span className="font-medium text-zinc-800 dark:text-zinc-200">{items.length > 1 ? `${formatInt(items.length)} ×` : ""}</span>
        <span className="min-w-0 flex-1 text-zinc-600 dark:text-zinc-400">{items.length > 1 || chips ? first.reason.replace(/\(indices [^)]*\)/, "") : first.reason}</span>
        {range && <span className="font-mono text-[11px] text-zinc-500 tabular-nums">{range}</span>}
      </div>
      {chips ? (
        <div className="flex flex-wrap gap-1 px-3 py-2">
          {shown.map((it) => (
            <span
              key={it.key}
              data-testid={it.kind === "dropped" ? "dropped-item" : "transformed-item"}
              data-action={it.action}
              data-section={it.section}
              data-index={it.index}
              title={it.reason}
              className="rounded bg-zinc-100 px-1.5 py-px font-mono text-[11px] text-zinc-600 tabular-nums dark:bg-zinc-800 dark:text-zinc-300"
            >
              {it.index >= 0 ? `${it.section === "memories" ? "mem " : ""}#${it.index + 1}` : "added"}
            </span>
          ))}
        </div>
      ) : (
        <ul className="divide-y divide-zinc-100 dark:divide-zinc-800/70">
          {shown.map((it) => (
            <li
              key={it.key}
              data-testid={it.kind === "dropped" ? "dropped-item" : "transformed-item"}
              data-action={it.action}
              data-section={it.section}
              data-index={it.index}
              className="flex items-start gap-2 px-3 py-1.5 text-xs"
            >
              <span className="w-12 shrink-0 font-mono text-[11px] text-zinc-500 tabular-nums">{it.index >= 0 ? `${it.section === "memories" ? "mem" : "in"} #${it.index + 1}` : "added"}</span>
              <span className="min-w-0 flex-1">
                {it.preview ? <span className="line-clamp-2 text-zinc-700 dark:text-zinc-300">{it.preview}</span> : <span className="text-zinc-500 dark:text-zinc-400">{it.reason}</span>}
                {items.length > 1 && it.preview && <span className="block text-[11px] text-zinc-500 dark:text-zinc-400">{it.reason}</span>}
                {it.ref && <OffloadedPeek refId={it.ref} />}
              </span>
            </li>
          ))}
        </ul>
      )}
      {items.length > limit && (
        <button type="button" onClick={() => setAll((a) => !a)} className="w-full border-t border-zinc-100 px-3 py-1 text-left text-[11px] font-medium text-indigo-600 hover:bg-zinc-50 dark:border-zinc-800 dark:text-indigo-400 dark:hover:bg-zinc-800/50">
          {all ? "Show fewer" : `Show all ${formatInt(items.length)}`}
        </button>
      )}
    </li>
  );
}

function OffloadedPeek({ refId }: { refId: string }) {
  const [open, setOpen] = useState(false);
  const q = useOffloaded(open ? refId : null);
  return (
    <span className="block">
      <button type="button" onClick={() => setOpen((o) => !o)} aria-expanded={open} className="text-[11px] font-medium text-amber-700 hover:underline dark:text-amber-300">
        {open ? "Hide offloaded content" : "Show offloaded content"}
      </button>
      {open && (
        <pre className="mt-1 max-h-60 overflow-auto rounded bg-zinc-50 p-2 text-[11px] whitespace-pre-wrap dark:bg-zinc-950">
          {q.isPending ? "Loading…" : q.isError ? q.error.message : q.data?.content}
        </pre>
      )}
    </span>
  );
}

export function MemoriesList({ result }: { result: InspectResult }) {
  if (result.endpoint !== "context") return null;
  const reasons = new Map(result.dropped.filter((d) => d.section === "memories").map((d) => [d.index, d.reason]));
  const included = result.memories.filter((m) => m.included).length;
  return (
    <section aria-labelledby="mem-h" data-testid="memories-section">
      <h3 id="mem-h" className="text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
        Long-term memories{" "}
        <span className="font-normal normal-case tracking-normal">
          {result.memories.length ? `${included} of ${result.memories.length} included` : "none retrieved"}
          {result.retrievalId && <span className="ml-1 font-mono text-[10px]">· {result.retrievalId.slice(0, 8)}</span>}
        </span>
      </h3>
      {result.memories.length > 0 && (
        <ol className="mt-2 flex flex-col gap-1.5">
          {result.memories.map((m, i) => (
            <li
              key={m.id}
              data-testid="memory-item"
              data-included={m.included ? "true" : "false"}
              className={`rounded-lg border px-3 py-2 text-xs ${m.included ? "border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900" : "border-dashed border-zinc-300 bg-zinc-50 opacity-70 dark:border-zinc-700 dark:bg-zinc-900/40"}`}
            >
              <div className="flex items-center gap-2">
                <span aria-hidden className={`size-1.5 rounded-full ${TYPE_STYLE[m.memory_type].dot}`} />
                <span className="font-medium text-zinc-700 dark:text-zinc-300">{m.memory_type}</span>
                <span className="font-mono text-zinc-500 tabular-nums">score {m.score.toFixed(3)}</span>
                <span className="ml-auto">{m.included ? <Badge tone="green">included</Badge> : <Badge tone="neutral">left out</Badge>}</span>
              </div>
              <p className="mt-1 line-clamp-3 text-zinc-800 dark:text-zinc-200">{m.content}</p>
              {!m.included && reasons.get(i) && <p className="mt-0.5 text-[11px] text-zinc-500">{reasons.get(i)}</p>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
