"use client";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { fieldErrors } from "@/client/api-error";
import { useModels } from "@/client/hooks/models";
import { useRunSlot } from "@/client/hooks/inspect";
import { buildRequest, sampleMessages, strategySummary, type FieldIssue, type InspectSource, type StrategyDraft } from "@/client/ui/inspect-model";
import { encodeInspectQuery, parseInspectQuery } from "@/client/ui/inspect-url";
import { Button } from "@/components/ui/button";
import { EmptyState, ErrorBox, Spinner } from "@/components/ui/states";
import { ModelPicker } from "./model-picker";
import { CompareResult, ResultSkeleton, SingleResult } from "./result-view";
import { SourcePanel } from "./source-panel";
import { StrategyForm } from "./strategy-form";

const issuesToMap = (issues: FieldIssue[]) => Object.fromEntries(issues.map((i) => [i.field, i.message]));
const isStrategyField = (k: string) => k === "strategy" || k.startsWith("strategy.");

/** /inspect: build the exact prompt a strategy would send, see where every token goes, compare two strategies. */
export function InspectView() {
  const sp = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  // A shared link sets the whole view once; the URL then follows the view.
  const [link] = useState(() => parseInspectQuery(new URLSearchParams(sp.toString())));
  const [src, setSrc] = useState<InspectSource>(() => ({ ...link.src, systemPrompt: "", messagesText: "", temporaryText: "" }));
  const [draftA, setDraftA] = useState<StrategyDraft>(link.draftA);
  const [draftB, setDraftB] = useState<StrategyDraft>(link.draftB);
  const [compare, setCompare] = useState(link.compare);
  const [model, setModel] = useState(link.model);
  const [reserved, setReserved] = useState(link.reserved);
  const [issues, setIssues] = useState<{ a: FieldIssue[]; b: FieldIssue[] }>({ a: [], b: [] });

  const models = useModels();
  const exactFor = useCallback((m: string) => models.data?.find((x) => x.model === m)?.exact ?? false, [models.data]);
  const runA = useRunSlot(exactFor);
  const runB = useRunSlot(exactFor);

  // The URL keeps the view (selection, strategy parameters, model, memory options) so it can be shared.
  const { tab, user, conversation, leaf, query, memory } = src;
  const next = useMemo(
    () => encodeInspectQuery({ src: { tab, user, conversation, leaf, query, memory }, draftA, draftB, compare, model, reserved }),
    [tab, user, conversation, leaf, query, memory, draftA, draftB, compare, model, reserved],
  );
  useEffect(() => {
    const t = setTimeout(() => {
      if (next !== window.location.search.replace(/^\?/, "")) router.replace(`${pathname}?${next}`, { scroll: false });
    }, 250);
    return () => clearTimeout(t);
  }, [next, pathname, router]);

  const patchSrc = useCallback((p: Partial<InspectSource>) => setSrc((s) => ({ ...s, ...p })), []);

  const run = useCallback(() => {
    const settings = { model, reservedOutput: reserved };
    const a = buildRequest(src, draftA, settings);
    const b = compare ? buildRequest(src, draftB, settings) : { issues: [] as FieldIssue[], request: undefined };
    setIssues({ a: a.issues, b: b.issues });
    if (!a.request || (compare && !b.request)) {
      // Focus the first control the browser already knows is wrong.
      requestAnimationFrame(() => document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    void runA.run(a.request);
    if (compare && b.request) void runB.run(b.request);
    else runB.reset();
  }, [src, draftA, draftB, compare, model, reserved, runA, runB]);

  // Shared links run themselves once when they carry enough to build a prompt.
  const autoRan = useRef(false);
  useEffect(() => {
    if (autoRan.current) return;
    autoRan.current = true;
    if (src.tab === "stored" && src.user && src.query.trim()) run();
  }, [run, src.tab, src.user, src.query]);

  // Ctrl/Cmd+Enter runs from anywhere on the page.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
        e.preventDefault();
        run();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [run]);

  const apiA = fieldErrors(runA.error);
  const apiB = fieldErrors(runB.error);
  const sourceErrors = useMemo(() => {
    const all = { ...issuesToMap(issues.b), ...apiB, ...issuesToMap(issues.a), ...apiA };
    return Object.fromEntries(Object.entries(all).filter(([k]) => !isStrategyField(k)));
  }, [issues, apiA, apiB]);
  const strategyErrorsA = useMemo(() => Object.fromEntries(Object.entries({ ...issuesToMap(issues.a), ...apiA }).filter(([k]) => isStrategyField(k))), [issues.a, apiA]);
  const strategyErrorsB = useMemo(() => Object.fromEntries(Object.entries({ ...issuesToMap(issues.b), ...apiB }).filter(([k]) => isStrategyField(k))), [issues.b, apiB]);

  const pending = runA.pending || runB.pending;
  const hasAny = runA.result || runB.result || runA.error || runB.error || pending;
  const hasFieldErrors = Object.keys(apiA).length > 0 || Object.keys(apiB).length > 0;

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="border-b border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900/40">
        <div className="flex flex-wrap items-end gap-x-4 gap-y-1 px-4 py-3 sm:px-6">
          <div>
            <h1 className="text-xl font-semibold tracking-tight">Prompt inspector</h1>
            <p className="mt-0.5 text-sm text-zinc-500 dark:text-zinc-400">The exact messages a strategy sends the model: where every token goes, what was dropped and why.</p>
          </div>
        </div>
      </div>
      <main className="grid w-full flex-1 gap-5 px-4 py-4 sm:px-6 lg:grid-cols-[360px_minmax(0,1fr)]">
        <aside
          aria-label="Inspector settings"
          className="flex flex-col gap-3 self-start lg:sticky lg:top-16 lg:max-h-[calc(100vh-5rem)] lg:overflow-y-auto lg:pr-1"
          onSubmit={(e) => e.preventDefault()}
        >
          <Card title="Source">
            <SourcePanel src={src} onChange={patchSrc} errors={sourceErrors} />
          </Card>
          <Card
            title={compare ? "Strategy A" : "Strategy"}
            badge={compare ? <SideDot side="A" /> : undefined}
            action={
              <Button size="sm" variant={compare ? "secondary" : "ghost"} aria-pressed={compare} data-testid="compare-toggle" onClick={() => setCompare((c) => !c)}>
                {compare ? "Stop comparing" : "Compare with…"}
              </Button>
            }
          >
            <StrategyForm draft={draftA} onChange={setDraftA} errors={strategyErrorsA} />
          </Card>
          {compare && (
            <Card title="Strategy B" badge={<SideDot side="B" />} testId="strategy-b-card">
              <StrategyForm draft={draftB} onChange={setDraftB} errors={strategyErrorsB} suffix="-b" />
            </Card>
          )}
          <Card title="Model">
            <ModelPicker model={model} reservedOutput={reserved} onModel={setModel} onReserved={setReserved} errors={sourceErrors} />
          </Card>
          <div className="sticky bottom-0 z-10 -mx-1 bg-gradient-to-t from-zinc-50 from-75% to-transparent px-1 pt-4 pb-1 dark:from-zinc-950">
            <Button variant="primary" className="w-full" onClick={run} data-testid="inspect-run" aria-keyshortcuts="Control+Enter Meta+Enter">
              {pending && <Spinner />}
              {compare ? "Run both strategies" : "Build prompt"}
              <kbd className="ml-1 rounded bg-indigo-900 px-1 font-sans text-[11px] font-medium text-white">Ctrl ↵</kbd>
            </Button>
          </div>
        </aside>

        <section aria-label="Result" aria-live="polite" aria-busy={pending} className="min-w-0">
          {hasFieldErrors && (
            <p role="alert" data-testid="inspect-validation" className="mb-3 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-xs text-red-800 dark:border-red-900/60 dark:bg-red-950/40 dark:text-red-200">
              The API rejected the request: {(runA.error as Error | undefined)?.message ?? (runB.error as Error | undefined)?.message}. The fields are marked on the left.
            </p>
          )}
          {!hasAny ? (
            <Intro onSample={() => patchSrc({ tab: "paste", messagesText: JSON.stringify(sampleMessages(), null, 2) })} />
          ) : compare && (runB.result || runB.pending || runB.error) ? (
            <CompareResult a={runA} b={runB} labelA={strategySummary(draftA)} labelB={strategySummary(draftB)} />
          ) : runA.result ? (
            <SingleResult run={runA} name={`prompt-${draftA.type}`} />
          ) : runA.pending ? (
            <ResultSkeleton />
          ) : runA.error && !hasFieldErrors ? (
            <ErrorBox title="Could not build the prompt" error={runA.error} onRetry={run} />
          ) : null}
        </section>
      </main>
    </div>
  );
}

