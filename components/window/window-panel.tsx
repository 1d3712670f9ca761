"use client";
import type { UseQueryResult } from "@tanstack/react-query";
import type { HistoryResponse, Message } from "@/client/api-types";
import { useHistory, type HistoryParams } from "@/client/hooks/turns";
import { formatInt, plural } from "@/client/ui/format";
import { windowCounts } from "@/client/ui/window-counts";
import { useMemo } from "react";
import { Badge } from "@/components/ui/badge";
import { ErrorBox, Spinner } from "@/components/ui/states";
import { BudgetBar } from "./budget-bar";
import { PayloadView } from "./payload-view";
import { Transcript } from "./transcript";
import { WindowControls, type WindowSettings } from "./window-controls";
import { Stat } from "@/components/ui/stat";

type Props = {
  conversationId: string;
  /** The leaf from the URL (null = the server's default, the newest turn). */
  leafParam: string | null;
  /** The selected thread, oldest first. */
  thread: Message[];
  resolvedLeaf: string | null;
  childrenOf: Map<string | null, string[]>;
  onSelectLeaf: (id: string) => void;
  threadLoading: boolean;
  /** The thread could not be resolved (a bad ?leaf=): say so instead of "no turns". */
  threadError: unknown;
  settings: WindowSettings;
  onSettings: (s: WindowSettings) => void;
  /** The debounced request the history below answers. */
  params: HistoryParams;
  history: UseQueryResult<HistoryResponse>;
  /** True while the knobs moved and the debounced request has not caught up. */
  settling: boolean;
};

/** What Dify's TokenBufferMemory would hand the model for the selected thread, live as the knobs move. */
export function WindowPanel({ conversationId, thread, resolvedLeaf, childrenOf, onSelectLeaf, threadLoading, threadError, settings, onSettings, params, history, settling }: Props) {
  const text = useHistory(conversationId, params, "text", !threadError);
  const h = threadError ? undefined : history.data;
  const stale = history.isPlaceholderData || settling;

  const threadIds = useMemo(() => thread.map((m) => m.id), [thread]);
  // Counted against the thread's turns: not before they are known (the window can arrive first).
  const counts = useMemo(() => (h && !threadLoading ? windowCounts(threadIds, h) : null), [threadIds, h, threadLoading]);

  return (
    <section id="window-preview" tabIndex={-1} aria-label="Window preview" className="flex min-h-0 flex-1 flex-col bg-white outline-none dark:bg-zinc-900/40">
      <div className="space-y-4 border-b border-zinc-200 px-4 py-4 dark:border-zinc-800">
        <div className="flex flex-wrap items-center gap-2">
          <h2 className="text-sm font-semibold">Window preview</h2>
          {h && (
            <span className="text-xs text-zinc-500 dark:text-zinc-400" title={h.formula}>
              <span className="font-mono">{h.model}</span> · <span className="font-mono">{h.encoding}</span>
            </span>
          )}
          {h?.approximate && (
            <Badge tone="amber" title="Approximate counts: the model is unknown (o200k_base stands in), or a kept turn holds one word of hundreds of letters">
              approximate
            </Badge>
          )}
          {(history.isFetching || text.isFetching) && <Spinner className="text-indigo-500" />}
        </div>

        <WindowControls value={settings} onChange={onSettings} />

        {!threadError && history.isError && (
          <ErrorBox title="Could not compute the window" error={history.error} onRetry={() => history.refetch()} />
        )}
        {h && counts ? (
          <>
            <BudgetBar used={h.total_tokens} limit={h.max_token_limit} stale={stale} />
            <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-xs sm:grid-cols-3 xl:grid-cols-5" data-testid="window-stats">
              <Stat label="Kept turns" value={formatInt(counts.kept)} testId="stat-kept" />
              <Stat label="Dropped turns" value={formatInt(counts.dropped)} testId="stat-dropped" warn={counts.dropped > 0} />
              <Stat label="Beyond message_limit" value={formatInt(counts.beyond)} testId="stat-beyond-limit" warn={counts.beyond > 0} />
              <Stat label="Placeholder" value={counts.placeholder ? "1 excluded" : "none"} testId="stat-placeholder" />
              <Stat label="message_limit" value={formatInt(h.message_limit)} testId="stat-message-limit" />
            </dl>
            <WindowExplanation history={h} counts={counts} />
          </>
        ) : (
          !history.isError && !threadError && <div className="h-[58px] animate-pulse rounded bg-zinc-100 dark:bg-zinc-800" />
        )}
      </div>

      <div className="flex min-h-0 flex-1 flex-col">
        <div className="flex items-center justify-between border-b border-zinc-200 px-4 py-2 dark:border-zinc-800">
          <h3 className="text-[11px] font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
            Thread transcript <span className="font-normal normal-case tabular-nums">· {plural(thread.length, "turn")}</span>
          </h3>
          <span className="text-[11px] text-zinc-500 dark:text-zinc-400">greyed turns are outside the window</span>
        </div>
        <div className="h-[70vh] min-h-0 lg:h-auto lg:flex-1">
          {threadError ? (
            <p className="p-6 text-sm text-zinc-500 dark:text-zinc-400" data-testid="transcript-unavailable">
              No transcript: the selected turn could not be resolved (see the tree panel).
            </p>
          ) : (
            <Transcript conversationId={conversationId} turns={thread} history={h} childrenOf={childrenOf} leafId={resolvedLeaf} onSelectLeaf={onSelectLeaf} loading={threadLoading} />
          )}
        </div>
        <div className="flex h-80 min-h-0 flex-col border-t border-zinc-200 bg-zinc-50 lg:h-[34%] dark:border-zinc-800 dark:bg-zinc-950/60">
          <PayloadView messages={h?.messages} text={text.data?.text} textError={text.error} loading={text.isFetching || history.isFetching} />
        </div>
      </div>
    </section>
  );
}

