"use client";
import Link from "next/link";
import { useState } from "react";
import { useSaveEvalCase } from "@/client/hooks/evals";
import { Button } from "@/components/ui/button";
import { WriteFieldset } from "@/components/ui/write-button";

// "Save as test": a question and the memories that must answer it, added as a case to an
// eval set (made when missing). Used by the retrieval playground (the marked hits) and a
// memory's page (a question this memory must answer).

const field = "h-9 w-full rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-900";

export function SaveAsTest({ userId, question: initial, memoryIds, hint, idPrefix }: { userId: string; question: string; memoryIds: string[]; hint: string; idPrefix: string }) {
  const [question, setQuestion] = useState(initial);
  const [setName, setSetName] = useState("playground");
  const [category, setCategory] = useState("");
  const save = useSaveEvalCase();
  const q = question || initial;
  const ready = !!userId && !!q.trim() && memoryIds.length > 0 && !!setName.trim();
  return (
    <form
      className="flex flex-col gap-2 rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900"
      data-testid="save-as-test"
      onSubmit={(e) => {
        e.preventDefault();
        if (!ready) return;
        save.mutate({
          setName: setName.trim(),
          testCase: { user_id: userId, question: q.trim(), expected: { memory_ids: memoryIds, turns: [], texts: [] }, tags: [], ...(category.trim() ? { category: category.trim() } : {}) },
        });
      }}
    >
      <h3 className="text-sm font-semibold">Save as test</h3>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">{hint}</p>
      <WriteFieldset className="flex flex-col gap-2">
      <label className="text-xs font-medium" htmlFor={`${idPrefix}-question`}>
        Question
      </label>
      <input id={`${idPrefix}-question`} className={field} value={q} onChange={(e) => setQuestion(e.target.value)} />
      <div className="grid grid-cols-2 gap-2">
        <div>
          <label className="text-xs font-medium" htmlFor={`${idPrefix}-set`}>
            Eval set
          </label>
          <input id={`${idPrefix}-set`} className={field} value={setName} onChange={(e) => setSetName(e.target.value)} />
        </div>
        <div>
          <label className="text-xs font-medium" htmlFor={`${idPrefix}-category`}>
            Category
          </label>
          <input id={`${idPrefix}-category`} className={field} value={category} onChange={(e) => setCategory(e.target.value)} placeholder="optional" />
        </div>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" variant="primary" disabled={!ready || save.isPending}>
          Save as test ({memoryIds.length} expected)
        </Button>
        {save.isSuccess && (
          <span role="status" className="text-xs text-emerald-700 dark:text-emerald-400">
            Saved to{" "}
            <Link className="underline" href={`/evals?set=${save.data.id}`}>
              {save.data.name}
            </Link>
          </span>
        )}
        {save.isError && (
          <span role="alert" className="text-xs text-red-700 dark:text-red-400">
            {save.error.message}
          </span>
        )}
      </div>
      </WriteFieldset>
    </form>
  );
}
