"use client";
import { WriteButton } from "@/components/ui/write-button";
import { DEFAULT_MODEL } from "@/client/ui/window-url";
import { useEffect, useId, useMemo, useState } from "react";
import type { NodeHistoryResponse, NodeMemoryMessage, NodeSummary } from "@/lib/node-memory/schemas";
import { documentTurns, type NodeTurn } from "@/lib/node-memory/turns";
import { useModels } from "@/client/hooks/models";
import { useDebouncedValue } from "@/client/ui/use-debounced-value";
import { absoluteTime, formatInt, plural, relativeTime } from "@/client/ui/format";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ErrorBox, Spinner } from "@/components/ui/states";
import { BudgetBar } from "@/components/window/budget-bar";
import { useClearNode, useNodeDocument, useNodeHistory, useNodeList, type NodeWindowParams } from "@/client/hooks/node-memory";
import { Stat } from "@/components/ui/stat";

const field = "h-8 rounded-md border border-zinc-300 bg-white px-2 text-sm tabular-nums shadow-xs dark:border-zinc-700 dark:bg-zinc-900";
const labelCls = "mb-1 block text-[11px] font-medium tracking-wide text-zinc-500 uppercase dark:text-zinc-400";

/**
 * Node-level memory of a conversation (Dify NodeTokenBufferMemory): a bar under the
 * conversation that opens a bottom sheet with the nodes that have memory and, for the
 * selected node, its turns and its own window preview (thread by current_message_id,
 * then max_token_limit). A sheet rather than an in-flow section, so the tree and the
 * window preview above keep their height.
 */
export function NodeMemorySection({ conversationId }: { conversationId: string }) {
  const [open, setOpen] = useState(false);
  // Kept here so closing and reopening the sheet returns to the same node.
  const [selected, setSelected] = useState<string | null>(null);
  const list = useNodeList(conversationId);
  const count = list.data?.data.length;
  const label = count === undefined ? (list.isError ? "unavailable" : "…") : count ? plural(count, "node") : "no nodes";

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open]);

  return (
    <div data-testid="node-memory-section" className="shrink-0 border-t border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
      <button
        type="button"
        data-testid="node-memory-toggle"
        aria-expanded={open}
        aria-controls="node-memory-sheet"
        onClick={() => setOpen((o) => !o)}
        className="flex w-full items-center gap-2 px-4 py-2 text-left text-sm font-semibold hover:bg-zinc-50 dark:hover:bg-zinc-800/50"
      >
        <span aria-hidden className={`inline-block text-[10px] text-zinc-500 transition-transform ${open ? "rotate-180" : ""}`}>▲</span>
        Node memory
        <span className="text-xs font-normal text-zinc-500 dark:text-zinc-400" data-testid="node-memory-count">{label}</span>
        <span className="ml-auto text-xs font-normal text-zinc-500 dark:text-zinc-500">per-node history (NodeTokenBufferMemory)</span>
      </button>
      {open && (
        <div
          id="node-memory-sheet"
          role="region"
          aria-label="Node memory"
          data-testid="node-memory-sheet"
          className={`fixed inset-x-0 bottom-0 z-40 flex flex-col border-t ${count === 0 ? "h-auto max-h-48" : "h-[min(72vh,760px)]"} border-zinc-300 bg-white shadow-[0_-12px_32px_-12px_rgba(0,0,0,0.25)] dark:border-zinc-700 dark:bg-zinc-900`}
          // No nodes: a compact bar with its one sentence, not three quarters of the screen.
        >
          <div className="flex items-center gap-2 border-b border-zinc-200 px-4 py-2 dark:border-zinc-800">
            <h2 className="text-sm font-semibold">Node memory</h2>
            <span className="text-xs text-zinc-500 dark:text-zinc-400">{label}</span>
            <Button size="sm" variant="ghost" className="ml-auto" onClick={() => setOpen(false)} data-testid="node-memory-close" aria-label="Close node memory">
              Close ✕
            </Button>
          </div>
          <NodeMemoryPanel conversationId={conversationId} selected={selected} onSelect={setSelected} nodes={list.data?.data} error={list.error} loading={list.isPending} onRetry={() => list.refetch()} />
        </div>
      )}
    </div>
  );
}

