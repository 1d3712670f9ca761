"use client";
import { useMemo, useState } from "react";
import type { Message } from "@/lib/messages/schemas";
import { useHistory, type HistoryParams } from "@/lib/ui/queries";
import { useDebouncedValue } from "@/lib/ui/use-debounced-value";
import { formatInt } from "@/lib/ui/format";
import { Badge } from "@/components/ui/badge";
import { ErrorBox, Spinner } from "@/components/ui/states";
import { BudgetBar } from "./budget-bar";
import { PayloadView } from "./payload-view";
import { Transcript } from "./transcript";
import { DEFAULT_SETTINGS, WindowControls, type WindowSettings } from "./window-controls";
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
};

/** What Dify's TokenBufferMemory would hand the model for the selected thread, live as the knobs move. */
export function WindowPanel({ conversationId, leafParam, thread, resolvedLeaf, childrenOf, onSelectLeaf, threadLoading }: Props) {
  const [settings, setSettings] = useState<WindowSettings>(DEFAULT_SETTINGS);
  const debounced = useDebouncedValue(settings, 150);
  const params: HistoryParams = useMemo(() => ({ ...debounced, leaf: leafParam }), [debounced, leafParam]);
  const history = useHistory(conversationId, params, "messages");
  const text = useHistory(conversationId, params, "text");
  const h = history.data;
  const stale = history.isPlaceholderData || settings !== debounced;

  // thread_message_ids already leaves the placeholder out.
  const kept = h ? h.thread_message_ids.length - h.dropped_message_ids.length : 0;

  return (
    <section aria-label="Window preview" className="flex min-h-0 flex-col bg-white dark:bg-zinc-900/40">
      <div className="space-y-4 border-b border-zinc-200 px-4 py-4 dark:border-zinc-800">
        <div className="flex flex-wrap items-center gap-2">
          <h2 className="text-sm font-semibold">Window preview</h2>
          {h && (
            <span className="text-xs text-zinc-500 dark:text-zinc-400" title={h.formula}>
              <span className="font-mono">{h.model}</span> · <span className="font-mono">{h.encoding}</span>
            </span>
          )}
          {h?.approximate && (
            <Badge tone="amber" title="Unknown model: token counts use o200k_base as a stand-in">
              approximate
            </Badge>
          )}
          {(history.isFetching || text.isFetching) && <Spinner className="text-indigo-500" />}
        </div>

        <WindowControls value={settings} onChange={setSettings} />

        {history.isError && (
          <ErrorBox title="Could not compute the window" error={history.error} onRetry={() => history.refetch()} />
        )}
        {h ? (
          <>
            <BudgetBar used={h.total_tokens} limit={h.max_token_limit} stale={stale} />
            <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-xs sm:grid-cols-4" data-testid="window-stats">
              <Stat label="Kept turns" value={formatInt(kept)} testId="stat-kept" />
              <Stat label="Dropped turns" value={formatInt(h.dropped_message_ids.length)} testId="stat-dropped" warn={h.dropped_message_ids.length > 0} />
              <Stat label="Placeholder" value={h.placeholder_message_id ? "1 excluded" : "none"} testId="stat-placeholder" />
              <Stat label="message_limit" value={formatInt(h.message_limit)} testId="stat-message-limit" />
            </dl>
          </>
        ) : (
          !history.isError && <div className="h-[58px] animate-pulse rounded bg-zinc-100 dark:bg-zinc-800" />
        )}
      </div>

      <div className="flex min-h-0 flex-1 flex-col">
        <div className="flex items-center justify-between border-b border-zinc-200 px-4 py-2 dark:border-zinc-800">
          <h3 className="text-[11px] font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
            Thread transcript <span className="font-normal normal-case tabular-nums">· {formatInt(thread.length)} turns</span>
          </h3>
          <span className="text-[11px] text-zinc-500 dark:text-zinc-400">greyed turns are outside the window</span>
        </div>
        <div className="h-[70vh] min-h-0 lg:h-auto lg:flex-1">
          <Transcript turns={thread} history={h} childrenOf={childrenOf} leafId={resolvedLeaf} onSelectLeaf={onSelectLeaf} loading={threadLoading} />
        </div>
        <div className="flex h-80 min-h-0 flex-col border-t border-zinc-200 bg-zinc-50 lg:h-[34%] dark:border-zinc-800 dark:bg-zinc-950/60">
          <PayloadView messages={h?.messages} text={text.data?.text} textError={text.error} loading={text.isFetching || history.isFetching} />
        </div>
      </div>
    </section>
  );
}
