"use client";
import { memo, useState } from "react";
import { useOffloaded } from "@/client/hooks/inspect";
import { isSummary, offloadedRef, textOf, type DiffMark, type RoleMessage, type SectionName } from "@/client/ui/inspect-model";
import { formatInt } from "@/client/ui/format";
import { Spinner } from "@/components/ui/states";
import { SECTION_STYLE } from "./section-style";

const CLAMP = 900;

const ROLE_BG: Record<RoleMessage["role"], string> = {
  system: "bg-zinc-50 dark:bg-zinc-900/70",
  user: "bg-indigo-50/70 dark:bg-indigo-950/40",
  assistant: "bg-white dark:bg-zinc-900",
  tool: "bg-emerald-50/60 dark:bg-emerald-950/25",
};

/**
 * The final prompt, one card per message; the left border is the section's colour. Memoised:
 * the replay's scrubber renders its page again for the new position before the new prompt.
 */
export const PromptBubbles = memo(function PromptBubbles({
  messages,
  sections,
  marks,
  side,
  onlyDiff,
  memories,
  onlyLabel,
}: {
  messages: RoleMessage[];
  sections: SectionName[];
  /** Per message; undefined: no mark (the replay marks only what is new, and fades nothing). */
  marks?: (DiffMark | undefined)[];
  side?: "A" | "B";
  onlyDiff?: boolean;
  /** The system message carries injected memories: mark where they start. */
  memories?: boolean;
  /** The tag of an "only" message (default "only in A/B"): the replay's "new since turn 11". */
  onlyLabel?: string;
}) {
  if (!messages.length) return <p className="px-1 py-6 text-center text-sm text-zinc-500">The final prompt is empty.</p>;
  const keys = messageKeys(messages);
  return (
    <ol className="flex flex-col gap-2" aria-label="Final prompt">
      {messages.map((m, i) => {
        const mark = marks?.[i];
        if (onlyDiff && mark === "both") return null;
        return (
          // The bubble's number is drawn from the item's counter (globals.css, .bubble-number):
          // when the window slides, a message that only moved keeps its rendered bubble.
          <li key={keys[i]} style={{ counterSet: `bubble ${i + 1}` }}>
            {/* The "only" tag names the turn ("new since turn 11"): given to the bubbles that show it, so it changing with each step renders no other bubble. */}
            <Bubble message={m} section={sections[i] ?? "history"} mark={mark} side={side} memories={!!memories && i === 0 && m.role === "system"} onlyLabel={mark === "only" ? onlyLabel : undefined} />
          </li>
        );
      })}
    </ol>
  );
});

