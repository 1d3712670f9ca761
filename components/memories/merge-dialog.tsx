"use client";
import { WriteButton } from "@/components/ui/write-button";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import type { Memory, MemoryType } from "@/client/api-types";
import { useMerge, useMergeSuggestion } from "@/client/hooks/memory-curation";
import { MEMORY_TYPE_LIST } from "@/client/ui/memory-format";
import { plural } from "@/client/ui/format";
import { Button } from "@/components/ui/button";
import { ErrorBox, Spinner } from "@/components/ui/states";
import { Skeleton } from "@/components/ui/skeleton";
import { Dialog } from "./dialog";
import { TypeBadge } from "./type-badge";

function commonType(sources: Memory[]): MemoryType {
  const n = new Map<MemoryType, number>();
  for (const s of sources) n.set(s.memory_type, (n.get(s.memory_type) ?? 0) + 1);
  return [...n.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "fact";
}

/** Sources side by side, an editor prefilled by /merge/suggest, then Merge → the merged memory. */
export function MergeDialog({ user, sources: initialSources, onClose, onMerged }: { user: string; sources: Memory[]; onClose: () => void; onMerged?: () => void }) {
  const router = useRouter();
  // The sources are fixed when the dialog opens: the table clears its selection on success,
  // which must not turn into a second suggestion request for no ids.
  const [sources] = useState(initialSources);
  const ids = sources.map((s) => s.id);
  const suggest = useMergeSuggestion(ids);
  const [content, setContent] = useState<string | null>(null);
  const [type, setType] = useState<MemoryType>(() => commonType(sources));
  const merge = useMerge();

  // Prefill once the suggestion arrives (or fall back to the sources joined).
  useEffect(() => {
    if (content !== null) return;
    if (suggest.data) setContent(suggest.data.content);
    else if (suggest.isError) setContent(sources.map((s) => s.content).join(" "));
  }, [suggest.data, suggest.isError, content, sources]);

  const submit = () => {
    if (!content?.trim()) return;
    merge.mutate(
      { ids, content: content.trim(), memory_type: type },
      {
        onSuccess: (m) => {
          onMerged?.();
          onClose();
          router.push(`/memories/${m.id}?user=${encodeURIComponent(user)}&merged=${ids.length}`);
        },
      },
    );
  };

  return (
    <Dialog
      title={`Merge ${sources.length} memories`}
      onClose={onClose}
      wide
      testId="merge-dialog"
      footer={
        <>
          {merge.isError && <span role="alert" className="mr-auto text-xs text-red-600 dark:text-red-400">{merge.error.message}</span>}
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <WriteButton variant="primary" data-testid="merge-submit" disabled={!content?.trim() || merge.isPending} onClick={submit}>
            {merge.isPending && <Spinner />}
            Merge
          </WriteButton>
        </>
      }
    >
      <p className="mb-3 text-xs text-zinc-500 dark:text-zinc-400">
        The sources are archived and linked to the new memory with <em>merged_into</em>; you can undo from the merged memory&apos;s page.
      </p>
      <div className={`grid gap-3 ${sources.length === 2 ? "sm:grid-cols-2" : "sm:grid-cols-3"}`} data-testid="merge-sources">
        {sources.map((s) => (
          <div key={s.id} className="rounded-lg border border-zinc-200 bg-zinc-50 p-3 text-sm dark:border-zinc-800 dark:bg-zinc-950/40" data-testid="merge-source">
            <div className="mb-1.5 flex items-center gap-2 text-[11px] text-zinc-500">
              <TypeBadge type={s.memory_type} />
              <span className="tabular-nums">importance {s.importance_score.toFixed(2)}</span>
              <span className="tabular-nums">· {plural(s.access_count, "retrieval")}</span>
            </div>
            <p className="max-h-40 overflow-auto leading-5 whitespace-pre-wrap">{s.content}</p>
          </div>
        ))}
      </div>
      <div className="mt-4 flex items-center justify-between gap-2">
        <label htmlFor="merge-content" className="text-xs font-medium text-zinc-700 dark:text-zinc-300">
          Merged content
          {suggest.data?.source && <span className="ml-2 font-normal text-zinc-500">suggested by {suggest.data.source}</span>}
        </label>
        <label className="flex items-center gap-2 text-xs text-zinc-500">
          Type
          <select
            value={type}
            data-testid="merge-type"
            onChange={(e) => setType(e.target.value as MemoryType)}
            className="h-7 rounded-md border border-zinc-300 bg-white px-1.5 text-xs dark:border-zinc-700 dark:bg-zinc-900"
          >
            {MEMORY_TYPE_LIST.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
      </div>
      {content === null ? (
        <Skeleton className="mt-1.5 h-24 w-full" />
      ) : (
        <textarea
          id="merge-content"
          data-testid="merge-content"
          value={content}
          onChange={(e) => setContent(e.target.value)}
          rows={4}
          className="mt-1.5 w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm leading-5 shadow-xs dark:border-zinc-700 dark:bg-zinc-950"
        />
      )}
      {suggest.isError && <div className="mt-2"><ErrorBox title="No suggestion (the sources were joined instead)" error={suggest.error} /></div>}
    </Dialog>
  );
}
