"use client";
import { WriteButton } from "@/components/ui/write-button";
import Link from "next/link";
import { useMemo, useState } from "react";
import type { CompressPreview, Memory, MemoryType, ReviewItem } from "@/client/api-types";
import { useUserConversations } from "@/client/hooks/conversations";
import { useCompressApply, useCompressPreview, useExtractMemories, useResolveReview, useReview, type ReviewKind } from "@/client/hooks/memory-curation";
import { plural, relativeTime } from "@/client/ui/format";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { TabList } from "@/components/ui/tabs";
import { Skeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorBox, InlineError, Spinner } from "@/components/ui/states";
import { Card } from "./card";
import { MemoriesShell, useSelectedUser } from "./memories-shell";
import { TypeBadge } from "./type-badge";
import { useToast } from "./toast";
import { MemoryTypeToggles } from "@/components/ui/memory-type-toggles";

const KINDS = [
  { key: "", label: "All" },
  { key: "duplicate", label: "Duplicates" },
  { key: "extracted", label: "Extracted" },
] as const;

export function ReviewView() {
  const { user, setUser } = useSelectedUser();
  const [kind, setKind] = useState<ReviewKind | "">("");
  const [status, setStatus] = useState<"open" | "resolved">("open");
  const review = useReview(user, kind, status);
  const items = useMemo(() => review.data?.pages.flatMap((p) => p.data) ?? [], [review.data]);

  return (
    <MemoriesShell user={user} onUser={setUser} title="Review" subtitle="Possible duplicates and memories extracted from conversations wait here for a person's decision.">
      <main className="mx-auto grid w-full max-w-7xl gap-5 px-4 py-4 sm:px-6 lg:grid-cols-[minmax(0,1fr)_360px]">
        <section className="min-w-0">
          <div className="mb-3 flex items-center border-b border-zinc-200 dark:border-zinc-800">
            <TabList
              label="Kind"
              panelId="review-panel"
              value={kind}
              onChange={setKind}
              tabs={KINDS.map((k) => ({ key: k.key as ReviewKind | "", label: k.label, testId: `review-kind-${k.key || "all"}` }))}
            />
            {review.isFetching && !review.isLoading && <Spinner className="self-center text-indigo-500" />}
            <div role="group" aria-label="Status" className="ml-auto flex gap-1 pb-1 text-xs">
              {(["open", "resolved"] as const).map((s) => (
                <button
                  key={s}
                  type="button"
                  aria-pressed={status === s}
                  data-testid={`review-status-${s}`}
                  onClick={() => setStatus(s)}
                  className={`rounded-md px-2 py-1 font-medium ${status === s ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900" : "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-400 dark:hover:bg-zinc-800"}`}
                >
                  {s === "open" ? "Waiting" : "Resolved"}
                </button>
              ))}
            </div>
          </div>
          <div role="tabpanel" id="review-panel" aria-labelledby={`review-panel-tab-${kind || "all"}`}>
          {review.isError && !review.data ? (
            <ErrorBox title="Could not load the review queue" error={review.error} onRetry={() => review.refetch()} />
          ) : review.isLoading || !user ? (
            <div className="space-y-3">
              <Skeleton className="h-32 w-full" />
              <Skeleton className="h-32 w-full" />
            </div>
          ) : items.length === 0 ? (
            <div className="rounded-lg border border-dashed border-zinc-300 bg-white dark:border-zinc-700 dark:bg-zinc-900" data-testid="review-empty">
              <EmptyState title={status === "resolved" ? "Nothing resolved yet" : "Nothing to review"}>Extract memories from a conversation, or wait for the next save to flag a duplicate.</EmptyState>
            </div>
          ) : (
            <ul className="flex flex-col gap-3" data-testid="review-list">
              {items.map((it) => (
                <ReviewCard key={it.id} item={it} user={user} />
              ))}
            </ul>
          )}
          {review.hasNextPage && (
            <div className="mt-3 flex justify-center">
              <Button onClick={() => review.fetchNextPage()} disabled={review.isFetchingNextPage}>
                {review.isFetchingNextPage && <Spinner />}Load more
              </Button>
            </div>
          )}
          </div>
        </section>
        <aside className="flex flex-col gap-5">
          <ExtractPanel user={user} />
        </aside>
        {/* The compression preview lists groups of memories side by side: it needs the main column's width. */}
        <section className="min-w-0 lg:col-span-2" aria-label="Compress old memories">
          <CompressPanel user={user} />
        </section>
      </main>
    </MemoriesShell>
  );
}

