"use client";
import { WriteButton, WriteFieldset } from "@/components/ui/write-button";
import Link from "next/link";
import { SaveAsTest } from "@/components/evals/save-as-test";
import { useRouter, useSearchParams } from "next/navigation";
import { useState, type ReactNode } from "react";
import { conflictCurrent } from "@/client/api-error";
import type { Memory, MemoryType, Relation } from "@/client/api-types";
import {
  useArchiveRestore,
  useDeleteMemory,
  useMemory,
  useMemoryAccesses,
  useMemoryHistory,
  useMemoryRelations,
  usePatchMemory,
  useTakeTheirs,
} from "@/client/hooks/memories";
import { useUnmerge } from "@/client/hooks/memory-curation";
import { MEMORY_TYPE_LIST } from "@/client/ui/memory-format";
import { absoluteTime, formatInt, plural, relativeTime } from "@/client/ui/format";
import { StatusBadge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorBox, InlineError, Spinner } from "@/components/ui/states";
import { AccessLog } from "./access-log";
import { OriginCard } from "./origin-card";
import { Dialog } from "./dialog";
import { HistoryTimeline } from "./history-timeline";
import { JsonEditor } from "./json-editor";
import { MemoriesShell, withUser } from "./memories-shell";
import { AddRelation, RelationLegend, RelationList, RelationsGraph } from "./relations-graph";
import { Card } from "./card";
import { TypeBadge } from "./type-badge";
import { useToast } from "./toast";
import { parseReplayRef } from "@/client/ui/replay-url";
import { ReplayWhyCard } from "@/components/replay/replay-why-card";

export function MemoryDetail({ id }: { id: string }) {
  const params = useSearchParams();
  const router = useRouter();
  const memory = useMemory(id);
  const relations = useMemoryRelations(id);
  const history = useMemoryHistory(id);
  const accesses = useMemoryAccesses(id);
  const m = memory.data;
  const user = m?.user_id ?? params.get("user") ?? "";
  // Opened from a replayed turn: "why not this memory?" answers for that turn.
  const replayed = parseReplayRef(params.get("replay"));

  return (
    <MemoriesShell user={user} onUser={(u) => router.push(withUser("/memories", u))}>
      <main className="mx-auto w-full max-w-7xl px-4 py-5 sm:px-6">
        <nav aria-label="Breadcrumb" className="mb-2 text-xs">
          <Link href={withUser("/memories", user)} className="rounded text-zinc-500 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100">
            ← Memories
          </Link>
        </nav>
        {memory.isError ? (
          <ErrorBox title="Could not load this memory" error={memory.error} onRetry={() => memory.refetch()} />
        ) : !m ? (
          <div className="space-y-3">
            <Skeleton className="h-7 w-96" />
            <Skeleton className="h-40 w-full" />
          </div>
        ) : (
          <>
            <Header m={m} relations={relations.data ?? []} />
            {replayed && (
              <div className="mt-4">
                <ReplayWhyCard memoryId={m.id} at={replayed} />
              </div>
            )}
            <div className="mt-5 grid gap-5 lg:grid-cols-[minmax(0,7fr)_minmax(0,5fr)]">
              <div className="flex min-w-0 flex-col gap-5">
                <FieldsEditor key={m.version} m={m} />
                <Card title="Structured data" testId="structured-card">
                  <WriteFieldset>
                    <JsonEditor key={m.version} memory={m} />
                  </WriteFieldset>
                </Card>
              </div>
              <div className="flex min-w-0 flex-col gap-5">
                <OriginCard memoryId={m.id} events={history.data} />
                <SaveAsTest idPrefix="memory-test" userId={m.user_id} question="" memoryIds={[m.id]} hint="A question this memory must answer: the case expects it within k of a run." />
                <Card title="History" actions={history.data && <span className="text-xs text-zinc-500">{plural(history.data.length, "event")}</span>} testId="history-card">
                  {history.isError ? <ErrorBox error={history.error} /> : history.isLoading ? <Skeleton className="h-40 w-full" /> : <HistoryTimeline memory={m} events={history.data ?? []} />}
                </Card>
                <Card title="Retrieved by these queries" actions={accesses.data && <span className="text-xs text-zinc-500">{plural(accesses.data.length, "retrieval")}</span>} testId="accesses-card">
                  {accesses.isError ? <ErrorBox error={accesses.error} /> : accesses.isLoading ? <Skeleton className="h-24 w-full" /> : <AccessLog accesses={accesses.data ?? []} />}
                </Card>
              </div>
            </div>
            <div className="mt-5">
            <Card title="Relations" actions={<RelationLegend />} testId="relations-card">
              {relations.isError ? (
                <ErrorBox error={relations.error} onRetry={() => relations.refetch()} />
              ) : relations.isLoading ? (
                <Skeleton className="h-64 w-full" />
              ) : (
                <div className="grid gap-4 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
                  <RelationsGraph memory={m} relations={relations.data ?? []} />
                  <div className="flex min-w-0 flex-col gap-3">
                    <RelationList memory={m} relations={relations.data ?? []} />
                    <WriteFieldset>
                      <AddRelation memory={m} />
                    </WriteFieldset>
                  </div>
                </div>
              )}
            </Card>
            </div>
          </>
        )}
      </main>
    </MemoriesShell>
  );
}

