"use client";
import { WriteButton } from "@/components/ui/write-button";
import { useEffect, useRef, useState } from "react";
import type { Memory } from "@/client/api-types";
import { usePatchMemory } from "@/client/hooks/memories";
import { conflictCurrent, errorMessage } from "@/client/api-error";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/states";

/**
 * Edits a memory's content in place. Saves with the version it started from; when the server
 * says 409 (someone changed it meanwhile) it shows their content and lets the person overwrite or discard.
 */
export function InlineEditor({ memory, onDone }: { memory: Memory; onDone: () => void }) {
  const [draft, setDraft] = useState(memory.content);
  const [conflict, setConflict] = useState<Memory | null>(null);
  const patch = usePatchMemory();
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);

  const save = (version: number) => {
    if (!draft.trim()) return;
    if (draft === memory.content && !conflict) return onDone();
    patch.mutate(
      { id: memory.id, version, content: draft, reason: conflict ? "inline edit (overwrote a concurrent change)" : "inline edit" },
      {
        onSuccess: () => onDone(),
        onError: (e) => {
          const current = conflictCurrent(e);
          if (current) setConflict(current);
        },
      },
    );
  };

  const otherError = patch.isError && !conflictCurrent(patch.error) ? errorMessage(patch.error) : null;

  return (
    <div className="flex flex-col gap-2" data-testid="inline-editor" onClick={(e) => e.stopPropagation()} onDoubleClick={(e) => e.stopPropagation()}>
      <textarea
        ref={ref}
        value={draft}
        data-testid="inline-editor-input"
        aria-label="Memory content"
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === "Escape") {
            e.preventDefault();
            onDone();
          } else if (e.key === "Enter" && (e.metaKey || e.ctrlKey || !e.shiftKey) && !conflict) {
            // Enter saves, Shift+Enter adds a line.
            e.preventDefault();
            save(memory.version);
          }
        }}
        rows={3}
        className="w-full resize-none rounded-md border border-indigo-400 bg-white px-2 py-1.5 text-sm leading-5 shadow-xs outline-none focus:ring-2 focus:ring-indigo-500/30 dark:border-indigo-600 dark:bg-zinc-950"
      />
      {conflict ? (
        <div role="alert" data-testid="edit-conflict" className="rounded-md border border-amber-300 bg-amber-50 p-2 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-100">
          <p className="font-semibold">Changed elsewhere</p>
          <p className="mt-0.5">
            Someone saved version {conflict.version} while you were editing version {memory.version}. Their content:
          </p>
          <p data-testid="edit-conflict-current" className="mt-1 line-clamp-2 rounded bg-white/70 px-1.5 py-1 text-zinc-800 dark:bg-black/30 dark:text-zinc-100">
            {conflict.content}
          </p>
          <div className="mt-2 flex gap-2">
            <WriteButton size="sm" variant="primary" data-testid="conflict-overwrite" disabled={patch.isPending} onClick={() => save(conflict.version)}>
              {patch.isPending && <Spinner />}Overwrite with mine
            </WriteButton>
            <Button size="sm" data-testid="conflict-discard" onClick={onDone}>
              Discard mine
            </Button>
          </div>
        </div>
      ) : (
        <div className="flex items-center gap-2 text-[11px] text-zinc-500 dark:text-zinc-400">
          <WriteButton size="sm" variant="primary" data-testid="inline-save" disabled={patch.isPending || !draft.trim()} onClick={() => save(memory.version)}>
            {patch.isPending && <Spinner />}Save
          </WriteButton>
          <Button size="sm" variant="ghost" onClick={onDone}>
            Cancel
          </Button>
          <span>
            <kbd className="font-mono">Enter</kbd> saves · <kbd className="font-mono">Shift+Enter</kbd> new line · <kbd className="font-mono">Esc</kbd> cancels · editing v{memory.version}
          </span>
          {otherError && <span className="text-red-600 dark:text-red-400" role="alert">{otherError}</span>}
        </div>
      )}
    </div>
  );
}