function SideDot({ side }: { side: "A" | "B" }) {
  return <span className={`grid size-4 place-items-center rounded text-[10px] font-bold text-white ${side === "A" ? "bg-orange-500" : "bg-teal-600"}`}>{side}</span>;
}

function Card({ title, badge, action, children, testId }: { title: string; badge?: ReactNode; action?: ReactNode; children: ReactNode; testId?: string }) {
  return (
    <section data-testid={testId} className="rounded-xl border border-zinc-200 bg-white p-3.5 shadow-xs dark:border-zinc-800 dark:bg-zinc-900">
      <header className="mb-2.5 flex min-h-7 items-center gap-2">
        {badge}
        <h2 className="text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">{title}</h2>
        {action && <span className="ml-auto">{action}</span>}
      </header>
      {children}
    </section>
  );
}

function Intro({ onSample }: { onSample: () => void }) {
  return (
    <div className="rounded-xl border border-dashed border-zinc-300 bg-white dark:border-zinc-700 dark:bg-zinc-900" data-testid="inspect-empty">
      <EmptyState title="Build a prompt to inspect it">
        <p className="max-w-md">
          Pick a user and a conversation (or paste a messages array), type the query, choose a strategy, then press <kbd className="rounded border border-zinc-300 bg-zinc-50 px-1 text-[11px] text-zinc-800 dark:border-zinc-700 dark:bg-zinc-800 dark:text-zinc-100">Ctrl ↵</kbd>.
        </p>
        <div className="mt-4 grid max-w-lg grid-cols-1 gap-2 text-left text-xs sm:grid-cols-3">
          {[
            ["Budget", "A stacked bar of the context window: system, memories, history, query, reserved output, free."],
            ["Every cut", "Dropped, truncated, summarized and offloaded messages, each with its reason."],
            ["Compare", "Run two strategies on the same input and see which messages only one of them sends."],
          ].map(([t, d]) => (
            <div key={t} className="rounded-lg bg-zinc-50 p-2.5 dark:bg-zinc-800/50">
              <p className="font-medium text-zinc-800 dark:text-zinc-200">{t}</p>
              <p className="mt-0.5 text-zinc-500 dark:text-zinc-400">{d}</p>
            </div>
          ))}
        </div>
        <Button size="sm" className="mt-4" onClick={onSample}>
          Try it with sample messages
        </Button>
      </EmptyState>
    </div>
  );
}