function Header({ m, relations }: { m: Memory; relations: Relation[] }) {
  const router = useRouter();
  const params = useSearchParams();
  const toggle = useArchiveRestore();
  const unmerge = useUnmerge();
  const toast = useToast();
  const [deleting, setDeleting] = useState(false);
  const archived = m.status === "archived";
  const mergedFrom = relations.filter((r) => r.relation_type === "merged_into" && r.target_id === m.id && !r.removed_at);
  const justMerged = params.get("merged");

  return (
    <header>
      {mergedFrom.length > 0 && !archived && (
        <div
          data-testid="merge-banner"
          className={`mb-4 flex flex-wrap items-center gap-3 rounded-lg border px-4 py-2.5 text-sm ${
            justMerged ? "border-indigo-300 bg-indigo-50 dark:border-indigo-800 dark:bg-indigo-950/50" : "border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900"
          }`}
        >
          <span>
            {justMerged ? "Merged " : "Merge of "}
            <strong>{plural(mergedFrom.length, "memory", "memories")}</strong>; the sources are archived and linked with <em>merged_into</em>.
          </span>
          <WriteButton
            size="sm"
            className="ml-auto"
            data-testid="unmerge"
            disabled={unmerge.isPending}
            onClick={() =>
              unmerge.mutate(m.id, {
                onSuccess: () => {
                  toast.show({ message: `Unmerged: ${plural(mergedFrom.length, "source")} restored` });
                  router.push(withUser("/memories", m.user_id));
                },
              })
            }
          >
            {unmerge.isPending && <Spinner />}
            Undo merge
          </WriteButton>
          {unmerge.isError && <span role="alert" className="w-full text-xs text-red-600 dark:text-red-400">{unmerge.error.message}</span>}
        </div>
      )}
      <div className="flex flex-wrap items-start gap-3">
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-2">
            <TypeBadge type={m.memory_type} />
            <StatusBadge status={m.status} />
            <span className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-[11px] text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300" data-testid="detail-version">
              v{m.version}
            </span>
          </div>
          <h1 className="mt-2 text-lg leading-snug font-semibold tracking-tight" data-testid="detail-content">
            {m.content}
          </h1>
          <dl className="mt-2 flex flex-wrap gap-x-5 gap-y-1 text-xs text-zinc-500 dark:text-zinc-400">
            <Meta label="Importance">{m.importance_score.toFixed(2)}</Meta>
            <Meta label="Confidence">{m.confidence.toFixed(2)}</Meta>
            <Meta label="Retrieved" testId="meta-retrieved">{plural(m.access_count, "time")}</Meta>
            <Meta label="Last used" testId="meta-last-used">
              {m.last_accessed_at ? <time dateTime={m.last_accessed_at} title={absoluteTime(m.last_accessed_at)}>{relativeTime(m.last_accessed_at)}</time> : "never"}
            </Meta>
            <Meta label="Created" testId="meta-created">
              <time dateTime={m.created_at}>{absoluteTime(m.created_at)}</time>
            </Meta>
            <Meta label="Updated">{relativeTime(m.updated_at)}</Meta>
            {m.app_id && <Meta label="App"><span className="font-mono">{m.app_id}</span></Meta>}
            {m.source_session_id && (
              <Meta label="From">
                <Link className="text-indigo-600 hover:underline dark:text-indigo-400" href={`/conversations/${m.source_session_id}`}>
                  conversation
                </Link>
              </Meta>
            )}
          </dl>
        </div>
        <div className="flex items-center gap-2">
          <CopyButton text={m.id} label="Copy id" />
          <WriteButton
            data-testid={archived ? "detail-restore" : "detail-archive"}
            disabled={toggle.isPending}
            onClick={() => toggle.mutate({ id: m.id, action: archived ? "restore" : "archive" })}
          >
            {toggle.isPending && <Spinner />}
            {archived ? "Restore" : "Archive"}
          </WriteButton>
          {archived && (
            <WriteButton data-testid="detail-delete" variant="danger-outline" onClick={() => setDeleting(true)}>
              Delete permanently…
            </WriteButton>
          )}
        </div>
      </div>
      {toggle.isError && <InlineError>{toggle.error.message}</InlineError>}
      {deleting && <DeleteDialog m={m} onClose={() => setDeleting(false)} />}
    </header>
  );
}