function NodeMemoryPanel({
  conversationId,
  selected,
  onSelect,
  nodes,
  error,
  loading,
  onRetry,
}: {
  conversationId: string;
  selected: string | null;
  onSelect: (nodeId: string) => void;
  nodes: NodeSummary[] | undefined;
  error: unknown;
  loading: boolean;
  onRetry: () => void;
}) {
  const active = selected && nodes?.some((n) => n.node_id === selected) ? selected : (nodes?.[0]?.node_id ?? null);

  if (error) return <div className="p-4"><ErrorBox title="Could not load node memory" error={error} onRetry={onRetry} /></div>;
  if (loading || !nodes) return <div className="flex items-center gap-2 p-4 text-sm text-zinc-500"><Spinner /> Loading nodes…</div>;
  if (!nodes.length) {
    return (
      <p data-testid="node-empty" className="px-4 pb-4 text-sm text-zinc-500 dark:text-zinc-400">
        No node has memory in this conversation. Nodes appear here after{" "}
        <code className="font-mono text-xs">POST /api/v1/conversations/{"{id}"}/nodes/{"{node_id}"}/turns</code>.
      </p>
    );
  }
  return (
    <div data-testid="node-memory-panel" className="grid min-h-0 flex-1 grid-cols-1 grid-rows-[auto_minmax(0,1fr)] md:grid-cols-[minmax(12rem,16rem)_1fr] md:grid-rows-1">
      <ul data-testid="node-list" aria-label="Nodes" className="max-h-48 overflow-y-auto border-b border-zinc-200 md:max-h-none md:border-r md:border-b-0 dark:border-zinc-800">
        {nodes.map((n) => (
          <li key={n.node_id}>
            <button
              type="button"
              data-testid="node-item"
              data-node-id={n.node_id}
              aria-current={n.node_id === active ? "true" : undefined}
              onClick={() => onSelect(n.node_id)}
              className={`block w-full px-3 py-2 text-left text-xs hover:bg-zinc-50 dark:hover:bg-zinc-800/60 ${
                n.node_id === active ? "bg-indigo-50 ring-1 ring-indigo-200 ring-inset dark:bg-indigo-950/40 dark:ring-indigo-900" : ""
              }`}
            >
              <span className="block truncate font-mono text-[13px] font-medium text-zinc-900 dark:text-zinc-100" title={n.node_id}>{n.node_id}</span>
              <span className="mt-0.5 block text-zinc-500 tabular-nums dark:text-zinc-400">
                {plural(n.turn_count, "turn")} · {formatInt(n.token_count)} tokens · v{n.version}
              </span>
              <span className="block text-zinc-500 dark:text-zinc-500" title={absoluteTime(n.updated_at)}>updated {relativeTime(n.updated_at)}</span>
            </button>
          </li>
        ))}
      </ul>
      {active && <NodeDetail key={active} conversationId={conversationId} nodeId={active} />}
    </div>
  );
}

type TurnState = "kept" | "dropped" | "off-thread" | "pending";

