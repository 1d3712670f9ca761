"use client";
import Link from "next/link";
import type { ConversationMemories } from "@/client/api-types";
import { useConversationMemories } from "@/client/hooks/memories";
import { absoluteTime, formatInt, oneLine, plural, relativeTime } from "@/client/ui/format";
import { ErrorBox, Spinner } from "@/components/ui/states";
import { TypeBadge } from "@/components/memories/type-badge";

const link = "text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300";

/**
 * The conversation's "Memories" tab: memories extracted from it (source_session_id, with the
 * turn when known) and the retrievals made for it (the access log), each hit with its scores.
 */
export function ConversationMemoriesPanel({ conversationId, onSelectLeaf }: { conversationId: string; onSelectLeaf: (id: string) => void }) {
  const q = useConversationMemories(conversationId);
  if (q.isError) return <div className="p-4"><ErrorBox title="Could not load this conversation's memories" error={q.error} onRetry={() => q.refetch()} /></div>;
  if (!q.data)
    return (
      <div className="flex items-center gap-2 p-6 text-sm text-zinc-500">
        <Spinner /> Loading memories…
      </div>
    );
  return (
    <div className="min-h-0 flex-1 space-y-6 overflow-y-auto p-4" data-testid="conversation-memories">
      <Extracted list={q.data.extracted} onSelectLeaf={onSelectLeaf} />
      <Retrievals list={q.data.retrievals} />
    </div>
  );
}

function Extracted({ list, onSelectLeaf }: { list: ConversationMemories["extracted"]; onSelectLeaf: (id: string) => void }) {
  return (
    <section aria-labelledby="extracted-heading">
      <h3 id="extracted-heading" className="mb-2 text-sm font-semibold">
        Extracted from this conversation <span className="font-normal text-zinc-500 dark:text-zinc-400">· {formatInt(list.length)}</span>
      </h3>
      {!list.length ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="extracted-empty">
          No memory names this conversation as its source. Extract candidates from Memories → Review, or save one through the API with{" "}
          <code className="font-mono text-xs">source_session_id</code>.
        </p>
      ) : (
        <ul className="divide-y divide-zinc-100 rounded-md border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {list.map((m) => (
            <li key={m.id} className="flex min-w-0 items-start gap-2 px-3 py-2 text-sm" data-testid="extracted-memory" data-id={m.id}>
              <TypeBadge type={m.memory_type} />
              <div className="min-w-0 flex-1">
                <Link href={`/memories/${m.id}`} className={`${link} line-clamp-2`}>
                  {m.content}
                </Link>
                <p className="text-xs text-zinc-600 tabular-nums dark:text-zinc-400">
                  importance {m.importance_score.toFixed(2)} · {m.status} ·{" "}
                  <time dateTime={m.created_at} title={absoluteTime(m.created_at)}>{relativeTime(m.created_at)}</time>
                  {m.source_message_id && (
                    <>
                      {" · "}
                      <button type="button" className={link} onClick={() => onSelectLeaf(m.source_message_id!)} data-testid="extracted-turn">
                        show its turn
                      </button>
                    </>
                  )}
                </p>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Retrievals({ list }: { list: ConversationMemories["retrievals"] }) {
  return (
    <section aria-labelledby="retrievals-heading">
      <h3 id="retrievals-heading" className="mb-2 text-sm font-semibold">
        Retrieved for this conversation <span className="font-normal text-zinc-500 dark:text-zinc-400">· {plural(list.length, "retrieval")}</span>
      </h3>
      {!list.length ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="retrievals-empty">
          No search named this conversation (<code className="font-mono text-xs">conversation_id</code> in a search or a context request). Dry runs are not listed.
        </p>
      ) : (
        <ol className="space-y-3">
          {list.map((r) => (
            <li key={r.id} className="rounded-md border border-zinc-200 dark:border-zinc-800" data-testid="retrieval" data-id={r.id}>
              <div className="flex flex-wrap items-baseline gap-x-2 border-b border-zinc-100 px-3 py-1.5 text-xs dark:border-zinc-800">
                <span className="text-sm font-medium text-zinc-900 dark:text-zinc-100">“{oneLine(r.query, 120)}”</span>
                <span className="text-zinc-600 tabular-nums dark:text-zinc-400">
                  user {r.user_id} · k {r.k} · {r.latency_ms.toFixed(0)} ms ·{" "}
                  <time dateTime={r.created_at} title={absoluteTime(r.created_at)}>{relativeTime(r.created_at)}</time>
                </span>
              </div>
              {!r.hits.length ? (
                <p className="px-3 py-2 text-xs text-zinc-600 dark:text-zinc-400">No memory returned.</p>
              ) : (
                <table className="w-full table-fixed text-xs">
                  <caption className="sr-only">Hits of “{r.query}”</caption>
                  <thead className="text-left text-zinc-500 dark:text-zinc-400">
                    <tr>
                      <th scope="col" className="w-8 px-3 py-1 font-medium">#</th>
                      <th scope="col" className="px-1 py-1 font-medium">Memory</th>
                      <th scope="col" className="w-14 px-1 py-1 text-right font-medium">score</th>
                      <th scope="col" className="w-14 px-1 py-1 text-right font-medium max-sm:hidden">cosine</th>
                      <th scope="col" className="w-14 px-1 py-1 text-right font-medium max-sm:hidden">decay</th>
                      <th scope="col" className="w-16 px-3 py-1 text-right font-medium max-sm:hidden">import.</th>
                    </tr>
                  </thead>
                  <tbody className="tabular-nums">
                    {r.hits.map((h) => (
                      <tr key={h.rank} className="border-t border-zinc-100 dark:border-zinc-800" data-testid="retrieval-hit">
                        <td className="px-3 py-1">{h.rank}</td>
                        <td className="truncate px-1 py-1">
                          {h.memory ? (
                            <Link href={`/memories/${h.memory.id}`} className={link} title={h.memory.content}>
                              {oneLine(h.memory.content, 90)}
                            </Link>
                          ) : (
                            <span className="text-zinc-500">deleted memory</span>
                          )}
                        </td>
                        <td className="px-1 py-1 text-right font-medium">{h.score.toFixed(3)}</td>
                        <td className="px-1 py-1 text-right max-sm:hidden">{h.cosine.toFixed(3)}</td>
                        <td className="px-1 py-1 text-right max-sm:hidden">{h.time_decay.toFixed(2)}</td>
                        <td className="px-3 py-1 text-right max-sm:hidden">{h.importance.toFixed(2)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
