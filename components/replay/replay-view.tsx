"use client";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { memo, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import type { ChangeSince, Message, ReplayResult } from "@/client/api-types";
import { useCapturedTurns } from "@/client/hooks/captures";
import { useConversation } from "@/client/hooks/conversations";
import { usePrefetchReplays, useReplay } from "@/client/hooks/replay";
import { useAllMessages, useThread } from "@/client/hooks/turns";
import { absoluteTime, formatInt, plural } from "@/client/ui/format";
import { messageKey } from "@/client/ui/inspect-model";
import { onlyMarks, replayBody, stepDiff } from "@/client/ui/replay-model";
import { encodeReplayQuery, parseReplayQuery, type ReplayState, type ReplayTab, type VariantSpec } from "@/client/ui/replay-url";
import { Badge } from "@/components/ui/badge";
import { Skeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorBox } from "@/components/ui/states";
import { TabList } from "@/components/ui/tabs";
import { CapturedTurnComparison } from "@/components/capture/sent-vs-modelled-panel";
import { BudgetStackedBar } from "@/components/inspect/budget-stacked-bar";
import { prepareBubbleKeys, PromptBubbles } from "@/components/inspect/prompt-bubbles";
import { ChangesSinceList } from "./changes-since-list";
import { RetrievalList } from "./retrieval-list";
import { TurnScrubber } from "./turn-scrubber";
import { WhatIf } from "./what-if";
import { WhyPanel } from "./why-panel";

/** A replay fetched ahead: its messages' keys (the step's comparison, the bubbles') computed while the page waits. */
const prepareAnswer = (r: ReplayResult) => {
  for (const m of r.context.messages) messageKey(m);
  prepareBubbleKeys(r.context.messages);
};

/**
 * Turns fetched ahead in the direction of travel. Four were tried (to absorb one slow replay on a
 * held key) and not kept: the server answered more replays per walk (23 against 17-20 for 20 steps)
 * and no run showed a faster walk (docs/benchmarks.md section 50).
 */
const PREFETCH_AHEAD = 2;

/** How long the view stays on a state before the URL is rewritten to it. */
const URL_DELAY_MS = 250;

/** The newest, deepest turn under `id`: the thread a turn continues into when no leaf is given. */
function newestLeafUnder(id: string, messages: Message[]): string {
  const kids = new Map<string, string[]>();
  for (const m of messages) {
    if (!m.tree_parent_id) continue;
    const l = kids.get(m.tree_parent_id);
    if (l) l.push(m.id);
    else kids.set(m.tree_parent_id, [m.id]);
  }
  let at = id;
  for (let guard = 0; guard < 100_000; guard++) {
    const k = kids.get(at);
    if (!k?.length) break;
    at = k[k.length - 1];
  }
  return at;
}

/** /inspect/replay: one past turn as the agent saw it, the turns around it, why each memory was in or out, what another setting would have changed. */
export function ReplayView() {
  const sp = useSearchParams();
  const [state, setState] = useState<ReplayState | null>(() => parseReplayQuery(new URLSearchParams(sp.toString())));
  // The URL follows the view (replaceState: no server round trip), so a reload shows the same.
  // A moment after the last change, not at each scrubber step: the router re-renders on every
  // replaceState, and that work sat between a key press and the step's view (section 41 of
  // docs/benchmarks.md). Leaving the page writes it at once.
  useEffect(() => {
    if (!state) return;
    const write = () => {
      const q = encodeReplayQuery(state);
      if (q !== window.location.search.replace(/^\?/, "")) window.history.replaceState(null, "", `?${q}`);
    };
    const timer = window.setTimeout(write, URL_DELAY_MS);
    window.addEventListener("pagehide", write);
    return () => {
      window.clearTimeout(timer);
      window.removeEventListener("pagehide", write);
    };
  }, [state]);
  if (!state) {
    return (
      <Shell>
        <div className="mx-auto mt-8 max-w-xl rounded-xl border border-dashed border-zinc-300 bg-white dark:border-zinc-700 dark:bg-zinc-900" data-testid="replay-empty">
          <EmptyState title="Pick a turn to replay">
            <p>
              Open a conversation and press <strong>Replay this turn</strong> on an answer: this page shows the prompt the agent got then, why each memory was in or out, and what other settings would have changed.
            </p>
            <Link href="/conversations" className="mt-3 inline-block text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300">
              Go to conversations
            </Link>
          </EmptyState>
        </div>
      </Shell>
    );
  }
  return <Replay state={state} setState={setState} />;
}

/** The turn whose answer is being explained: its question and answer, and the way back to it in the transcript. */
function ExplainedTurn({ turn, href }: { turn: Message; href: string }) {
  return (
    <section aria-labelledby="explained-turn-h" className="rounded-lg border border-zinc-200 bg-zinc-50 px-3 py-2 text-sm dark:border-zinc-800 dark:bg-zinc-900" data-testid="explained-turn">
      <div className="flex flex-wrap items-baseline gap-x-3">
        <h2 id="explained-turn-h" className="text-xs font-semibold uppercase tracking-wide text-zinc-600 dark:text-zinc-400">
          The answer being explained
        </h2>
        <span className="text-xs text-zinc-600 dark:text-zinc-400">{absoluteTime(turn.created_at)}</span>
        <Link href={href} className="ml-auto text-xs font-medium text-indigo-700 hover:underline dark:text-indigo-300" data-testid="explained-turn-link">
          Show in the transcript
        </Link>
      </div>
      <dl className="mt-1 grid gap-x-3 gap-y-1 sm:grid-cols-[5rem_minmax(0,1fr)]">
        <dt className="text-xs font-medium text-zinc-600 dark:text-zinc-400">User</dt>
        <dd className="line-clamp-3 whitespace-pre-wrap break-words" data-testid="explained-query">{turn.query || "(no text)"}</dd>
        <dt className="text-xs font-medium text-zinc-600 dark:text-zinc-400">Agent</dt>
        <dd className="line-clamp-4 whitespace-pre-wrap break-words" data-testid="explained-answer">{turn.answer || "(no answer yet)"}</dd>
      </dl>
    </section>
  );
}

function Shell({ children }: { children: React.ReactNode }) {
  return <div className="flex min-h-0 flex-1 flex-col">{children}</div>;
}

/**
 * The view of one replay. Memoised: the URL follows each step (replaceState), which renders
 * ReplayView again with the same state; that must not render the whole page a second time.
 */
const Replay = memo(function Replay({ state, setState }: { state: ReplayState; setState: React.Dispatch<React.SetStateAction<ReplayState | null>> }) {
  const patch = useCallback((p: Partial<ReplayState>) => setState((s) => (s ? { ...s, ...p } : s)), [setState]);
  const conversation = useConversation(state.conversation);
  const messages = useAllMessages(state.conversation);
  const leaf = useMemo(() => state.leaf ?? (messages.data ? newestLeafUnder(state.turn, messages.data) : null), [state.leaf, state.turn, messages.data]);
  const thread = useThread(state.conversation, leaf, !!leaf);
  const byId = useMemo(() => new Map((messages.data ?? []).map((m) => [m.id, m] as const)), [messages.data]);
  // The thread's turns, oldest first (the API lists the leaf first).
  const turns = useMemo(() => (thread.data ? [...thread.data.message_ids].reverse().map((id) => byId.get(id)).filter((m): m is Message => !!m) : []), [thread.data, byId]);
  const index = turns.findIndex((t) => t.id === state.turn);
  // A scrubber step draws the new position at once (the scrubber, the title, the turn's question
  // and answer); the replay's panes (the prompt of then, the retrieval, the changes since: most
  // of a step's rendering) follow the turn in a deferred render that the next key interrupts.
  const shownTurn = useDeferredValue(state.turn);
  const stale = shownTurn !== state.turn;
  const shownIndex = turns.findIndex((t) => t.id === shownTurn);
  const prevTurn = shownIndex > 0 ? turns[shownIndex - 1] : null;

  const body = useMemo(() => replayBody(state.conversation, shownTurn, { memory: state.memory, variant: state.variant }), [state.conversation, shownTurn, state.memory, state.variant]);
  const replay = useReplay(body);
  const prevBody = useMemo(() => (prevTurn?.query.trim() ? replayBody(state.conversation, prevTurn.id) : null), [state.conversation, prevTurn]);
  const prev = useReplay(prevBody);
  const r = replay.data;
  const current = r && !replay.isPlaceholderData ? r : undefined;
  const step = useMemo(
    () => (current && prevBody && prev.data && !prev.isPlaceholderData && prev.data.turn.message_id === prevTurn?.id ? stepDiff(prev.data, current) : null),
    [current, prev.data, prev.isPlaceholderData, prevBody, prevTurn],
  );
  // The scrubber's next steps, fetched ahead once this turn's replay has answered (PREFETCH_AHEAD turns the
  // way it last moved, then two the other way), each with the turn before it (its step's comparison): a step
  // onto a turn not seen before then finds its replay cached. A turn already visited is cached
  // and not asked again, so the two behind cost nothing on a walk in one direction.
  const direction = useRef(1);
  const lastIndex = useRef(shownIndex);
  if (shownIndex >= 0 && lastIndex.current >= 0 && shownIndex !== lastIndex.current) direction.current = shownIndex > lastIndex.current ? 1 : -1;
  lastIndex.current = shownIndex;
  const ahead = useMemo(() => {
    if (shownIndex < 0) return [];
    const d = direction.current;
    const out: (ReturnType<typeof replayBody> | null)[] = [];
    const steps = [...Array.from({ length: PREFETCH_AHEAD }, (_, i) => (i + 1) * d), -d, -2 * d];
    for (const j of steps.map((s) => shownIndex + s)) {
      const t = turns[j];
      if (!t) continue;
      out.push(replayBody(state.conversation, t.id, { memory: state.memory, variant: state.variant }));
      const before = turns[j - 1];
      if (before?.query.trim() && (state.memory || state.variant)) out.push(replayBody(state.conversation, before.id));
    }
    return out;
  }, [shownIndex, turns, state.conversation, state.memory, state.variant]);
  // Asked as soon as this turn's replay (and the one before it) has answered, while the page renders it.
  usePrefetchReplays([body, prevBody], ahead, prepareAnswer);
  const since = useMemo(() => new Map<string, ChangeSince>((r?.changes_since.memories ?? []).map((c) => [c.memory_id, c])), [r]);
  const newInPrompt = useMemo(() => new Set(step?.memoriesIn ?? []), [step]);
  const marks = useMemo(() => onlyMarks(step?.marks), [step]);
  // A turn captured over OTLP also has the prompt its agent really sent: a third tab compares the two.
  const captures = useCapturedTurns(state.conversation);
  const captured = !!captures.data?.data.some((t) => t.message_id === shownTurn);

  const goTo = useCallback((i: number) => {
    const t = turns[Math.max(0, Math.min(turns.length - 1, i))];
    if (t && t.id !== state.turn) patch({ turn: t.id, leaf });
  }, [turns, state.turn, patch, leaf]);

  const whyRef = useRef<HTMLDivElement>(null);
  const onWhy = useCallback(
    (id: string) => {
      patch({ memory: id, tab: "replay" });
      requestAnimationFrame(() => whyRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" }));
    },
    [patch],
  );

  const name = conversation.data?.name || "Untitled conversation";
  useEffect(() => {
    document.title = `Replay · ${name} · Memscope`;
  }, [name]);

  return (
    <Shell>
      <div className="border-b border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900/40">
        <div className="flex flex-col gap-3 px-4 pt-3 sm:px-6">
          <nav aria-label="Breadcrumb" className="text-xs">
            <Link href={`/conversations/${state.conversation}${leaf ? `?leaf=${leaf}` : ""}`} className="text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100" data-testid="back-to-conversation">
              ← {conversation.data ? name : "Conversation"}
            </Link>
          </nav>
          <div className="flex flex-wrap items-end gap-x-4 gap-y-1">
            <div className="min-w-0">
              <h1 className="text-xl font-semibold tracking-tight" data-testid="replay-title">
                Replay{index >= 0 ? ` of turn ${formatInt(index + 1)}` : ""}
              </h1>
              <p className="mt-0.5 text-sm text-zinc-600 dark:text-zinc-400">What the agent saw then, rebuilt from the memory history: the prompt, why each memory was in or out, what another setting would have changed.</p>
            </div>
            {r && (
              <div className="flex flex-wrap items-center gap-1.5 text-xs" data-testid="replay-meta">
                <Badge tone="accent" title={r.profile.effective_from ? `in force from ${absoluteTime(r.profile.effective_from)}` : "no profile version was in force: POST /context's defaults"}>
                  {r.profile.source === "profile" ? `${r.app_id} profile v${r.profile.version}` : `${r.app_id}: default settings`}
                </Badge>
                <Badge title="Whose memories">{r.user_id}</Badge>
                <Badge title="The instant replayed">as of {absoluteTime(r.as_of)}</Badge>
              </div>
            )}
          </div>
          {thread.isError ? (
            <ErrorBox title="Could not load the thread" error={thread.error} onRetry={() => thread.refetch()} />
          ) : turns.length && index < 0 ? (
            <div role="alert" className="rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100">
              This turn is not on the thread of <span className="font-mono">?leaf=</span>.{" "}
              <button type="button" className="font-medium underline" onClick={() => patch({ leaf: null })}>
                Follow the turn’s own thread
              </button>
            </div>
          ) : turns.length ? (
            <TurnScrubber turns={turns} index={index} onIndex={goTo} pending={replay.isFetching} />
          ) : (
            <Skeleton className="h-14 w-full" />
          )}
          {byId.get(state.turn) && <ExplainedTurn turn={byId.get(state.turn)!} href={`/conversations/${state.conversation}${leaf ? `?leaf=${leaf}` : ""}#turn-${state.turn}`} />}
          <StepSummary step={stale ? null : step} index={index} first={index === 0} loading={stale || (!!prevBody && !step && !replay.isError)} />
          <TabList<ReplayTab>
            tabs={[
              { key: "replay", label: "Prompt and memories", testId: "tab-replay" },
              { key: "whatif", label: state.variant ? "What if… (1 variant)" : "What if…", testId: "tab-whatif" },
              ...(captured || state.tab === "captured" ? [{ key: "captured" as const, label: "Sent vs modelled", testId: "tab-captured" }] : []),
            ]}
            value={state.tab}
            onChange={(tab) => patch({ tab })}
            label="Replay views"
            panelId="replay-panel"
            size="md"
            // Three tabs do not fit a phone's width in one row: the third wraps below.
            className="flex-wrap"
          />
        </div>
      </div>
      <main className="w-full flex-1 px-4 py-4 sm:px-6">
        {/* Busy until the panes show the scrubber's turn (data-turn: the one they show, 1-based). */}
        <div role="tabpanel" id="replay-panel" aria-labelledby={`replay-panel-tab-${state.tab}`} aria-busy={stale || (state.tab === "captured" ? captures.isFetching : replay.isFetching)} data-turn={shownIndex + 1}>
        {state.tab === "captured" ? (
          <SentVsReplayed conversationId={state.conversation} turn={shownTurn} captured={captured} loading={!captures.data && !captures.isError} variant={!!state.variant} onBack={() => patch({ tab: "replay" })} />
        ) : replay.isError && !r ? (
          <ErrorBox title="Could not replay this turn" error={replay.error} onRetry={() => replay.refetch()} />
        ) : !r ? (
          <ReplaySkeleton />
        ) : (
          <div className={`transition-opacity ${replay.isPlaceholderData ? "opacity-60" : ""}`}>
            {replay.isError && <div className="mb-3"><ErrorBox title="Could not replay this turn (showing the previous one)" error={replay.error} /></div>}
            {state.tab === "whatif" ? (
              <WhatIf result={r} variant={state.variant} onVariant={(variant: VariantSpec | null) => patch({ variant })} pending={replay.isFetching} />
            ) : (
              <div className="grid gap-5 lg:grid-cols-[minmax(0,1fr)_360px] xl:grid-cols-[minmax(0,1fr)_460px]">
                <section aria-labelledby="prompt-then-h" className="flex min-w-0 flex-col gap-3" data-testid="prompt-then">
                  <div className="rounded-xl border border-zinc-200 bg-white p-4 shadow-xs dark:border-zinc-800 dark:bg-zinc-900">
                    <div className="mb-2 flex flex-wrap items-baseline gap-x-3 gap-y-1">
                      <h2 id="prompt-then-h" className="text-sm font-semibold">
                        The prompt of then
                      </h2>
                      <span className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="prompt-then-summary">
                        {formatInt(r.context.sections.total)} tokens · {plural(r.context.messages.length, "message")} · {r.context.model} · {r.settings.strategy.type}
                      </span>
                    </div>
                    <BudgetStackedBar budget={r.context.sections} fits={r.context.fits} approximate={r.context.approximate} />
                  </div>
                  <PromptBubbles
                    messages={r.context.messages}
                    sections={r.context.message_sections}
                    marks={marks}
                    side="B"
                    memories={r.context.sections.memories > 0}
                    onlyLabel={shownIndex > 0 ? `new since turn ${shownIndex}` : undefined}
                  />
                </section>
                <aside className="flex min-w-0 flex-col gap-5" aria-label="Memories of then">
                  {state.memory && (
                    <div ref={whyRef}>
                      <WhyPanel memoryId={state.memory} result={r} pending={replay.isFetching} since={since.get(state.memory)} onClose={() => patch({ memory: null })} />
                    </div>
                  )}
                  <RetrievalList result={r} since={since} newInPrompt={newInPrompt} selected={state.memory} onWhy={onWhy} />
                  <ChangesSinceList result={r} selected={state.memory} onWhy={onWhy} />
                </aside>
              </div>
            )}
          </div>
        )}
        </div>
      </main>
    </Shell>
  );
});

/**
 * The "Sent vs modelled" tab: the replayed turn's captured prompt (what the agent sent) beside
 * the replay's prompt of then (the profile version in force, no variant), the difference drawn.
 */
function SentVsReplayed({ conversationId, turn, captured, loading, variant, onBack }: { conversationId: string; turn: string; captured: boolean; loading: boolean; variant: boolean; onBack: () => void }) {
  if (loading) return <Skeleton className="h-40 w-full" />;
  if (!captured) {
    return (
      <div className="mx-auto mt-4 max-w-xl rounded-xl border border-dashed border-zinc-300 bg-white dark:border-zinc-700 dark:bg-zinc-900" data-testid="replay-not-captured">
        <EmptyState title="This turn was not captured">
          <p>Only turns that arrived over OpenTelemetry (POST /api/v1/traces) carry the prompt the agent really sent.</p>
          <button type="button" onClick={onBack} className="mt-3 text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300">
            Back to the replayed prompt
          </button>
        </EmptyState>
      </div>
    );
  }
  return (
    <section aria-labelledby="sent-vs-replayed-h" className="mx-auto flex max-w-6xl flex-col gap-3" data-testid="replay-sent-vs-modelled">
      <div>
        <h2 id="sent-vs-replayed-h" className="text-sm font-semibold">
          What the agent sent, beside this replay’s prompt
        </h2>
        <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">
          Left: the input messages of the turn’s captured span. Right: the prompt replayed for the turn under the profile in force then{variant ? " (not the what-if variant)" : ""}.
        </p>
      </div>
      <CapturedTurnComparison conversationId={conversationId} messageId={turn} />
    </section>
  );
}

/** What this turn's prompt changed from the previous turn's: the scrubber's highlight, in words. */
function StepSummary({ step, index, first, loading }: { step: ReturnType<typeof stepDiff> | null; index: number; first: boolean; loading: boolean }) {
  if (first) return <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="step-diff">The thread’s first turn: no history before it.</p>;
  if (!step) return <p className="text-xs text-zinc-600" data-testid="step-diff">{loading ? "Comparing with the previous turn…" : "\u00a0"}</p>;
  const parts = [
    `${step.newMessages} new message${step.newMessages === 1 ? "" : "s"}`,
    ...(step.goneMessages ? [`${step.goneMessages} gone`] : []),
    `${step.memoriesIn.length} memor${step.memoriesIn.length === 1 ? "y" : "ies"} in`,
    `${step.memoriesOut.length} out`,
    `tokens ${step.tokenDelta >= 0 ? "+" : ""}${formatInt(step.tokenDelta)}`,
  ];
  return (
    <p className="flex flex-wrap items-center gap-x-2 text-xs text-zinc-700 dark:text-zinc-300" data-testid="step-diff" data-memories-in={step.memoriesIn.length} data-memories-out={step.memoriesOut.length}>
      <span className="inline-flex items-center gap-1 font-medium">
        <span aria-hidden className="size-2 rounded-sm bg-teal-500" /> Since turn {index}:
      </span>
      {parts.join(" · ")}
    </p>
  );
}

function ReplaySkeleton() {
  return (
    <div className="grid gap-5 lg:grid-cols-[minmax(0,1fr)_360px] xl:grid-cols-[minmax(0,1fr)_460px]" aria-label="Replaying the turn" aria-busy="true">
      <div className="space-y-2">
        <Skeleton className="h-20" />
        {[0, 1, 2].map((i) => (
          <Skeleton key={i} className={`h-16 ${i % 2 ? "mr-6" : "ml-6"}`} />
        ))}
      </div>
      <div className="space-y-2">
        <Skeleton className="h-24" />
        <Skeleton className="h-24" />
      </div>
    </div>
  );
}