function Meta({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="flex items-center gap-1">
      <dt>{label}</dt>
      <dd className="text-zinc-700 tabular-nums dark:text-zinc-300" data-testid={testId}>{children}</dd>
    </div>
  );
}

function DeleteDialog({ m, onClose }: { m: Memory; onClose: () => void }) {
  const [typed, setTyped] = useState("");
  const del = useDeleteMemory();
  const router = useRouter();
  const toast = useToast();
  return (
    <Dialog
      title="Delete this memory permanently?"
      onClose={onClose}
      testId="delete-dialog"
      footer={
        <>
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <WriteButton
            data-testid="delete-confirm"
            variant="danger"
            disabled={typed !== "DELETE" || del.isPending}
            onClick={() =>
              del.mutate(m.id, {
                onSuccess: () => {
                  toast.show({ message: "Memory deleted permanently" });
                  router.push(withUser("/memories", m.user_id));
                },
              })
            }
          >
            {del.isPending && <Spinner />}
            Delete permanently
          </WriteButton>
        </>
      }
    >
      <p className="text-sm text-zinc-600 dark:text-zinc-300">
        This removes the memory, its embeddings, relations and history. It cannot be undone.
      </p>
      <blockquote className="mt-3 line-clamp-3 border-l-2 border-zinc-300 pl-3 text-sm text-zinc-700 dark:border-zinc-700 dark:text-zinc-300">{m.content}</blockquote>
      <label className="mt-4 block text-xs text-zinc-600 dark:text-zinc-400">
        Type <strong className="font-mono">DELETE</strong> to confirm
        <input
          data-autofocus
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          data-testid="delete-confirm-input"
          className="mt-1 h-9 w-full rounded-md border border-zinc-300 bg-white px-2.5 font-mono text-sm dark:border-zinc-700 dark:bg-zinc-950"
        />
      </label>
      {del.isError && <p role="alert" className="mt-2 text-xs text-red-600 dark:text-red-400">{del.error.message}</p>}
    </Dialog>
  );
}

