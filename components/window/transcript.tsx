"use client";
import { memo, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { HistoryResponse, Message } from "@/client/api-types";
import { absoluteTime, formatInt, plural } from "@/client/ui/format";
import { replayHref } from "@/client/ui/replay-url";
import { useConversationIncidents, type Incident } from "@/client/hooks/incidents";
import { incidentsHref, isKind, KIND_LABEL } from "@/client/ui/incident-model";
import Link from "next/link";

/** Turns rendered at first; older ones come in pages so a 5 000-turn thread never freezes the tab. */
const PAGE = 200;

export type TurnState = "kept" | "dropped" | "placeholder" | "beyond-limit" | "unknown";

type Props = {
  conversationId: string;
  /** The selected thread, oldest first. */
  turns: Message[];
  history: HistoryResponse | undefined;
  /** Children per tree parent (null = roots), for switching between regenerated siblings. */
  childrenOf: Map<string | null, string[]>;
  leafId: string | null;
  onSelectLeaf: (id: string) => void;
  loading: boolean;
};

export function Transcript({ conversationId, turns, history, childrenOf, leafId, onSelectLeaf, loading }: Props) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [extra, setExtra] = useState(0);
  // The conversation's memory incidents (issue 38), marked on the turns they are about.
  const incidents = useConversationIncidents(conversationId);
  const incidentsOf = useMemo(() => {
    const map = new Map<string, Incident[]>();
    for (const i of incidents.data?.data ?? []) {
      const l = map.get(i.message_id);
      if (l) l.push(i);
      else map.set(i.message_id, [i]);
    }
    return map;
  }, [incidents.data]);

  const info = useMemo(() => {
    const inWindow = new Set(history?.thread_message_ids ?? []);
    const dropped = new Set(history?.dropped_message_ids ?? []);
    const tokens = new Map((history?.turn_tokens ?? []).map((t) => [t.id, t.tokens] as const));
    const placeholder = history?.placeholder_message_id ?? null;
    const state = (id: string): TurnState =>
      !history ? "unknown" : id === placeholder ? "placeholder" : dropped.has(id) ? "dropped" : inWindow.has(id) ? "kept" : "beyond-limit";
    const states = turns.map((t) => state(t.id));
    const firstKept = states.indexOf("kept");
    const firstInWindow = states.findIndex((s) => s === "kept" || s === "dropped" || s === "placeholder");
    const beyond = states.filter((s) => s === "beyond-limit").length;
    const droppedTokens = (history?.dropped_message_ids ?? []).reduce((sum, id) => sum + (tokens.get(id) ?? 0), 0);
    return { states, tokens, firstKept, firstInWindow, beyond, droppedCount: dropped.size, droppedTokens };
  }, [turns, history]);

  // Always render at least down to the window start, so the marker is never hidden behind "show older".
  const needed = info.firstKept >= 0 ? turns.length - info.firstKept + 3 : 0;
  const shown = Math.min(turns.length, Math.max(PAGE + extra, needed));
  const start = turns.length - shown;

  // New thread: start at the newest turn, like a chat.
  const tailId = turns.at(-1)?.id;
  useLayoutEffect(() => {
    setExtra(0);
    const el = scrollRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [tailId]);

  if (!turns.length) {
    return loading ? (
      <div className="space-y-3 p-4" aria-busy="true">
        {[0, 1, 2].map((i) => (
          <div key={i} className="space-y-2">
            <div className="ml-auto h-9 w-2/3 animate-pulse rounded-2xl bg-zinc-100 dark:bg-zinc-800" />
            <div className="h-12 w-3/4 animate-pulse rounded-2xl bg-zinc-100 dark:bg-zinc-800" />
          </div>
        ))}
      </div>
    ) : (
      <p className="p-6 text-sm text-zinc-500">This conversation has no turns yet.</p>
    );
  }

  const markerAt = info.firstKept >= 0 ? info.firstKept : -1;
  const showMarker = history && markerAt > 0 && (info.droppedCount > 0 || info.beyond > 0);
  // If nothing is kept at all, the marker goes after the last turn.
  const nothingKept = history && info.firstKept < 0 && turns.length > 0;

  return (
    // A scroll box keyboard users must be able to reach: a thread without regenerated turns has no
    // button inside it, so the box itself takes focus (the arrow keys and Page Up/Down scroll it).
    <div
      ref={scrollRef}
      tabIndex={0}
      role="region"
      aria-label="Thread transcript"
      className="h-full overflow-y-auto overscroll-contain px-4 py-3 outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:ring-inset"
      data-testid="transcript"
    >
      {start > 0 && (
        <div className="mb-3 flex justify-center">
          <button
            type="button"
            onClick={() => setExtra((n) => n + PAGE)}
            className="rounded-full border border-zinc-300 bg-white px-3 py-1 text-xs text-zinc-600 hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-300 dark:hover:bg-zinc-800"
            data-testid="show-older"
          >
            Show {plural(Math.min(PAGE, start), "older turn")} ({formatInt(start)} hidden)
          </button>
        </div>
      )}
      <ol className="space-y-2">
        {turns.slice(start).map((t, k) => {
          const i = start + k;
          const parentKey = t.tree_parent_id ?? null;
          const siblings = childrenOf.get(parentKey) ?? [];
          return (
            <li key={t.id}>
              {i === markerAt && showMarker && (
                <WindowStartMarker dropped={info.droppedCount} droppedTokens={info.droppedTokens} beyond={info.beyond} messageLimit={history!.message_limit} />
              )}
              {info.beyond > 0 && i === info.firstInWindow && info.droppedCount > 0 && (
                <Divider testId="message-limit-marker">
                  message_limit {formatInt(history!.message_limit)}: {plural(info.beyond, "older turn")} never read
                </Divider>
              )}
              <Turn
                message={t}
                index={i}
                state={info.states[i]}
                tokens={info.tokens.get(t.id)}
                isLeaf={t.id === leafId}
                siblings={siblings}
                childrenOf={childrenOf}
                onSelectLeaf={onSelectLeaf}
                replayHref={t.answer && t.query.trim() ? replayHref({ conversation: conversationId, turn: t.id, leaf: leafId }) : null}
                incidents={incidentsOf.get(t.id)}
              />
            </li>
          );
        })}
      </ol>
      {nothingKept && (
        <WindowStartMarker dropped={info.droppedCount} droppedTokens={info.droppedTokens} beyond={info.beyond} messageLimit={history!.message_limit} />
      )}
    </div>
  );
}

function Divider({ children, testId, accent }: { children: React.ReactNode; testId: string; accent?: boolean }) {
  return (
    <div data-testid={testId} role="separator" className={`my-3 flex items-center gap-3 text-[11px] font-medium ${accent ? "text-indigo-700 dark:text-indigo-300" : "text-zinc-500 dark:text-zinc-400"}`}>
      <span className={`h-px flex-1 ${accent ? "bg-indigo-400 dark:bg-indigo-600" : "border-t border-dashed border-zinc-300 dark:border-zinc-700"}`} />
      <span className="text-center">{children}</span>
      <span className={`h-px flex-1 ${accent ? "bg-indigo-400 dark:bg-indigo-600" : "border-t border-dashed border-zinc-300 dark:border-zinc-700"}`} />
    </div>
  );
}

function WindowStartMarker({ dropped, droppedTokens, beyond, messageLimit }: { dropped: number; droppedTokens: number; beyond: number; messageLimit: number }) {
  const parts: string[] = [];
  if (dropped > 0) parts.push(`${plural(dropped, "older turn")} dropped (${formatInt(droppedTokens)} tokens)`);
  if (beyond > 0) parts.push(`${formatInt(beyond)} beyond message_limit ${formatInt(messageLimit)}`);
  return (
    <Divider testId="window-start-marker" accent>
      ▼ Window starts here — {parts.join(" · ")}
    </Divider>
  );
}

const STATE_LABEL: Partial<Record<TurnState, string>> = {
  dropped: "dropped",
  placeholder: "in-flight placeholder (excluded)",
  "beyond-limit": "beyond message_limit",
};

const Turn = memo(function Turn({
  message: m,
  index,
  state,
  tokens,
  isLeaf,
  siblings,
  childrenOf,
  onSelectLeaf,
  replayHref,
  incidents,
}: {
  message: Message;
  index: number;
  state: TurnState;
  tokens: number | undefined;
  isLeaf: boolean;
  siblings: string[];
  childrenOf: Map<string | null, string[]>;
  onSelectLeaf: (id: string) => void;
  /** The replay of this turn (an answered turn with a query). */
  replayHref: string | null;
  /** Memory incidents found at this turn. */
  incidents: Incident[] | undefined;
}) {
  const out = state === "dropped" || state === "beyond-limit";
  const pos = siblings.indexOf(m.id);
  // Switching branch selects the newest, deepest turn under the chosen sibling.
  const switchTo = (sib: string) => {
    let id = sib;
    for (let guard = 0; guard < 100_000; guard++) {
      const kids = childrenOf.get(id);
      if (!kids?.length) break;
      id = kids[kids.length - 1];
    }
    onSelectLeaf(id);
  };
  const userFiles = m.files.filter((f) => f.belongs_to !== "assistant");
  const botFiles = m.files.filter((f) => f.belongs_to === "assistant");
  return (
    <article
      id={`turn-${m.id}`}
      data-testid="transcript-turn"
      data-id={m.id}
      data-state={state}
      data-dropped={state === "dropped" ? "true" : "false"}
      data-tokens={tokens}
      className={`turn-cv rounded-lg border px-3 py-2.5 ${
        state === "placeholder"
          ? "border-dashed border-amber-300 bg-amber-50/50 dark:border-amber-800 dark:bg-amber-950/20"
          : isLeaf
            ? "border-indigo-300 bg-white dark:border-indigo-800 dark:bg-zinc-900"
            : "border-transparent"
      } ${out ? "border-dashed bg-zinc-50 text-zinc-600 dark:bg-zinc-900/40 dark:text-zinc-400" : ""}`}
    >
      <header className="mb-1.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-[11px] text-zinc-600 dark:text-zinc-400">
        <span className="font-mono tabular-nums">#{index + 1}</span>
        <time dateTime={m.created_at} className="tabular-nums">{absoluteTime(m.created_at)}</time>
        {tokens !== undefined && <span className="tabular-nums">· {formatInt(tokens)} tok</span>}
        {STATE_LABEL[state] && (
          <span
            className={`rounded px-1.5 py-px font-medium ${
              state === "placeholder" ? "bg-amber-100 text-amber-800 dark:bg-amber-900/60 dark:text-amber-200" : "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300"
            }`}
          >
            {STATE_LABEL[state]}
          </span>
        )}
        {incidents && incidents.length > 0 && <IncidentMark incidents={incidents} />}
        {replayHref && (
          <Link href={replayHref} data-testid="replay-turn" className={`ml-auto rounded px-1.5 py-px font-medium text-indigo-700 hover:bg-indigo-50 hover:underline dark:text-indigo-300 dark:hover:bg-indigo-950`}>
            Replay this turn
          </Link>
        )}
        {siblings.length > 1 && (
          <span className={`${replayHref ? "" : "ml-auto "}inline-flex items-center gap-0.5`} aria-label="Regenerated versions">
            <button
              type="button"
              disabled={pos <= 0}
              onClick={() => switchTo(siblings[pos - 1])}
              aria-label="Previous version"
              className="rounded px-1 hover:bg-zinc-200 disabled:opacity-30 dark:hover:bg-zinc-800"
            >
              ‹
            </button>
            <span className="tabular-nums">
              {pos + 1}/{siblings.length}
            </span>
            <button
              type="button"
              disabled={pos >= siblings.length - 1}
              onClick={() => switchTo(siblings[pos + 1])}
              aria-label="Next version"
              className="rounded px-1 hover:bg-zinc-200 disabled:opacity-30 dark:hover:bg-zinc-800"
            >
              ›
            </button>
          </span>
        )}
      </header>
      <div className="flex flex-col gap-1.5">
        <div className="ml-8 self-end rounded-2xl rounded-br-sm bg-indigo-600 px-3 py-2 text-sm whitespace-pre-wrap text-white">
          {m.query || <em>(empty query)</em>}
          {userFiles.length > 0 && <FileChips files={userFiles} onAccent />}
        </div>
        <ToolCalls metadata={m.metadata} />
        <div className="mr-8 self-start rounded-2xl rounded-bl-sm bg-zinc-100 px-3 py-2 text-sm whitespace-pre-wrap text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100">
          {m.answer || <em className="text-zinc-600 dark:text-zinc-300">(no answer yet)</em>}
          {botFiles.length > 0 && <FileChips files={botFiles} />}
        </div>
      </div>
    </article>
  );
});

/** "Missed memory" (or "2 incidents"), linking to the inbox showing this conversation's incidents. */
function IncidentMark({ incidents }: { incidents: Incident[] }) {
  const open = incidents.filter((i) => i.status === "open" || i.status === "acknowledged");
  const high = open.some((i) => i.severity === "high");
  const kinds = [...new Set(incidents.map((i) => (isKind(i.kind) ? KIND_LABEL[i.kind] : i.kind)))];
  const label = incidents.length === 1 ? kinds[0] : `${incidents.length} incidents`;
  const tone = !open.length
    ? "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300"
    : high
      ? "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200"
      : "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200";
  return (
    <Link
      href={incidentsHref({ conversation_id: incidents[0].conversation_id })}
      data-testid="turn-incident-mark"
      data-count={incidents.length}
      title={`Memory incident${incidents.length === 1 ? "" : "s"} at this turn: ${kinds.join(", ")}${open.length ? "" : " (all triaged)"}`}
      className={`inline-flex items-center gap-1 rounded px-1.5 py-px font-medium hover:underline ${tone}`}
    >
      <svg aria-hidden viewBox="0 0 16 16" className="size-3" fill="currentColor">
        <path d="M8 1.5a1 1 0 0 1 .87.5l6 10.5A1 1 0 0 1 14 14H2a1 1 0 0 1-.87-1.5l6-10.5A1 1 0 0 1 8 1.5Zm0 4a.75.75 0 0 0-.75.75v3a.75.75 0 0 0 1.5 0v-3A.75.75 0 0 0 8 5.5Zm0 6.75a.9.9 0 1 0 0-1.8.9.9 0 0 0 0 1.8Z" />
      </svg>
      {label}
    </Link>
  );
}

type ToolCall = { id?: unknown; name?: unknown; arguments?: unknown; result?: unknown };

const show = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v ?? null));