/**
 * Why the window is empty or shorter than the thread. Memscope drops whole turns (query and answer
 * together), where Dify's TokenBufferMemory would still keep at least one message of the newest turn.
 */
function WindowExplanation({ history: h, counts }: { history: HistoryResponse; counts: ReturnType<typeof windowCounts> }) {
  const { kept, dropped, beyond } = counts;
  if (!h.thread_message_ids.length || (!dropped && !beyond && kept > 0)) return null;
  const tokens = new Map((h.turn_tokens ?? []).map((t) => [t.id, t.tokens] as const));
  const newest = h.thread_message_ids[0]; // newest first
  const newestTokens = newest ? tokens.get(newest) : undefined;
  // Both limits can cut: message_limit decides which turns are read at all, max_token_limit which of those fit.
  const why: string[] = [];
  // As Dify does: the newest message_limit rows of the conversation (every branch), then the thread among them.
  if (beyond > 0)
    why.push(
      `message_limit ${formatInt(h.message_limit)} reads the conversation's newest ${plural(h.message_limit, "message")}, ${formatInt(h.thread_message_ids.length + counts.placeholder)} of them on this thread: ${plural(beyond, "older turn")} never read`,
    );
  if (dropped > 0) why.push(`${plural(dropped, kept === 0 ? "turn" : "older turn")} did not fit in ${formatInt(h.max_token_limit)} tokens`);
  return (
    <p className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-xs text-amber-900 dark:border-amber-900/60 dark:bg-amber-950/40 dark:text-amber-200" data-testid="window-explanation">
      {kept === 0 ? (
        <>
          <strong>The window is empty.</strong>{" "}
          {newestTokens !== undefined ? (
            <>
              The newest turn alone needs {formatInt(newestTokens)} tokens, more than max_token_limit {formatInt(h.max_token_limit)}.{" "}
            </>
          ) : null}
          Memscope drops whole turns (query and answer together); Dify&apos;s TokenBufferMemory would still keep at least one message.
        </>
      ) : (
        <>
          <strong>Cut short:</strong> {why.join("; ")}, so the window starts {plural(kept, "turn")} back.
        </>
      )}
    </p>
  );
}