function MemoryBox({ m, label, user }: { m: Memory | null | undefined; label: string; user: string }) {
  if (!m) return <div className="rounded-lg border border-dashed border-zinc-300 p-3 text-xs text-zinc-500 dark:border-zinc-700">{label}: gone</div>;
  return (
    <div className="min-w-0 rounded-lg border border-zinc-200 bg-zinc-50/70 p-3 dark:border-zinc-800 dark:bg-zinc-950/40">
      <div className="mb-1.5 flex flex-wrap items-center gap-1.5 text-[11px] text-zinc-500">
        <span className="font-semibold tracking-wide uppercase">{label}</span>
        <TypeBadge type={m.memory_type} />
        <span className="tabular-nums">imp {m.importance_score.toFixed(2)}</span>
        <span>· {relativeTime(m.created_at)}</span>
        {m.status === "archived" && <Badge>archived</Badge>}
      </div>
      <Link href={`/memories/${m.id}?user=${encodeURIComponent(user)}`} className="text-sm leading-5 hover:text-indigo-700 dark:hover:text-indigo-300">
        {m.content}
      </Link>
    </div>
  );
}

function ReviewCard({ item, user }: { item: ReviewItem; user: string }) {
  const resolve = useResolveReview(user);
  const toast = useToast();
  const [text, setText] = useState(item.candidate?.content ?? "");
  const [editing, setEditing] = useState(false);
  const act = (action: "keep" | "merge" | "archive" | "approve" | "reject", content?: string) =>
    resolve.mutate(
      { itemId: item.id, action, ...(content ? { content } : {}) },
      { onSuccess: () => toast.show({ message: `${action === "keep" ? "Kept both" : action[0].toUpperCase() + action.slice(1) + "d"}` }) },
    );
  const busy = resolve.isPending;
  const tone = item.kind === "duplicate" ? "amber" : "accent";

  return (
    <li className="rounded-lg border border-zinc-200 bg-white p-4 shadow-xs dark:border-zinc-800 dark:bg-zinc-900" data-testid="review-item" data-id={item.id} data-kind={item.kind} data-status={item.status}>
      <div className="mb-2.5 flex flex-wrap items-center gap-2 text-xs">
        <Badge tone={tone}>{item.kind}</Badge>
        {item.similarity !== null && item.similarity !== undefined && (
          <span className="inline-flex items-center gap-1.5 text-zinc-500 tabular-nums" title="cosine similarity">
            similarity
            <span aria-hidden className="h-1.5 w-16 overflow-hidden rounded-full bg-zinc-100 dark:bg-zinc-800">
              <span className="block h-full rounded-full bg-amber-500" style={{ width: `${Math.max(0, Math.min(1, item.similarity)) * 100}%` }} />
            </span>
            <strong className="text-zinc-800 dark:text-zinc-200">{item.similarity.toFixed(2)}</strong>
          </span>
        )}
        {item.reason && <span className="text-zinc-500 italic">{item.reason}</span>}
        {item.status === "resolved" && (
          <Badge tone="neutral">
            <span data-testid="review-resolution">{item.resolution ?? "resolved"}</span>
            {item.resolved_at ? ` · ${relativeTime(item.resolved_at)}` : ""}
          </Badge>
        )}
        <span className="ml-auto text-zinc-500">{relativeTime(item.created_at)}</span>
      </div>
      {item.kind === "extracted" ? (
        <div>
          <div className="mb-1.5 flex items-center gap-2 text-[11px] text-zinc-500">
            {item.candidate?.memory_type && <TypeBadge type={item.candidate.memory_type} />}
            {typeof item.candidate?.importance_score === "number" && <span className="tabular-nums">importance {item.candidate.importance_score.toFixed(2)}</span>}
            {item.source_session_id && (
              <Link href={`/conversations/${item.source_session_id}`} className="text-indigo-600 hover:underline dark:text-indigo-400">
                from conversation
              </Link>
            )}
          </div>
          {editing ? (
            <textarea value={text} onChange={(e) => setText(e.target.value)} rows={2} className="w-full rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-950" />
          ) : (
            <p className="text-sm leading-5">{text}</p>
          )}
          {typeof item.candidate?.evidence === "string" && item.candidate.evidence && (
            <p className="mt-1.5 border-l-2 border-zinc-200 pl-2 text-xs text-zinc-500 italic dark:border-zinc-700">“{item.candidate.evidence}”</p>
          )}
          {item.status === "open" && <div className="mt-3 flex gap-2">
            <WriteButton size="sm" variant="primary" data-testid="review-approve" disabled={busy || !text.trim()} onClick={() => act("approve", text !== item.candidate?.content ? text.trim() : undefined)}>
              Approve
            </WriteButton>
            <WriteButton size="sm" data-testid="review-reject" disabled={busy} onClick={() => act("reject")}>
              Reject
            </WriteButton>
            <Button size="sm" variant="ghost" onClick={() => setEditing((e) => !e)}>
              {editing ? "Done editing" : "Edit text"}
            </Button>
            {busy && <Spinner className="self-center text-indigo-500" />}
          </div>}
        </div>
      ) : (
        <div>
          <div className="grid gap-3 sm:grid-cols-2">
            <MemoryBox m={item.memory} label="Existing" user={user} />
            <MemoryBox m={item.other_memory} label="New" user={user} />
          </div>
          {item.status === "open" && <div className="mt-3 flex flex-wrap gap-2">
            <WriteButton size="sm" data-testid="review-keep" disabled={busy} onClick={() => act("keep")} title="Both are right: keep both">
              Keep both
            </WriteButton>
            <WriteButton size="sm" variant="primary" data-testid="review-merge" disabled={busy} onClick={() => act("merge")} title="Merge into one (suggested text)">
              Merge
            </WriteButton>
            <WriteButton size="sm" data-testid="review-archive" disabled={busy} onClick={() => act("archive")} title="Archive the newer one">
              Archive newer
            </WriteButton>
            {busy && <Spinner className="self-center text-indigo-500" />}
          </div>}
        </div>
      )}
      {resolve.isError && <InlineError>{resolve.error.message}</InlineError>}
    </li>
  );
}

