"use client";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useState } from "react";
import type { Message } from "@/client/api-types";
import { useConversation } from "@/client/hooks/conversations";
import { useAllMessages, useHistory, useThread, type HistoryParams } from "@/client/hooks/turns";
import { readWindowSettings, writeWindowSettings, type WindowSettings } from "@/client/ui/window-url";
import { useDebouncedValue } from "@/client/ui/use-debounced-value";
import { ApiError } from "@/client/api-error";
import { formatInt, plural } from "@/client/ui/format";
import { ErrorBox, Spinner } from "@/components/ui/states";
import { WindowPanel } from "@/components/window/window-panel";
import { NodeMemorySection } from "@/components/node-memory/node-memory-panel";
import { TabList } from "@/components/ui/tabs";
import { SentVsModelledPanel } from "@/components/capture/sent-vs-modelled-panel";
import { useCapturedTurns } from "@/client/hooks/captures";
import { ConversationHeader } from "./conversation-header";
import { ConversationMemoriesPanel } from "./conversation-memories";
import { MessageTree } from "./message-tree";

export function ConversationDetail({ id }: { id: string }) {
  const params = useSearchParams();
  const leafParam = params.get("leaf");
  const conversation = useConversation(id);
  const messages = useAllMessages(id);
  const thread = useThread(id, leafParam);
  // Model, budget and turn cap live in the URL next to the leaf: a shared link shows the same window.
  const [settings, setSettingsState] = useState<WindowSettings>(() => readWindowSettings(new URLSearchParams(params.toString())));
  const setSettings = useCallback((s: WindowSettings) => {
    setSettingsState(s);
    const sp = writeWindowSettings(new URLSearchParams(window.location.search), s);
    const qs = sp.toString();
    window.history.replaceState(null, "", qs ? `?${qs}` : window.location.pathname);
  }, []);
  const debounced = useDebouncedValue(settings, 150);
  const historyParams: HistoryParams = useMemo(() => ({ ...debounced, leaf: leafParam }), [debounced, leafParam]);
  const history = useHistory(id, historyParams, "messages", !thread.isError);

  const name = conversation.data?.name;
  useEffect(() => {
    if (conversation.data) document.title = `${name || "Untitled conversation"} · Memscope`;
  }, [conversation.data, name]);

  // The leaf lives in the URL (?leaf=) so a view can be shared; replaceState avoids a server round trip.
  // The right column's tab (?tab=memories), in the URL like the rest of the view.
  type Tab = "window" | "memories" | "captured";
  const [tab, setTab] = useState<Tab>(() => (params.get("tab") === "memories" ? "memories" : params.get("tab") === "captured" ? "captured" : "window"));
  // Turns captured over OTLP get a third tab, "Sent vs modelled" (components/capture).
  const captures = useCapturedTurns(id);
  const hasCaptures = !!captures.data?.data.length;
  const selectTab = useCallback((t: Tab) => {
    setTab(t);
    const sp = new URLSearchParams(window.location.search);
    if (t === "window") sp.delete("tab");
    else sp.set("tab", t);
    const qs = sp.toString();
    window.history.replaceState(null, "", qs ? `?${qs}` : window.location.pathname);
  }, []);

  const selectLeaf = useCallback((leaf: string) => {
    const sp = new URLSearchParams(window.location.search);
    sp.set("leaf", leaf);
    window.history.replaceState(null, "", `?${sp.toString()}`);
  }, []);
  const clearLeaf = useCallback(() => {
    const sp = new URLSearchParams(window.location.search);
    sp.delete("leaf");
    const qs = sp.toString();
    window.history.replaceState(null, "", qs ? `?${qs}` : window.location.pathname);
  }, []);

  const byId = useMemo(() => new Map((messages.data ?? []).map((m) => [m.id, m] as const)), [messages.data]);
  const childrenOf = useMemo(() => {
    const map = new Map<string | null, string[]>();
    for (const m of messages.data ?? []) {
      const p = m.tree_parent_id && byId.has(m.tree_parent_id) ? m.tree_parent_id : null;
      const list = map.get(p);
      if (list) list.push(m.id);
      else map.set(p, [m.id]);
    }
    return map;
  }, [messages.data, byId]);

  const threadIds = useMemo(() => thread.data?.message_ids ?? [], [thread.data]);
  const threadTurns = useMemo(() => {
    const out: Message[] = [];
    for (let i = threadIds.length - 1; i >= 0; i--) {
      const m = byId.get(threadIds[i]);
      if (m) out.push(m);
    }
    return out;
  }, [threadIds, byId]);
  const resolvedLeaf = thread.data?.leaf_message_id ?? threadIds[0] ?? null;

  if (conversation.isError) {
    return (
      <main className="mx-auto w-full max-w-3xl px-6 py-10">
        <ErrorBox title="Could not open this conversation" error={conversation.error} onRetry={() => conversation.refetch()} />
        <Link href="/conversations" className="mt-4 inline-block text-sm text-indigo-600 hover:underline dark:text-indigo-400">
          ← Back to conversations
        </Link>
      </main>
    );
  }

  return (
    <main className="flex flex-col lg:h-[calc(100dvh-3rem)] lg:min-h-0">
      <ConversationHeader conversation={conversation.data} />
      <div className="grid min-h-0 flex-1 grid-cols-1 lg:grid-cols-[minmax(0,5fr)_minmax(0,7fr)]">
        <section aria-label="Message tree" className="relative h-[55vh] min-h-0 border-b border-zinc-200 lg:h-auto lg:border-r lg:border-b-0 dark:border-zinc-800">
          {/* The tree holds one tab stop; this lets keyboard users jump straight to the window controls. */}
          <a
            href="#window-preview"
            data-testid="skip-tree"
            className="sr-only rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white focus:not-sr-only focus:absolute focus:top-12 focus:left-2 focus:z-20"
          >
            Skip the tree to the window preview
          </a>
          {messages.isError ? (
            <div className="p-4"><ErrorBox title="Could not load messages" error={messages.error} onRetry={() => messages.refetch()} /></div>
          ) : thread.isError ? (
            <div className="p-4">
              <ErrorBox
                title={
                  thread.error instanceof ApiError && thread.error.status === 404
                    ? "The turn in ?leaf= is not in this conversation"
                    : "?leaf= does not name a turn"
                }
                error={thread.error}
              />
              <button type="button" onClick={clearLeaf} className="mt-3 text-sm text-indigo-600 hover:underline dark:text-indigo-400">
                Show the newest thread instead
              </button>
            </div>
          ) : messages.data && thread.data ? (
            messages.data.length ? (
              <MessageTree conversationId={id} messages={messages.data} threadIds={threadIds} leafId={resolvedLeaf} onSelect={selectLeaf} history={history.data} />
            ) : (
              <p className="p-6 text-sm text-zinc-500">No turns yet.</p>
            )
          ) : (
            <div className="flex h-full items-center justify-center gap-2 text-sm text-zinc-500">
              <Spinner /> Loading {conversation.data ? plural(conversation.data.turn_count, "turn") : "turns"}…
            </div>
          )}
        </section>
        <div className="flex min-h-0 flex-col">
          <TabList
            tabs={[
              { key: "window", label: "Window preview", testId: "tab-window" },
              { key: "memories", label: "Memories", testId: "tab-memories" },
              ...(hasCaptures || tab === "captured" ? [{ key: "captured" as const, label: "Sent vs modelled", testId: "tab-captured" }] : []),
            ]}
            value={tab}
            onChange={selectTab}
            label="Conversation views"
            panelId="conversation-panel"
            size="md"
            className="shrink-0 border-b border-zinc-200 bg-white px-3 dark:border-zinc-800 dark:bg-zinc-900/40"
          />
          <div role="tabpanel" id="conversation-panel" aria-labelledby={`conversation-panel-tab-${tab}`} className="flex min-h-0 flex-1 flex-col">
            {tab === "memories" ? (
              <ConversationMemoriesPanel conversationId={id} onSelectLeaf={selectLeaf} />
            ) : tab === "captured" ? (
              <SentVsModelledPanel conversationId={id} leafId={resolvedLeaf} />
            ) : (
        <WindowPanel
          conversationId={id}
          leafParam={leafParam}
          thread={threadTurns}
          resolvedLeaf={resolvedLeaf}
          childrenOf={childrenOf}
          onSelectLeaf={selectLeaf}
          threadLoading={messages.isPending || thread.isPending}
          threadError={thread.isError ? thread.error : null}
          settings={settings}
          onSettings={setSettings}
          params={historyParams}
          history={history}
          settling={settings !== debounced}
        />
            )}
          </div>
        </div>
      </div>
      <NodeMemorySection conversationId={id} />
    </main>
  );
}
