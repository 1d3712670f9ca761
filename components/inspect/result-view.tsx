"use client";
import { useMemo, useState } from "react";
import { diffMessages, toOpenAI, type InspectResult } from "@/client/ui/inspect-model";
import type { RunState } from "@/client/hooks/inspect";
import { ApiError } from "@/client/api-error";
import { formatInt, plural } from "@/client/ui/format";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorBox, Spinner } from "@/components/ui/states";
import { BudgetStackedBar } from "./budget-stacked-bar";
import { ChangesList, MemoriesList } from "./changes-list";
import { PromptBubbles } from "./prompt-bubbles";
import { SECTION_STYLE } from "./section-style";
import { StepTimeline } from "./step-timeline";

export function ExportButtons({ result, name }: { result: InspectResult; name: string }) {
  const json = useMemo(() => JSON.stringify(toOpenAI(result.messages), null, 2), [result.messages]);
  const download = () => {
    const url = URL.createObjectURL(new Blob([json], { type: "application/json" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `${name}.messages.json`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <span className="inline-flex items-center gap-1.5" aria-label="Export the final prompt as OpenAI messages JSON">
      <CopyButton text={json} label="Copy JSON" testId="export-copy" />
      <Button size="sm" onClick={download} data-testid="export-json" title="Download as OpenAI chat.completions messages">
        <svg aria-hidden viewBox="0 0 20 20" className="size-3.5" fill="currentColor">
          <path d="M10.75 2.75a.75.75 0 0 0-1.5 0v8.69L6.28 8.47a.75.75 0 1 0-1.06 1.06l4.25 4.25a.75.75 0 0 0 1.06 0l4.25-4.25a.75.75 0 1 0-1.06-1.06l-2.97 2.97V2.75Z" />
          <path d="M3.5 12.75a.75.75 0 0 0-1.5 0v2.5A2.75 2.75 0 0 0 4.75 18h10.5A2.75 2.75 0 0 0 18 15.25v-2.5a.75.75 0 0 0-1.5 0v2.5c0 .69-.56 1.25-1.25 1.25H4.75c-.69 0-1.25-.56-1.25-1.25v-2.5Z" />
        </svg>
        Download
      </Button>
    </span>
  );
}

function Summary({ result, ms, pending }: { result: InspectResult; ms?: number; pending: boolean }) {
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1.5 text-xs text-zinc-600 dark:text-zinc-400">
      <span
        className="text-sm font-semibold text-zinc-900 dark:text-zinc-100"
        data-testid="result-total"
        title={`The final prompt counted with tiktoken, ${result.encoding} encoding (the one ${result.model} uses, or its stand-in)`}
      >
        {formatInt(result.budget.total)} tokens
      </span>
      {/* Which counter: AgentScope's step timeline uses its own estimate (characters ÷ 2.5), a different number for the same messages. */}
      <span data-testid="result-counter">
        tiktoken <span className="font-mono">{result.encoding}</span>
      </span>
      <span>{plural(result.messages.length, "message")}</span>
      <span className="font-mono">{result.model}</span>
      {!result.approximate ? (
        <Badge tone="green">exact</Badge>
      ) : (
        <Badge tone="amber" title={result.exact ? "A message holds one word of hundreds of letters: its count is approximate" : `Counted with ${result.encoding} as a stand-in`}>
          approximate
        </Badge>
      )}
      <Badge tone="accent">{result.strategy.type}</Badge>
      <span title="Which endpoint built this prompt">
        via /{result.endpoint}
        {result.endpoint === "context" ? ` · history: ${result.historySource}` : ""}
      </span>
      {result.fits ? <Badge tone="green">fits</Badge> : <Badge tone="red">does not fit</Badge>}
      {pending ? <Spinner className="text-indigo-500" /> : ms !== undefined && <span className="tabular-nums text-zinc-600 dark:text-zinc-400" data-testid="result-timing">{Math.round(ms)} ms</span>}
    </div>
  );
}

function SectionLegend() {
  return (
    <div className="flex flex-wrap gap-x-3 gap-y-1 text-[11px] text-zinc-500 dark:text-zinc-400" aria-label="Bubble colours">
      {(["system", "memories", "history", "query", "temporary"] as const).map((s) => (
        <span key={s} className="inline-flex items-center gap-1">
          <span aria-hidden className={`h-3 w-1 rounded-sm ${SECTION_STYLE[s].bar}`} />
          {SECTION_STYLE[s].label}
        </span>
      ))}
    </div>
  );
}

export function ResultSkeleton() {
  return (
    <div className="space-y-4" aria-busy="true" aria-label="Loading">
      <Skeleton className="h-5 w-1/2" />
      <Skeleton className="h-5 w-full" />
      <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_360px]">
        <div className="space-y-2">
          {[0, 1, 2, 3].map((i) => (
            <Skeleton key={i} className={`h-16 ${i % 2 ? "mr-6" : "ml-6"}`} />
          ))}
        </div>
        <div className="space-y-2">
          <Skeleton className="h-24" />
          <Skeleton className="h-24" />
        </div>
      </div>
    </div>
  );
}

/** One run: summary, stacked budget bar, the final prompt, and what changed / which memories. */
export function SingleResult({ run, name }: { run: RunState; name: string }) {
  const r = run.result!;
  return (
    <div className={`flex flex-col gap-4 transition-opacity ${run.pending ? "opacity-70" : ""}`} data-testid="inspect-result">
      <div className="rounded-xl border border-zinc-200 bg-white p-4 shadow-xs dark:border-zinc-800 dark:bg-zinc-900">
        <div className="mb-3 flex flex-wrap items-start gap-2">
          <Summary result={r} ms={run.ms} pending={run.pending} />
          <span className="ml-auto">
            <ExportButtons result={r} name={name} />
          </span>
        </div>
        <BudgetStackedBar budget={r.budget} fits={r.fits} approximate={r.budgetApproximate} />
      </div>
      {run.error != null && !(run.error instanceof ApiError && run.error.status === 422) && <ErrorBox title="The last run failed (showing the previous result)" error={run.error} />}
      <div className="grid gap-5 xl:grid-cols-[minmax(0,1fr)_380px]">
        <section aria-labelledby="prompt-h" className="min-w-0">
          <div className="mb-2 flex flex-wrap items-center gap-3">
            <h2 id="prompt-h" className="text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
              Final prompt
            </h2>
            <SectionLegend />
          </div>
          <PromptBubbles messages={r.messages} sections={r.sections} memories={r.budget.memories > 0} />
        </section>
        <aside className="flex min-w-0 flex-col gap-5">
          {r.autoContext && <StepTimeline report={r.autoContext} replay={r.historySource === "conversation" || r.endpoint === "context"} />}
          <ChangesList result={r} />
          <MemoriesList result={r} />
        </aside>
      </div>
    </div>
  );
}

/** Two runs side by side; messages only one of them sends are outlined and labelled. */
export function CompareResult({ a, b, labelA, labelB }: { a: RunState; b: RunState; labelA: string; labelB: string }) {
  const [onlyDiff, setOnlyDiff] = useState(false);
  const ra = a.result;
  const rb = b.result;
  const diff = useMemo(() => (ra && rb ? diffMessages(ra.messages, rb.messages) : null), [ra, rb]);
  const delta = ra && rb ? rb.budget.total - ra.budget.total : 0;
  return (
    <div className="flex flex-col gap-4" data-testid="compare-result">
      {ra && rb && diff && (
        <div className="flex flex-wrap items-center gap-x-4 gap-y-2 rounded-xl border border-zinc-200 bg-white px-4 py-3 text-xs shadow-xs dark:border-zinc-800 dark:bg-zinc-900" data-testid="compare-summary">
          <span className="text-sm font-semibold">Differences</span>
          <span className="inline-flex items-center gap-1.5">
            <span aria-hidden className="size-2.5 rounded-sm bg-orange-500" />
            <strong data-testid="only-a-count">{diff.onlyA}</strong> only in A
          </span>
          <span className="inline-flex items-center gap-1.5">
            <span aria-hidden className="size-2.5 rounded-sm bg-teal-600" />
            <strong data-testid="only-b-count">{diff.onlyB}</strong> only in B
          </span>
          <span className="text-zinc-600 tabular-nums dark:text-zinc-400" data-testid="token-delta" data-delta={delta}>
            tokens {formatInt(ra.budget.total)} → {formatInt(rb.budget.total)}{" "}
            <strong className={delta > 0 ? "text-red-600 dark:text-red-400" : delta < 0 ? "text-emerald-600 dark:text-emerald-400" : ""}>
              ({delta > 0 ? "+" : ""}
              {formatInt(delta)})
            </strong>
          </span>
          <span className="text-zinc-600 tabular-nums dark:text-zinc-400">
            messages {ra.messages.length} → {rb.messages.length}
          </span>
          <label className="ml-auto inline-flex items-center gap-2 text-zinc-700 dark:text-zinc-300">
            <input type="checkbox" checked={onlyDiff} onChange={(e) => setOnlyDiff(e.target.checked)} className="size-3.5 accent-indigo-600" data-testid="only-differences" />
            Show only differences
          </label>
        </div>
      )}
      <div className="grid gap-4 lg:grid-cols-2">
        <Column side="A" run={a} label={labelA} marks={diff?.a} onlyDiff={onlyDiff} />
        <Column side="B" run={b} label={labelB} marks={diff?.b} onlyDiff={onlyDiff} />
      </div>
    </div>
  );
}

function Column({ side, run, label, marks, onlyDiff }: { side: "A" | "B"; run: RunState; label: string; marks?: ("both" | "only")[]; onlyDiff: boolean }) {
  const r = run.result;
  return (
    <section data-testid={`compare-column-${side.toLowerCase()}`} aria-label={`Strategy ${side}`} className="flex min-w-0 flex-col gap-3">
      <div className={`rounded-xl border bg-white p-3 shadow-xs dark:bg-zinc-900 ${side === "A" ? "border-orange-300 dark:border-orange-900" : "border-teal-300 dark:border-teal-900"}`}>
        <div className="mb-2 flex flex-wrap items-center gap-2">
          <span className={`grid size-5 place-items-center rounded text-[11px] font-bold text-white ${side === "A" ? "bg-orange-500" : "bg-teal-600"}`}>{side}</span>
          <span className="min-w-0 truncate font-mono text-xs text-zinc-700 dark:text-zinc-300">{label}</span>
          {run.pending && <Spinner className="text-indigo-500" />}
          {r && (
            <span className="ml-auto">
              <ExportButtons result={r} name={`prompt-${side.toLowerCase()}`} />
            </span>
          )}
        </div>
        {r ? (
          <>
            <Summary result={r} ms={run.ms} pending={false} />
            <div className="mt-3">
              <BudgetStackedBar budget={r.budget} fits={r.fits} approximate={r.budgetApproximate} compact testId={`budget-stacked-bar${side === "B" ? "-b" : ""}`} />
            </div>
          </>
        ) : run.error ? null : (
          <Skeleton className="h-16" />
        )}
      </div>
      {run.error != null && <ErrorBox title={`Strategy ${side} failed`} error={run.error} />}
      {r && (
        <>
          <details className="group rounded-lg border border-zinc-200 bg-white px-3 py-2 dark:border-zinc-800 dark:bg-zinc-900">
            <summary className="cursor-pointer list-none text-xs font-medium text-zinc-700 select-none dark:text-zinc-300">
              <span aria-hidden className="mr-1.5 inline-block text-zinc-400 transition-transform group-open:rotate-90">▸</span>
              {plural(r.dropped.length, "drop")} · {plural(r.transformed.length, "change")}
              {r.memories.length > 0 && ` · ${r.memories.filter((m) => m.included).length}/${r.memories.length} memories`}
            </summary>
            <div className="mt-2 flex flex-col gap-4">
              {r.autoContext && <StepTimeline report={r.autoContext} replay={r.endpoint === "context"} />}
              <ChangesList result={r} compact />
              <MemoriesList result={r} />
            </div>
          </details>
          <PromptBubbles messages={r.messages} sections={r.sections} marks={marks} side={side} onlyDiff={onlyDiff} memories={r.budget.memories > 0} />
        </>
      )}
    </section>
  );
}