/** Content, type, importance and confidence in one PATCH with the version; 409 → choose. */
function FieldsEditor({ m }: { m: Memory }) {
  const [content, setContent] = useState(m.content);
  const [type, setType] = useState<MemoryType>(m.memory_type);
  const [importance, setImportance] = useState(m.importance_score);
  const [confidence, setConfidence] = useState(m.confidence);
  const [reason, setReason] = useState("");
  const [conflict, setConflict] = useState<Memory | null>(null);
  const patch = usePatchMemory();
  const takeTheirs = useTakeTheirs();
  const dirty = content !== m.content || type !== m.memory_type || importance !== m.importance_score || confidence !== m.confidence;

  const save = (version: number) =>
    patch.mutate(
      {
        id: m.id,
        version,
        ...(content !== m.content ? { content } : {}),
        ...(type !== m.memory_type ? { memory_type: type } : {}),
        ...(importance !== m.importance_score ? { importance_score: importance } : {}),
        ...(confidence !== m.confidence ? { confidence } : {}),
        ...(reason.trim() ? { reason: reason.trim() } : {}),
      },
      { onError: (e) => setConflict(conflictCurrent(e)) },
    );

  const slider = (label: string, value: number, set: (n: number) => void, testId: string) => (
    <label className="flex items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
      <span className="w-20">{label}</span>
      <input type="range" min={0} max={1} step={0.05} value={value} data-testid={testId} onChange={(e) => set(Number(e.target.value))} className="w-32 accent-indigo-600" />
      <span className="w-8 text-zinc-900 tabular-nums dark:text-zinc-100">{value.toFixed(2)}</span>
    </label>
  );

  return (
    <Card title="Edit" testId="fields-card" actions={<span className="font-mono text-[11px] text-zinc-500">editing v{m.version}</span>}>
      <WriteFieldset note>
      <textarea
        value={content}
        onChange={(e) => setContent(e.target.value)}
        rows={Math.min(10, Math.max(3, Math.ceil(content.length / 80)))}
        aria-label="Content"
        data-testid="detail-content-input"
        className="w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm leading-6 shadow-xs dark:border-zinc-700 dark:bg-zinc-950"
      />
      <div className="mt-3 flex flex-wrap items-center gap-x-6 gap-y-2">
        <label className="flex items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
          Type
          <select value={type} onChange={(e) => setType(e.target.value as MemoryType)} className="h-8 rounded-md border border-zinc-300 bg-white px-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900" data-testid="detail-type">
            {MEMORY_TYPE_LIST.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        {slider("Importance", importance, setImportance, "detail-importance")}
        {slider("Confidence", confidence, setConfidence, "detail-confidence")}
      </div>
      {conflict ? (
        <div role="alert" data-testid="edit-conflict" className="mt-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-100">
          <p className="font-semibold">Changed elsewhere</p>
          <p className="mt-0.5 text-xs">Version {conflict.version} was saved while you edited version {m.version}. It now reads:</p>
          <p className="mt-1.5 rounded bg-white/70 px-2 py-1 dark:bg-black/30">{conflict.content}</p>
          <div className="mt-2 flex gap-2">
            <WriteButton size="sm" variant="primary" data-testid="conflict-overwrite" disabled={patch.isPending} onClick={() => save(conflict.version)}>
              Overwrite with mine
            </WriteButton>
            <Button size="sm" data-testid="conflict-discard" onClick={() => {
                // Take theirs: the editor is keyed by version, so it remounts with the current memory.
                void takeTheirs(conflict);
                setConflict(null);
              }}>
              Discard mine
            </Button>
          </div>
        </div>
      ) : (
        <div className="mt-3 flex items-center gap-2 border-t border-zinc-100 pt-3 dark:border-zinc-800">
          <input
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            placeholder="Reason (optional, shown in history)"
            className="h-8 min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-950"
          />
          {patch.isError && <span role="alert" className="text-xs text-red-600 dark:text-red-400">{patch.error.message}</span>}
          {dirty && (
            <Button size="sm" variant="ghost" onClick={() => { setContent(m.content); setType(m.memory_type); setImportance(m.importance_score); setConfidence(m.confidence); }}>
              Reset
            </Button>
          )}
          <WriteButton size="sm" variant="primary" data-testid="detail-save" disabled={!dirty || !content.trim() || patch.isPending} onClick={() => save(m.version)}>
            {patch.isPending && <Spinner />}Save
          </WriteButton>
        </div>
      )}
      <p className="mt-2 text-[11px] text-zinc-500">{formatInt(content.length)} characters</p>
      </WriteFieldset>
    </Card>
  );
}
