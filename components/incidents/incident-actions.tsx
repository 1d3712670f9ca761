"use client";
import Link from "next/link";
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { useCreateEvalSet, useEvalSets } from "@/client/hooks/evals";
import { useMakeEvalCase, useUpdateIncident, type Incident } from "@/client/hooks/incidents";
import { isStatus, KIND_LABEL, STATUS_ACTION, STATUS_LABEL, type IncidentStatus } from "@/client/ui/incident-model";
import { useToast } from "@/components/memories/toast";
import { InlineError, Spinner } from "@/components/ui/states";
import { WriteButton } from "@/components/ui/write-button";
import { Button } from "@/components/ui/button";

const panelCls = "mt-3 rounded-md border border-zinc-200 bg-zinc-50 p-3 dark:border-zinc-800 dark:bg-zinc-950/40";
const fieldCls = "w-full rounded-md border border-zinc-300 bg-white px-2.5 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900";

const NOTE_PROMPT: Record<IncidentStatus, string> = {
  open: "Why reopen it? (optional)",
  acknowledged: "Note for whoever picks it up (optional)",
  resolved: "What fixed it? (optional)",
  false_positive: "Why is this not a real failure? (optional)",
};

/** Escape closes a panel and gives the focus back to the card (the button that opened it is gone from under it otherwise). */
const onEscape = (close: () => void) => (e: KeyboardEvent) => {
  if (e.key === "Escape") {
    e.stopPropagation();
    close();
  }
};

/** Moves an incident to `to`, with a note; the toast says what happened and offers to undo it. */
export function StatusForm({ incident, to, onClose }: { incident: Incident; to: IncidentStatus; onClose: () => void }) {
  const update = useUpdateIncident();
  const toast = useToast();
  const [note, setNote] = useState("");
  const ref = useRef<HTMLTextAreaElement>(null);
  const noteId = useId();
  const errorId = useId();
  useEffect(() => ref.current?.focus(), []);
  const from = isStatus(incident.status) ? incident.status : "open";

  return (
    <form
      className={panelCls}
      data-testid="incident-status-form"
      onKeyDown={onEscape(onClose)}
      onSubmit={(e) => {
        e.preventDefault();
        update.mutate(
          { id: incident.id, status: to, note },
          {
            onSuccess: () => {
              onClose();
              toast.show({
                message: `${STATUS_ACTION[to].done}: the ${KIND_LABEL[incident.kind].toLowerCase()} incident${incident.user_id ? ` of ${incident.user_id}` : ""}.`,
                action: { label: "Undo", testId: "incident-undo", run: () => update.mutateAsync({ id: incident.id, status: from, note: "" }) },
              });
            },
          },
        );
      }}
    >
      <label htmlFor={noteId} className="mb-1 block text-xs font-medium text-zinc-700 dark:text-zinc-300">
        {NOTE_PROMPT[to]}
      </label>
      <textarea
        id={noteId}
        ref={ref}
        rows={2}
        maxLength={2000}
        value={note}
        onChange={(e) => setNote(e.target.value)}
        aria-describedby={update.isError ? errorId : undefined}
        className={fieldCls}
        data-testid="incident-note"
      />
      {to === "false_positive" && (
        <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">This rule will not flag this memory for this user again, and the rule&apos;s precision counts it.</p>
      )}
      {update.isError && (
        <InlineError id={errorId} testId="incident-status-error">
          {update.error.message}
        </InlineError>
      )}
      <div className="mt-2 flex items-center gap-2">
        <WriteButton type="submit" size="sm" variant="primary" disabled={update.isPending} data-testid="incident-status-submit">
          {update.isPending && <Spinner />}
          {to === "open" ? "Reopen" : `Mark ${STATUS_LABEL[to].toLowerCase()}`}
        </WriteButton>
        <CancelButton onClick={onClose} />
      </div>
    </form>
  );
}

/** Makes the incident a regression case of an eval set: the question is the turn's, the expected memory the one the prompt lacked. */
export function EvalCaseForm({ incident, onClose }: { incident: Incident; onClose: () => void }) {
  const sets = useEvalSets();
  const make = useMakeEvalCase();
  const create = useCreateEvalSet();
  const [chosen, setChosen] = useState("");
  const [newName, setNewName] = useState("Memory incidents");
  const [done, setDone] = useState<{ id: string; name: string } | null>(null);
  const selectRef = useRef<HTMLSelectElement>(null);
  const nameRef = useRef<HTMLInputElement>(null);
  const setId = useId();
  const list = sets.data?.data ?? [];
  const setValue = chosen || list[0]?.id || "";
  const creating = list.length === 0 || setValue === "new";
  useEffect(() => (creating ? nameRef.current : selectRef.current)?.focus(), [sets.data]); // once the sets are known
  const error = make.error ?? create.error;

  if (done) {
    return (
      <div className={panelCls} role="status" data-testid="incident-eval-done" onKeyDown={onEscape(onClose)}>
        <p className="text-sm">
          Added a case to <strong>{done.name}</strong>: it passes when retrieval brings back the memory this turn missed.{" "}
          <Link href={`/evals?set=${done.id}`} className="font-medium text-indigo-700 hover:underline dark:text-indigo-300">
            Open the set
          </Link>
        </p>
      </div>
    );
  }

  return (
    <form
      className={panelCls}
      data-testid="incident-eval-form"
      onKeyDown={onEscape(onClose)}
      onSubmit={async (e) => {
        e.preventDefault();
        make.reset();
        create.reset();
        try {
          const set = creating ? await create.mutateAsync(newName.trim()) : list.find((s) => s.id === setValue)!;
          await make.mutateAsync({ id: incident.id, setId: set.id });
          setDone({ id: set.id, name: set.name });
        } catch {
          // Shown below from the mutation's error.
        }
      }}
    >
      {sets.isLoading ? (
        <p className="flex items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
          <Spinner /> Loading eval sets…
        </p>
      ) : (
        <div className="flex flex-wrap items-end gap-2">
          {list.length > 0 && (
            <div className="min-w-0 flex-1">
              <label htmlFor={setId} className="mb-1 block text-xs font-medium text-zinc-700 dark:text-zinc-300">
                Eval set
              </label>
              <select id={setId} ref={selectRef} value={setValue} onChange={(e) => setChosen(e.target.value)} className={fieldCls} data-testid="incident-eval-set">
                {list.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name}
                  </option>
                ))}
                <option value="new">New set…</option>
              </select>
            </div>
          )}
          {creating && (
            <div className="min-w-0 flex-1">
              <label htmlFor={`${setId}-new`} className="mb-1 block text-xs font-medium text-zinc-700 dark:text-zinc-300">
                {list.length ? "New set's name" : "No eval set yet: name a new one"}
              </label>
              <input id={`${setId}-new`} ref={nameRef} value={newName} onChange={(e) => setNewName(e.target.value)} className={fieldCls} data-testid="incident-eval-new-set" />
            </div>
          )}
          <WriteButton type="submit" size="sm" variant="primary" className="h-8.5" disabled={make.isPending || create.isPending || (creating && !newName.trim())} data-testid="incident-eval-submit">
            {(make.isPending || create.isPending) && <Spinner />}
            Add case
          </WriteButton>
          <CancelButton onClick={onClose} />
        </div>
      )}
      {error && <InlineError testId="incident-eval-error">{error.message}</InlineError>}
    </form>
  );
}

function CancelButton({ onClick }: { onClick: () => void }) {
  return (
    <Button size="sm" variant="ghost" onClick={onClick}>
      Cancel
    </Button>
  );
}
