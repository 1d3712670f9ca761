"use client";
import type { AutoContextReport } from "@/client/ui/inspect-model";
import { formatInt, plural } from "@/client/ui/format";
import { Badge } from "@/components/ui/badge";
import { OffloadedContent } from "./prompt-bubbles";

type Step = AutoContextReport["steps"][number];

const STRATEGY_NAME: Record<number, string> = {
  1: "old tool runs summarized",
  2: "large messages offloaded (last_keep spared)",
  3: "large messages offloaded",
  4: "past tool rounds summarized",
  5: "large current-round messages summarized",
  6: "current round summarized",
};

/** Before and after as two bars on one scale: the picture of what the step saved. */
function SizeBars({ before, after, max, label }: { before: number; after: number; max: number; label: string }) {
  const w = (n: number) => `${Math.max(1, Math.round((n / Math.max(1, max)) * 100))}%`;
  return (
    <div className="flex min-w-0 flex-col gap-0.5" aria-label={`${label}: ${formatInt(before)} before, ${formatInt(after)} after`} role="img">
      <div className="h-1.5 rounded-sm bg-zinc-300 dark:bg-zinc-600" style={{ width: w(before) }} />
      <div className="h-1.5 rounded-sm bg-indigo-500" style={{ width: w(after) }} />
    </div>
  );
}

function StepRow({ step, maxTokens }: { step: Step; maxTokens: number }) {
  return (
    <li data-testid="as-step" data-strategy={step.strategy ?? ""} className="rounded-lg border border-zinc-200 bg-white px-3 py-2 dark:border-zinc-800 dark:bg-zinc-900">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs">
        <span className="font-mono text-zinc-500 tabular-nums">call {step.call}</span>
        <span className="text-zinc-500">{step.turn_index === null ? "· next call" : `· before history message #${step.turn_index + 1}`}</span>
        {step.strategy ? (
          <Badge tone="accent">
            strategy {step.strategy}: {STRATEGY_NAME[step.strategy]}
          </Badge>
        ) : (
          <Badge tone="amber">{step.triggered ? "triggered, nothing to compress" : "below the thresholds"}</Badge>
        )}
      </div>
      <div className="mt-1.5 grid grid-cols-[auto_minmax(0,1fr)] items-center gap-x-3 gap-y-1 text-[11px] text-zinc-600 tabular-nums dark:text-zinc-400">
        <span>
          {formatInt(step.messages_before)} → {formatInt(step.messages_after)} msgs · <abbr title={AS_ESTIMATE} className="no-underline">
            {formatInt(step.tokens_before)} → {formatInt(step.tokens_after)} AgentScope est. tok
          </abbr>
        </span>
        <SizeBars before={step.tokens_before} after={step.tokens_after} max={maxTokens} label="AgentScope-estimated tokens" />
      </div>
      {step.events.length > 0 && (
        <ul className="mt-2 flex flex-col gap-1.5">
          {step.events.map((e, i) => (
            <li key={i} data-testid="as-event" className="text-[11px] text-zinc-700 dark:text-zinc-300">
              <span className="font-mono">{e.type}</span> · {plural(e.compressed_message_count, "message")} at position {e.start + 1}
              {e.summarizer_messages && (
                <details className="mt-1">
                  <summary className="cursor-pointer text-zinc-500 select-none">Sent to the summarizer ({plural(e.summarizer_messages.length, "message")})</summary>
                  <pre className="mt-1 max-h-60 overflow-auto rounded bg-zinc-50 p-2 text-[11px] whitespace-pre-wrap break-words dark:bg-zinc-950">
                    {JSON.stringify(e.summarizer_messages, null, 1)}
                  </pre>
                </details>
              )}
              {e.offload_ref && <OffloadedContent refId={e.offload_ref} label="the original" />}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** The counter behind every token figure in this timeline; the result's header counts with tiktoken instead. */
const AS_ESTIMATE = "characters ÷ 2.5 plus fixed overheads per message and tool block, as AutoContextMemory compares with its thresholds; not tiktoken";

/** AgentScope's AutoContextMemory at work: which strategy fired at which model call, and the size before and after. */
export function StepTimeline({ report, replay }: { report: AutoContextReport; replay: boolean }) {
  const maxTokens = Math.max(1, ...report.steps.map((s) => s.tokens_before));
  const applied = report.steps.filter((s) => s.strategy !== null).length;
  return (
    <section aria-labelledby="as-steps-h" data-testid="as-timeline" className="flex flex-col gap-2">
      <h2 id="as-steps-h" className="text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
        AgentScope steps
      </h2>
      <p className="text-[11px] leading-snug text-zinc-600 dark:text-zinc-400" data-testid="as-summary">
        {report.follows}. {replay ? `Replayed ${plural(report.calls, "model call")}` : `${plural(report.calls, "model call")} simulated`}: compression triggered on{" "}
        {formatInt(report.triggered_calls)}, a strategy applied on {formatInt(applied)}. Memory now {plural(report.memory.messages, "message")}, {formatInt(report.memory.tokens)} tokens by AgentScope&apos;s estimate ({AS_ESTIMATE}). Hook
        wiring {report.hook_wiring}; the {report.tools.map((t) => t.name).join(", ")} tool is registered.
      </p>
      <p className="text-[11px] text-zinc-600 dark:text-zinc-400" data-testid="as-summaries">
        {report.summaries === "model" ? (
          <>
            Summaries by <span className="font-mono">{report.summary_model}</span>: {plural(report.model_calls, "model call")} made, {formatInt(report.cached_summaries)} from cache.
          </>
        ) : report.chat_model ? (
          <span data-testid="as-calls-needed">
            Summaries are labelled placeholders (no model call). With <span className="font-mono">{report.chat_model}</span> this replay would make{" "}
            <strong>{plural(report.summaries_written, "summarizer call")}</strong> (fewer where cached): choose &ldquo;the chat model&rdquo; under summaries to run it.
          </span>
        ) : (
          <>Summaries are labelled placeholders: no chat model is configured (MEMSCOPE_CHAT_*). Positions, tags and what is kept are exact.</>
        )}
      </p>
      {report.steps.length === 0 ? (
        <p className="rounded-md border border-dashed border-zinc-300 px-3 py-2 text-xs text-zinc-500 dark:border-zinc-700" data-testid="as-no-steps">
          {report.triggered_calls
            ? "Compression triggered, but no strategy found anything to compress (AgentScope never summarizes a plain chat)."
            : "No call reached msg_threshold or floor(max_token × token_ratio): nothing was compressed."}
        </p>
      ) : (
        <ol className="flex flex-col gap-2">
          {report.steps.map((s) => (
            <StepRow key={s.call} step={s} maxTokens={maxTokens} />
          ))}
        </ol>
      )}
    </section>
  );
}