function ExtractPanel({ user }: { user: string }) {
  const [conversation, setConversation] = useState("");
  const convs = useUserConversations(user);
  const extract = useExtractMemories(user);
  return (
    <Card title="Extract from a conversation" testId="extract-panel">
      <p className="mb-2 text-xs text-zinc-500 dark:text-zinc-400">Reads the conversation&apos;s current thread and queues candidate memories for review.</p>
      {convs.isError ? (
        <ErrorBox error={convs.error} />
      ) : (
        <select
          value={conversation}
          onChange={(e) => setConversation(e.target.value)}
          data-testid="extract-conversation"
          className="h-9 w-full rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
          aria-label="Conversation"
        >
          <option value="">{convs.isLoading ? "Loading…" : convs.data?.length ? "Pick a conversation…" : "This user has no conversations"}</option>
          {convs.data?.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name || "Untitled"} · {c.turn_count} turns
            </option>
          ))}
        </select>
      )}
      <WriteButton className="mt-2 w-full" variant="primary" data-testid="extract-run" disabled={!conversation || extract.isPending} onClick={() => extract.mutate(conversation)}>
        {extract.isPending && <Spinner />}
        Extract memories
      </WriteButton>
      {extract.data && (
        <p className="mt-2 text-xs text-zinc-600 dark:text-zinc-400" data-testid="extract-result">
          {plural(extract.data.data.length, "candidate")} queued from {plural(extract.data.turns, "turn")} ({extract.data.method}
          {extract.data.skipped ? `, ${extract.data.skipped} skipped` : ""}).
        </p>
      )}
      {extract.isError && <p role="alert" className="mt-2 text-xs text-red-600 dark:text-red-400">{extract.error.message}</p>}
    </Card>
  );
}

type Group = CompressPreview["proposals"][number] & { include: boolean };