const MEMORY_START = /(^|\n)(# USER MEMORY\n|<long_term_memory>\n)/;

/**
 * A key per message that follows the message, not its position: when a window slides by a
 * turn (the replay's scrubber), the messages both prompts share keep their elements and only
 * what is new is rendered. The same message twice gets its occurrence number.
 */
const baseKeys = new WeakMap<RoleMessage, string>();

const baseKey = (m: RoleMessage) => {
  // Once per message object (an answer's messages do not change): hashing a long text is not free.
  let base = baseKeys.get(m);
  if (base === undefined) baseKeys.set(m, (base = `${m.role}\u0000${m.name ?? ""}\u0000${m.tool_call_id ?? ""}\u0000${textOf(m)}`));
  return base;
};

/** Computes the keys of a prompt fetched ahead (the replay's next turns) while the page is idle, not when it is shown. */
export function prepareBubbleKeys(messages: RoleMessage[]): void {
  for (const m of messages) baseKey(m);
}

function messageKeys(messages: RoleMessage[]): string[] {
  const seen = new Map<string, number>();
  return messages.map((m) => {
    const base = baseKey(m);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return `${base}\u0000${n}`;
  });
}

const sameMessage = (a: RoleMessage, b: RoleMessage) =>
  a === b || (a.role === b.role && a.name === b.name && a.tool_call_id === b.tool_call_id && textOf(a) === textOf(b) && JSON.stringify(a.tool_calls ?? null) === JSON.stringify(b.tool_calls ?? null));

type BubbleProps = {
  message: RoleMessage;
  section: SectionName;
  mark?: DiffMark;
  side?: "A" | "B";
  memories?: boolean;
  onlyLabel?: string;
};

const Bubble = memo(function Bubble({
  message: m,
  section,
  mark,
  side,
  memories,
  onlyLabel,
}: {
  message: RoleMessage;
  section: SectionName;
  mark?: DiffMark;
  side?: "A" | "B";
  memories?: boolean;
  onlyLabel?: string;
}) {
  const style = SECTION_STYLE[section];
  const off = offloadedRef(m);
  const summary = isSummary(m);
  const text = textOf(m);
  const only = mark === "only";
  const indent = m.role === "user" ? "ml-6" : m.role === "assistant" ? "mr-6" : "";
  return (
    <article
      data-testid="prompt-bubble"
      data-section={section}
      data-role={m.role}
      data-diff={mark}
      data-offloaded={off ? "true" : undefined}
      // Layout and paint contained: when a bubble above grows or shrinks (a scrubber step changes the
      // memories in the system message), the hundreds below only move, and the browser's pre-paint
      // and paint skip their insides (half the pre-paint time of a step, docs/benchmarks.md section 72).
      className={`${indent} contain-layout contain-paint rounded-lg border border-l-4 border-zinc-200 ${style.border} ${ROLE_BG[m.role]} px-3 py-2 shadow-xs dark:border-zinc-800 ${
        only ? (side === "A" ? "ring-2 ring-orange-400/80 dark:ring-orange-500/70" : "ring-2 ring-teal-400/80 dark:ring-teal-500/70") : mark === "both" ? "opacity-80" : ""
      }`}
    >
      <header className="mb-1 flex flex-wrap items-center gap-1.5 text-[11px] text-zinc-600 dark:text-zinc-400">
        <span className="bubble-number font-mono tabular-nums" />
        <span className="font-semibold text-zinc-800 dark:text-zinc-200">{m.role}</span>
        <span className={`font-medium ${style.text}`}>· {style.label.toLowerCase()}</span>
        {m.name && <span className="font-mono">({m.name})</span>}
        {summary && <Chip tone="violet">summary</Chip>}
        {off && <Chip tone="amber">{off.tokens ? `offloaded · ${formatInt(off.tokens)} tok` : "offloaded original"}</Chip>}
        {only && (
          <span data-testid="diff-only" className={`ml-auto rounded px-1.5 py-px text-[10px] font-bold tracking-wide text-white uppercase ${side === "A" ? "bg-orange-700" : "bg-teal-700"}`}>
            {onlyLabel ?? `only in ${side}`}
          </span>
        )}
        {!only && <span className="ml-auto tabular-nums">{formatInt(text.length)} chars</span>}
      </header>
      {m.role === "tool" ? (
        <ToolResult message={m} />
      ) : (
        <>
          {memories && MEMORY_START.test(text) ? (
            <WithMemories text={text} />
          ) : (
            (text || !m.tool_calls?.length) && <ClampedText text={text} empty={m.tool_calls?.length ? null : "(empty)"} />
          )}
          {m.tool_calls?.map((c) => (
            <div key={c.id} data-testid="tool-call" className="mt-1.5 rounded-md border border-emerald-200 bg-emerald-50 px-2.5 py-1.5 font-mono text-[12px] dark:border-emerald-900 dark:bg-emerald-950/40">
              <div className="flex flex-wrap items-center gap-2 text-emerald-800 dark:text-emerald-300">
                <span aria-hidden>→</span>
                <span className="font-semibold">{c.name}</span>
                <span className="text-[10px] text-emerald-700/70 dark:text-emerald-400/70">{c.id}</span>
              </div>
              <pre className="mt-1 overflow-x-auto whitespace-pre-wrap break-words text-zinc-700 dark:text-zinc-300">{pretty(c.arguments)}</pre>
            </div>
          ))}
        </>
      )}
      {off && <OffloadedContent refId={off.ref} />}
    </article>
  );
},
// A new answer holds new objects for the same messages: compared by value, an unchanged
// message is not rendered again (its position is not a prop: see the list item's counter).
(a: BubbleProps, b: BubbleProps) =>
  a.section === b.section && a.mark === b.mark && a.side === b.side && a.memories === b.memories && a.onlyLabel === b.onlyLabel && sameMessage(a.message, b.message));

/** The system prompt, then the injected memories set off in their own colour. */
function WithMemories({ text }: { text: string }) {
  const match = MEMORY_START.exec(text)!;
  const at = match.index + match[1].length;
  const before = text.slice(0, at).trimEnd();
  return (
    <>
      {before && <ClampedText text={before} empty={null} />}
      <div data-testid="bubble-memories" className={`${before ? "mt-2" : ""} rounded-r-md border-l-2 border-amber-500 bg-amber-50/70 py-1 pr-2 pl-2.5 dark:bg-amber-950/25`}>
        <div className="mb-0.5 text-[10px] font-semibold tracking-wide text-amber-700 uppercase dark:text-amber-400">Injected long-term memories</div>
        <ClampedText text={text.slice(at)} empty={null} />
      </div>
    </>
  );
}

function ToolResult({ message: m }: { message: RoleMessage }) {
  return (
    <div data-testid="tool-result">
      <div className="mb-1 font-mono text-[11px] text-emerald-700 dark:text-emerald-400">← result of {m.tool_call_id}</div>
      <pre className="max-h-64 overflow-auto rounded-md bg-white/70 px-2.5 py-1.5 font-mono text-[12px] whitespace-pre-wrap break-words text-zinc-800 ring-1 ring-emerald-200 ring-inset dark:bg-zinc-950/50 dark:text-zinc-200 dark:ring-emerald-900">
        {pretty(textOf(m))}
      </pre>
    </div>
  );
}

function ClampedText({ text, empty }: { text: string; empty: string | null }) {
  const [open, setOpen] = useState(false);
  if (!text) return empty ? <em className="text-sm text-zinc-400">{empty}</em> : null;
  const long = text.length > CLAMP;
  return (
    <div className="text-sm leading-relaxed whitespace-pre-wrap break-words text-zinc-900 dark:text-zinc-100">
      {long && !open ? `${text.slice(0, CLAMP)}…` : text}
      {long && (
        <button type="button" onClick={() => setOpen((o) => !o)} className="ml-1 text-xs font-medium text-indigo-600 hover:underline dark:text-indigo-400">
          {open ? "Show less" : `Show all ${formatInt(text.length)} chars`}
        </button>
      )}
    </div>
  );
}

export function OffloadedContent({ refId, label = "full content" }: { refId: string; label?: string }) {
  const [open, setOpen] = useState(false);
  const q = useOffloaded(open ? refId : null);
  return (
    <div className="mt-1.5">
      <button
        type="button"
        data-testid="show-offloaded"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        className="rounded border border-amber-300 bg-amber-50 px-2 py-0.5 text-[11px] font-medium text-amber-900 hover:bg-amber-100 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-200 dark:hover:bg-amber-900/50"
      >
        {open ? `Hide ${label}` : `Show ${label}`}
      </button>
      {open && (
        <div className="mt-1.5 rounded-md border border-amber-200 bg-white p-2 dark:border-amber-900 dark:bg-zinc-950">
          {q.isPending ? (
            <span className="inline-flex items-center gap-2 text-xs text-zinc-500">
              <Spinner /> Loading…
            </span>
          ) : q.isError ? (
            <p role="alert" className="text-xs text-red-600 dark:text-red-400">{q.error.message}</p>
          ) : (
            <pre data-testid="offloaded-content" className="max-h-80 overflow-auto text-[12px] whitespace-pre-wrap break-words">
              {q.data?.content}
            </pre>
          )}
        </div>
      )}
    </div>
  );
}

function Chip({ tone, children }: { tone: "violet" | "amber"; children: React.ReactNode }) {
  const c = tone === "violet" ? "bg-violet-100 text-violet-800 dark:bg-violet-900/60 dark:text-violet-200" : "bg-amber-100 text-amber-900 dark:bg-amber-900/60 dark:text-amber-200";
  return <span className={`rounded px-1.5 py-px text-[10px] font-semibold ${c}`}>{children}</span>;
}

function pretty(s: string): string {
  const t = s.trim();
  if (!(t.startsWith("{") || t.startsWith("["))) return s;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return s;
  }
}