/** Tool calls and results a turn carries in metadata.tool_calls (AgentScope's tool-use and tool-result blocks). */
function ToolCalls({ metadata }: { metadata: Message["metadata"] }) {
  const calls = Array.isArray(metadata?.tool_calls) ? (metadata.tool_calls as ToolCall[]) : [];
  if (!calls.length) return null;
  return (
    <div className="mr-8 flex flex-col gap-1 self-start" data-testid="tool-calls">
      {calls.map((c, i) => (
        <div key={i} className="rounded-lg border border-dashed border-amber-300 bg-amber-50 px-2.5 py-1.5 font-mono text-[11px] text-amber-900 dark:border-amber-700/60 dark:bg-amber-950/40 dark:text-amber-200">
          <div>
            <span className="font-sans font-semibold">tool call</span> {show(c.name)}({show(c.arguments)})
          </div>
          {c.result !== undefined && (
            <div className="mt-0.5 text-amber-800 dark:text-amber-300">
              <span className="font-sans font-semibold">→ result</span> {show(c.result)}
            </div>
          )}
        </div>
      ))}
    </div>
  );
}

function FileChips({ files, onAccent }: { files: Message["files"]; onAccent?: boolean }) {
  return (
    <span className="mt-1.5 flex flex-wrap gap-1">
      {files.map((f, i) => {
        const where = f.url ?? (f.upload_file_id ? `upload:${f.upload_file_id}` : f.transfer_method);
        return (
          <span
            key={i}
            data-testid="file-chip"
            title={where}
            className={`inline-flex max-w-full items-center gap-1 rounded px-1.5 py-0.5 font-mono text-[11px] ${
              onAccent ? "bg-indigo-800 text-white" : "bg-white text-zinc-600 ring-1 ring-zinc-200 dark:bg-zinc-900 dark:text-zinc-300 dark:ring-zinc-700"
            }`}
          >
            <span className="font-sans font-semibold">[{f.type}]</span>
            <span className="truncate">{where}</span>
          </span>
        );
      })}
    </span>
  );
}