function CompressPanel({ user }: { user: string }) {
  const toast = useToast();
  const [days, setDays] = useState(90);
  const [maxAccess, setMaxAccess] = useState(5);
  const [types, setTypes] = useState<MemoryType[]>([]);
  const [groups, setGroups] = useState<Group[] | null>(null);
  const [meta, setMeta] = useState<{ eligible: number; truncated: boolean } | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [applyError, setApplyError] = useState<string | null>(null);

  const preview = useCompressPreview(user);
  const runPreview = () =>
    preview.mutate(
        { older_than_days: days, max_access_count: maxAccess, ...(types.length ? { memory_types: types } : {}) },
        {
          onSuccess: (r) => {
            setGroups(r.proposals.map((p) => ({ ...p, include: true })));
            setMeta({ eligible: r.eligible, truncated: r.truncated });
          },
        },
    );
  const applyGroups = useCompressApply(user);

  // One request per group, so the progress bar is real.
  const apply = async () => {
    if (!groups) return;
    const chosen = groups.filter((g) => g.include);
    setApplyError(null);
    setProgress({ done: 0, total: chosen.length });
    try {
      const archived = await applyGroups(
        chosen.map((g) => ({ memory_type: g.memory_type, source_ids: g.source_ids, compressed: g.compressed.map((c) => ({ content: c.content, importance_score: c.importance_score, source_ids: c.source_ids })), method: g.method })),
        (done) => setProgress({ done, total: chosen.length }),
      );
      toast.show({ message: `Compressed ${plural(archived, "memory", "memories")} into ${plural(chosen.reduce((n, g) => n + g.compressed.length, 0), "summary", "summaries")}` });
      setGroups(null);
    } catch (e) {
      setApplyError(e instanceof Error ? e.message : String(e));
    } finally {
      setProgress(null);
    }
  };

  const inputCls = "h-8 w-full rounded-md border border-zinc-300 bg-white px-2 text-sm tabular-nums dark:border-zinc-700 dark:bg-zinc-950";
  return (
    <Card title="Compress old memories" testId="compress-panel">
      <p className="mb-2 text-xs text-zinc-500 dark:text-zinc-400">Groups rarely used, old memories and replaces each group with a short summary. Sources are archived, not deleted.</p>
      <div className="grid grid-cols-2 gap-2 text-xs text-zinc-600 dark:text-zinc-400">
        <label className="flex flex-col gap-1">
          Not used for (days)
          <input type="number" min={0} value={days} onChange={(e) => setDays(Number(e.target.value) || 0)} className={inputCls} data-testid="compress-days" />
        </label>
        <label className="flex flex-col gap-1">
          Used fewer than (times)
          <input type="number" min={1} value={maxAccess} onChange={(e) => setMaxAccess(Math.max(1, Number(e.target.value) || 1))} className={inputCls} />
        </label>
      </div>
      <div className="mt-2 flex flex-wrap gap-1.5">
        <MemoryTypeToggles value={types} onChange={setTypes} />
      </div>
      <WriteButton className="mt-3 w-full" data-testid="compress-preview" disabled={!user || preview.isPending || !!progress} onClick={runPreview}>
        {preview.isPending && <Spinner />}
        Preview
      </WriteButton>
      {preview.isError && <p role="alert" className="mt-2 text-xs text-red-600 dark:text-red-400">{preview.error.message}</p>}
      {groups && meta && (
        <div className="mt-3" data-testid="compress-groups">
          <p className="text-xs text-zinc-500">
            {plural(meta.eligible, "eligible memory", "eligible memories")} → {plural(groups.length, "group")}
            {meta.truncated && " (only the first 2 000 considered)"}
          </p>
          {groups.length === 0 ? (
            <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">Nothing to compress with these settings.</p>
          ) : (
            <ul className="mt-2 flex max-h-[60vh] flex-col gap-2 overflow-auto pr-1">
              {groups.map((g, gi) => (
                <li key={gi} className={`rounded-md border p-2.5 text-xs ${g.include ? "border-zinc-200 dark:border-zinc-700" : "border-dashed border-zinc-200 opacity-60 dark:border-zinc-800"}`} data-testid="compress-group">
                  <label className="flex items-center gap-2">
                    <input type="checkbox" checked={g.include} onChange={(e) => setGroups((gs) => gs!.map((x, i) => (i === gi ? { ...x, include: e.target.checked } : x)))} className="accent-indigo-600" />
                    <TypeBadge type={g.memory_type} />
                    <span className="text-zinc-500">{plural(g.source_ids.length, "source")} · {g.method}</span>
                  </label>
                  <ul className="mt-1.5 ml-5 list-disc space-y-0.5 text-zinc-500 dark:text-zinc-400">
                    {g.sources.map((s) => (
                      <li key={s.id} className="line-clamp-1" title={s.content}>{s.content}</li>
                    ))}
                  </ul>
                  {g.compressed.map((c, ci) => (
                    <textarea
                      key={ci}
                      value={c.content}
                      aria-label="Compressed text"
                      onChange={(e) =>
                        setGroups((gs) => gs!.map((x, i) => (i === gi ? { ...x, compressed: x.compressed.map((y, j) => (j === ci ? { ...y, content: e.target.value } : y)) } : x)))
                      }
                      rows={2}
                      className="mt-2 w-full rounded-md border border-indigo-200 bg-indigo-50/50 px-2 py-1.5 text-sm dark:border-indigo-900 dark:bg-indigo-950/30"
                    />
                  ))}
                </li>
              ))}
            </ul>
          )}
          {progress ? (
            <div className="mt-3" data-testid="compress-progress">
              <div className="mb-1 flex justify-between text-xs text-zinc-500">
                <span>Applying…</span>
                <span className="tabular-nums">{progress.done} / {progress.total}</span>
              </div>
              <div role="progressbar" aria-valuemin={0} aria-valuemax={progress.total} aria-valuenow={progress.done} className="h-2 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800">
                <div className="h-full rounded-full bg-indigo-500 transition-[width]" style={{ width: `${(progress.done / Math.max(1, progress.total)) * 100}%` }} />
              </div>
            </div>
          ) : (
            groups.some((g) => g.include) && (
              <WriteButton className="mt-3 w-full" variant="primary" data-testid="compress-apply" onClick={apply}>
                Apply {plural(groups.filter((g) => g.include).length, "group")}
              </WriteButton>
            )
          )}
          {applyError && <p role="alert" className="mt-2 text-xs text-red-600 dark:text-red-400">{applyError}</p>}
        </div>
      )}
    </Card>
  );
}