function NodeDetail({ conversationId, nodeId }: { conversationId: string; nodeId: string }) {
  const ids = useId();
  const models = useModels();
  const [model, setModel] = useState(DEFAULT_MODEL);
  const [maxText, setMaxText] = useState("2000");
  const [maxTokens, setMaxTokens] = useState(2000);
  const [current, setCurrent] = useState<string | null>(null);
  const params: NodeWindowParams = useMemo(() => ({ model, max_token_limit: maxTokens, current_message_id: current }), [model, maxTokens, current]);
  const debounced = useDebouncedValue(params, 150);
  const doc = useNodeDocument(conversationId, nodeId);
  const history = useNodeHistory(conversationId, nodeId, debounced);
  const clear = useClearNode(conversationId);
  const h = history.data;
  const stale = history.isPlaceholderData || params !== debounced;

  const turns = useMemo(() => (doc.data ? documentTurns(doc.data.document) : []), [doc.data]);
  // A newer document (another writer) refreshes the window too; never the other way round.
  const version = doc.data?.version;
  const refetchHistory = history.refetch;
  useEffect(() => {
    if (version !== undefined && h && h.version < version) void refetchHistory();
  }, [version, h, refetchHistory]);

  const state = useMemo(() => turnStates(h), [h]);
  const kept = h ? h.turn_tokens.filter((t) => t.kept).length : 0;
  // The oldest kept turn (turn_tokens is newest first) and what fell out before it.
  const firstKept = h?.turn_tokens.findLast((t) => t.kept)?.message_id ?? null;
  const droppedTokens = h ? h.turn_tokens.filter((t) => !t.kept).reduce((n, t) => n + t.tokens, 0) : 0;

  const setMax = (text: string) => {
    setMaxText(text);
    const n = Number(text);
    if (text.trim() !== "" && Number.isInteger(n) && n >= 0) setMaxTokens(n);
  };

  return (
    <section aria-label={`Memory of node ${nodeId}`} data-testid="node-detail" data-node-id={nodeId} className="flex min-h-0 flex-col">
      <div className="space-y-3 border-b border-zinc-200 px-4 py-3 dark:border-zinc-800">
        <div className="flex flex-wrap items-center gap-2">
          <h3 className="font-mono text-sm font-semibold">{nodeId}</h3>
          {doc.data && (
            <span className="text-xs text-zinc-500 dark:text-zinc-400">
              app <span className="font-mono">{doc.data.app_id}</span> · document v{doc.data.document.version} · row version {doc.data.version}
            </span>
          )}
          {h && (
            <span className="text-xs text-zinc-500 dark:text-zinc-400" title={h.formula}>
              · <span className="font-mono">{h.model}</span> · <span className="font-mono">{h.encoding}</span>
            </span>
          )}
          {h?.approximate && <Badge tone="amber" title="Approximate counts: the model is unknown (o200k_base stands in), or a kept turn holds one word of hundreds of letters">approximate</Badge>}
          {(history.isFetching || doc.isFetching) && <Spinner className="text-indigo-500" />}
          <WriteButton
            size="sm"
            variant="ghost"
            className="ml-auto text-red-600 hover:text-red-700 dark:text-red-400"
            data-testid="node-clear"
            disabled={clear.isPending}
            onClick={() => {
              if (window.confirm(`Clear the memory of node ${nodeId}? This cannot be undone.`)) clear.mutate(nodeId);
            }}
          >
            Clear memory
          </WriteButton>
        </div>
        {clear.isError && <ErrorBox title="Could not clear the node" error={clear.error} />}

        <div className="grid grid-cols-1 gap-3 sm:grid-cols-[minmax(9rem,12rem)_minmax(9rem,12rem)_1fr]">
          <div>
            <label htmlFor={`${ids}-model`} className={labelCls}>Model</label>
            <select id={`${ids}-model`} data-testid="node-model-select" className={`${field} w-full`} value={model} onChange={(e) => setModel(e.target.value)}>
              {(models.data ?? [{ model: DEFAULT_MODEL, encoding: "o200k_base" }]).map((m) => (
                <option key={m.model} value={m.model}>{m.model} · {m.encoding}</option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor={`${ids}-max`} className={labelCls}>max_token_limit</label>
            <input
              id={`${ids}-max`}
              type="number"
              min={0}
              step={50}
              inputMode="numeric"
              data-testid="node-max-token-limit"
              className={`${field} w-full text-right`}
              value={maxText}
              onChange={(e) => setMax(e.target.value)}
              onBlur={() => setMaxText(String(maxTokens))}
            />
          </div>
          <div>
            <span className={labelCls}>current_message_id</span>
            <div className="flex h-8 items-center gap-2 text-xs">
              {current ? (
                <>
                  <code data-testid="node-current" className="truncate rounded bg-zinc-100 px-1.5 py-0.5 font-mono dark:bg-zinc-800" title={current}>{current}</code>
                  <button type="button" className="text-indigo-600 hover:underline dark:text-indigo-400" onClick={() => setCurrent(null)} data-testid="node-current-reset">
                    newest
                  </button>
                </>
              ) : (
                <span className="text-zinc-500 dark:text-zinc-400">newest turn (pick “walk from here” on a turn)</span>
              )}
            </div>
          </div>
        </div>

        {history.isError && <ErrorBox title="Could not compute the node's window" error={history.error} onRetry={() => history.refetch()} />}
        {h ? (
          <>
            <BudgetBar used={h.total_tokens} limit={h.max_token_limit} stale={stale} />
            <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-xs sm:grid-cols-4" data-testid="node-window-stats">
              <Stat label="Thread turns" value={formatInt(h.thread_message_ids.length)} testId="node-stat-thread" />
              <Stat label="Kept turns" value={formatInt(kept)} testId="node-stat-kept" />
              <Stat label="Dropped turns" value={formatInt(h.dropped_message_ids.length)} testId="node-stat-dropped" warn={h.dropped_message_ids.length > 0} />
              <Stat label="Messages sent" value={formatInt(h.messages.length)} testId="node-stat-messages" />
            </dl>
          </>
        ) : (
          !history.isError && <div className="h-[58px] animate-pulse rounded bg-zinc-100 dark:bg-zinc-800" />
        )}
      </div>

      <div className="min-h-0 flex-1 overflow-y-auto px-4 py-3" data-testid="node-turns">
        {doc.isError ? (
          <ErrorBox title="Could not load the node's document" error={doc.error} onRetry={() => doc.refetch()} />
        ) : !doc.data ? (
          <div className="flex items-center gap-2 text-sm text-zinc-500"><Spinner /> Loading messages…</div>
        ) : (
          <ol className="space-y-2">
            {turns.map((t, i) => (
              <li key={t.id}>
                {h && h.dropped_message_ids.length > 0 && t.id === firstKept && (
                  <div data-testid="node-window-start" role="separator" className="my-2 flex items-center gap-3 text-[11px] font-medium text-indigo-700 dark:text-indigo-300">
                    <span className="h-px flex-1 bg-indigo-400 dark:bg-indigo-600" />
                    ▼ Window starts here — {plural(h.dropped_message_ids.length, "older thread turn")} dropped ({formatInt(droppedTokens)} tokens)
                    <span className="h-px flex-1 bg-indigo-400 dark:bg-indigo-600" />
                  </div>
                )}
                <TurnCard
                  turn={t}
                  index={i}
                  state={h ? (state.get(t.id) ?? "off-thread") : "pending"}
                  tokens={h?.turn_tokens.find((x) => x.message_id === t.id)?.tokens}
                  isCurrent={current === t.id}
                  onWalkFrom={() => setCurrent(t.id)}
                />
              </li>
            ))}
          </ol>
        )}
      </div>
    </section>
  );
}

function turnStates(h: NodeHistoryResponse | undefined): Map<string, TurnState> {
  const m = new Map<string, TurnState>();
  for (const t of h?.turn_tokens ?? []) m.set(t.message_id, t.kept ? "kept" : "dropped");
  return m;
}

const STATE_BADGE: Record<Exclude<TurnState, "pending">, { tone: "green" | "red" | "neutral"; label: string; title: string }> = {
  kept: { tone: "green", label: "kept", title: "In the window handed to the model" },
  dropped: { tone: "red", label: "dropped", title: "On the thread but over max_token_limit (oldest turns go first)" },
  "off-thread": { tone: "neutral", label: "other branch", title: "Not an ancestor of current_message_id" },
};

function TurnCard({
  turn,
  index,
  state,
  tokens,
  isCurrent,
  onWalkFrom,
}: {
  turn: NodeTurn;
  index: number;
  state: TurnState;
  tokens: number | undefined;
  isCurrent: boolean;
  onWalkFrom: () => void;
}) {
  const badge = state === "pending" ? null : STATE_BADGE[state];
  return (
    <article
      data-testid="node-turn"
      data-message-id={turn.id}
      data-state={state}
      className={`rounded-lg border px-3 py-2 ${isCurrent ? "border-indigo-300 dark:border-indigo-800" : "border-zinc-200 dark:border-zinc-800"}`}
    >
      <header className="mb-1.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-[11px] text-zinc-500 dark:text-zinc-400">
        <span className="font-mono tabular-nums">#{index + 1}</span>
        <code className="max-w-[16rem] truncate font-mono" title={`message_id ${turn.id}; parent_message_id ${turn.user?.parent_message_id ?? "null"}`}>{turn.id}</code>
        {turn.user && (
          <span title="parent_message_id">
            ← <code className="font-mono">{turn.user.parent_message_id ?? "null"}</code>
          </span>
        )}
        {badge && <Badge tone={badge.tone} title={badge.title}>{badge.label}</Badge>}
        {tokens !== undefined && <span className="tabular-nums" title="Chat-formula tokens of the turn (both messages)">{formatInt(tokens)} tokens</span>}
        <button type="button" onClick={onWalkFrom} data-testid="node-walk-from" className="ml-auto text-indigo-600 hover:underline dark:text-indigo-400">
          walk from here
        </button>
      </header>
      <div className={state === "kept" || state === "pending" ? "" : "opacity-45 grayscale"}>
        {turn.user && <Bubble m={turn.user} />}
        {turn.assistant && <Bubble m={turn.assistant} />}
      </div>
    </article>
  );
}

const CLAMP_OVER = 320;

function Bubble({ m }: { m: NodeMemoryMessage }) {
  const [expanded, setExpanded] = useState(false);
  const user = m.role === "user";
  const long = m.content.length > CLAMP_OVER;
  return (
    <div className={`mt-1 flex flex-col ${user ? "items-end" : "items-start"}`}>
      <div
        data-testid={`node-msg-${m.role}`}
        className={`max-w-[85%] rounded-2xl px-3 py-1.5 text-sm whitespace-pre-wrap break-words ${
          user ? "bg-indigo-600 text-white" : "bg-zinc-100 text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100"
        }`}
        title={`${m.message_id} · ${m.token_count} content tokens (o200k_base) · ${absoluteTime(m.created_at)}`}
      >
        {m.files.length > 0 && (
          <span className={`mb-1 block text-[11px] ${user ? "text-indigo-100" : "text-zinc-500 dark:text-zinc-400"}`}>
            {m.files.map((f) => `${f.type} (${f.transfer_method})`).join(", ")}
          </span>
        )}
        <span className={long && !expanded ? "line-clamp-3" : undefined}>{m.content || <em className="opacity-70">(empty)</em>}</span>
      </div>
      {long && (
        <button type="button" onClick={() => setExpanded((x) => !x)} className="mt-0.5 px-2 text-[11px] text-indigo-600 hover:underline dark:text-indigo-400">
          {expanded ? "show less" : `show all (${formatInt(m.content.length)} characters)`}
        </button>
      )}
    </div>
  );
}
