"use client";
import { WriteButton } from "@/components/ui/write-button";
import { useEffect, useState } from "react";
import type { MemoryMdDiff } from "@/client/api-types";
import { useApplyMemoryMd, useMemoryMd, usePreviewMemoryMd } from "@/client/hooks/memory-md";
import { plural } from "@/client/ui/format";
import { Button } from "@/components/ui/button";
import { TabList } from "@/components/ui/tabs";
import { CopyButton } from "@/components/ui/copy-button";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorBox, Spinner } from "@/components/ui/states";
import { Diff } from "./history-timeline";
import { MemoriesShell, useSelectedUser } from "./memories-shell";
import { TypeBadge } from "./type-badge";
import { useToast } from "./toast";

type File = "memory" | "learnings";

export function MarkdownView() {
  const { user, setUser } = useSelectedUser();
  const [file, setFile] = useState<File>("memory");
  const toast = useToast();
  const exported = useMemoryMd(user, file);
  const [text, setText] = useState<string | null>(null);
  const [diff, setDiff] = useState<MemoryMdDiff | null>(null);
  useEffect(() => {
    setText(exported.data ?? null);
    setDiff(null);
  }, [exported.data]);

  const preview = usePreviewMemoryMd(user);
  const apply = useApplyMemoryMd(user);
  // A preview or apply error belongs to the file it was made for.
  const { reset: resetPreview } = preview;
  const { reset: resetApply } = apply;
  useEffect(() => {
    resetPreview();
    resetApply();
    setDiff(null);
  }, [file, user, resetPreview, resetApply]);
  const dirty = text !== null && exported.data !== undefined && text !== exported.data;
  const hasChanges = !!diff && diff.added.length + diff.changed.length + diff.archived.length > 0;

  return (
    <MemoriesShell
      user={user}
      onUser={setUser}
      title={`${file}.md`}
      subtitle="Edit this user's memories as a Markdown file, preview exactly what would change, then apply."
      actions={
        <TabList
          label="File"
          panelId="md-panel"
          size="md"
          value={file}
          onChange={setFile}
          tabs={(["memory", "learnings"] as File[]).map((f) => ({ key: f, label: <span className="font-mono">{f}.md</span>, testId: `md-file-${f}` }))}
        />
      }
    >
      <div role="tabpanel" id="md-panel" aria-labelledby={`md-panel-tab-${file}`} className="contents">
      <main className="mx-auto grid w-full max-w-7xl gap-5 px-4 py-4 sm:px-6 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
        <section className="flex min-w-0 flex-col">
          {exported.isError ? (
            <ErrorBox title="Could not export" error={exported.error} onRetry={() => exported.refetch()} />
          ) : text === null ? (
            <Skeleton className="h-[60vh] w-full" />
          ) : (
            <textarea
              value={text}
              onChange={(e) => {
                setText(e.target.value);
                setDiff(null);
              }}
              spellCheck={false}
              data-testid="md-editor"
              aria-label={`${file}.md`}
              className="h-[64vh] w-full resize-none rounded-lg border border-zinc-300 bg-white p-4 font-mono text-[13px] leading-6 shadow-xs dark:border-zinc-700 dark:bg-zinc-950"
            />
          )}
          <div className="mt-2 flex items-center gap-2">
            <span className="text-xs text-zinc-500">{dirty ? "Edited — not applied" : "Matches the stored memories"}</span>
            <span className="ml-auto" />
            {text !== null && <CopyButton text={text} />}
            {dirty && (
              <Button size="sm" variant="ghost" onClick={() => { setText(exported.data ?? ""); setDiff(null); }}>
                Revert
              </Button>
            )}
            <Button size="sm" variant="primary" data-testid="md-preview" disabled={text === null || preview.isPending} onClick={() => text !== null && preview.mutate({ file, text }, { onSuccess: setDiff })}>
              {preview.isPending && <Spinner />}Preview changes
            </Button>
          </div>
        </section>
        <section className="min-w-0" data-testid="md-diff">
          {preview.isError ? (
            <ErrorBox title="Preview failed" error={preview.error} />
          ) : !diff ? (
            <div className="grid h-full min-h-48 place-items-center rounded-lg border border-dashed border-zinc-300 p-6 text-center text-sm text-zinc-500 dark:border-zinc-700 dark:text-zinc-400">
              Edit the file, then “Preview changes” to see what would be added, changed and archived.
            </div>
          ) : (
            <div className="flex flex-col gap-3">
              <div className="flex flex-wrap items-center gap-3 rounded-lg border border-zinc-200 bg-white px-4 py-2.5 text-sm dark:border-zinc-800 dark:bg-zinc-900">
                <span className="text-emerald-700 dark:text-emerald-400">+{diff.added.length} added</span>
                <span className="text-indigo-700 dark:text-indigo-400">~{diff.changed.length} changed</span>
                <span className="text-red-700 dark:text-red-400">−{diff.archived.length} archived</span>
                <span className="text-zinc-500">{plural(diff.unchanged, "unchanged", "unchanged")}</span>
                <WriteButton className="ml-auto" variant="primary" size="sm" data-testid="md-apply" disabled={!hasChanges || apply.isPending} onClick={() =>
                    text !== null &&
                    apply.mutate(
                      { file, text },
                      {
                        onSuccess: (r) => {
                          toast.show({ message: `Applied: ${r.added.length} added, ${r.changed.length} changed, ${r.archived.length} archived` });
                          setDiff(null);
                        },
                      },
                    )
                  }>
                  {apply.isPending && <Spinner />}Apply
                </WriteButton>
              </div>
              {apply.isError && <ErrorBox title="Apply failed" error={apply.error} />}
              <ul className="flex max-h-[60vh] flex-col gap-1.5 overflow-auto text-sm">
                {diff.added.map((a, i) => (
                  <li key={`a${i}`} className="rounded-md border-l-4 border-emerald-500 bg-emerald-50 px-3 py-2 dark:bg-emerald-950/40" data-testid="md-added">
                    <div className="mb-0.5 flex items-center gap-2 text-[11px] text-emerald-800 dark:text-emerald-300">
                      <strong>added</strong> <TypeBadge type={a.memory_type} /> <span>line {a.line}</span> <span>imp {a.importance_score.toFixed(2)}</span>
                    </div>
                    {a.content}
                  </li>
                ))}
                {diff.changed.map((c) => (
                  <li key={c.id} className="rounded-md border-l-4 border-indigo-500 bg-indigo-50/60 px-3 py-2 dark:bg-indigo-950/30" data-testid="md-changed">
                    <div className="mb-0.5 flex items-center gap-2 text-[11px] text-indigo-800 dark:text-indigo-300">
                      <strong>changed</strong> <span>line {c.line}</span>
                      {c.before.memory_type !== c.after.memory_type && (
                        <span className="flex items-center gap-1">
                          <TypeBadge type={c.before.memory_type} /> → <TypeBadge type={c.after.memory_type} />
                        </span>
                      )}
                      {c.before.importance_score !== c.after.importance_score && (
                        <span className="tabular-nums">imp {c.before.importance_score.toFixed(2)} → {c.after.importance_score.toFixed(2)}</span>
                      )}
                    </div>
                    <Diff before={c.before.content} after={c.after.content} />
                  </li>
                ))}
                {diff.archived.map((a) => (
                  <li key={a.id} className="rounded-md border-l-4 border-red-500 bg-red-50 px-3 py-2 text-red-900 line-through decoration-red-400/60 dark:bg-red-950/40 dark:text-red-200" data-testid="md-archived">
                    <div className="mb-0.5 flex items-center gap-2 text-[11px] no-underline">
                      <strong>archived</strong> <TypeBadge type={a.memory_type} />
                    </div>
                    {a.content}
                  </li>
                ))}
                {!hasChanges && <li className="px-1 text-zinc-500">No changes: the file matches the stored memories.</li>}
              </ul>
            </div>
          )}
        </section>
      </main>
      </div>
    </MemoriesShell>
  );
}
