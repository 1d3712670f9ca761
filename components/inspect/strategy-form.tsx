"use client";
import { useId } from "react";
import { HAS_INCLUDE_TOOLS, STRATEGY_HINT, STRATEGY_LABEL, STRATEGY_TYPES, type StrategyDraft, type StrategyType } from "@/client/ui/inspect-model";

export const inputCls =
  "h-8 w-full rounded-md border border-zinc-300 bg-white px-2 text-sm tabular-nums shadow-xs aria-[invalid=true]:border-red-500 aria-[invalid=true]:ring-1 aria-[invalid=true]:ring-red-500 dark:border-zinc-700 dark:bg-zinc-950";
export const labelCls = "flex flex-col gap-1 text-xs text-zinc-600 dark:text-zinc-400";

/** The API's message for a field, under the control it belongs to. */
export function FieldError({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <span id={id} role="alert" data-testid="field-error" className="text-[11px] font-medium text-red-600 dark:text-red-400">
      {message}
    </span>
  );
}

type Props = {
  draft: StrategyDraft;
  onChange: (d: StrategyDraft) => void;
  /** field → message, keyed as the API names them (`strategy.max_attached_message_count`). */
  errors: Record<string, string>;
  /** "" for A, "-b" for B: suffix of the test ids. */
  suffix?: string;
};

export function StrategyForm({ draft, onChange, errors, suffix = "" }: Props) {
  const id = useId();
  const t = draft.type;
  const set = <T extends StrategyType>(type: T, patch: Partial<StrategyDraft[T]>) => onChange({ ...draft, [type]: { ...draft[type], ...patch } });
  const strategyError = errors["strategy"] ?? errors["strategy.type"];

  const num = <T extends StrategyType>(type: T, key: keyof StrategyDraft[T] & string, label: string, opts: { step?: number; min?: number; max?: number; hint?: string } = {}) => {
    const field = `strategy.${key}`;
    const err = errors[field];
    const value = draft[type][key] as number;
    return (
      <label className={labelCls} key={`${type}.${key}`}>
        <span title={opts.hint}>{label}</span>
        <input
          type="number"
          inputMode="decimal"
          step={opts.step ?? 1}
          min={opts.min}
          max={opts.max}
          value={Number.isNaN(value) ? "" : value}
          onChange={(e) => set(type, { [key]: e.target.value === "" ? NaN : Number(e.target.value) } as Partial<StrategyDraft[T]>)}
          aria-invalid={err ? true : undefined}
          aria-describedby={err ? `${id}-${key}-err` : undefined}
          data-testid={`strategy${suffix}-field-${key}`}
          className={inputCls}
        />
        <FieldError id={`${id}-${key}-err`} message={err} />
      </label>
    );
  };
  const check = <T extends StrategyType>(type: T, key: keyof StrategyDraft[T] & string, label: string) => (
    <label className="flex items-center gap-2 text-xs text-zinc-700 dark:text-zinc-300" key={`${type}.${key}`}>
      <input
        type="checkbox"
        checked={draft[type][key] as boolean}
        onChange={(e) => set(type, { [key]: e.target.checked } as Partial<StrategyDraft[T]>)}
        data-testid={`strategy${suffix}-field-${key}`}
        className="size-3.5 accent-indigo-600"
      />
      {label}
    </label>
  );

  const choice = <T extends StrategyType>(type: T, key: keyof StrategyDraft[T] & string, label: string, values: string[], hint?: string) => (
    <label className={labelCls} key={`${type}.${key}`}>
      <span title={hint}>{label}</span>
      <select
        value={draft[type][key] as string}
        onChange={(e) => set(type, { [key]: e.target.value } as Partial<StrategyDraft[T]>)}
        data-testid={`strategy${suffix}-field-${key}`}
        className={inputCls}
      >
        {values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
      <FieldError id={`${id}-${key}-err`} message={errors[`strategy.${key}`]} />
    </label>
  );
  const text = <T extends StrategyType>(type: T, key: keyof StrategyDraft[T] & string, label: string, placeholder: string) => (
    <label className={labelCls} key={`${type}.${key}`}>
      <span>{label}</span>
      <input
        type="text"
        value={draft[type][key] as string}
        placeholder={placeholder}
        onChange={(e) => set(type, { [key]: e.target.value } as Partial<StrategyDraft[T]>)}
        aria-invalid={errors[`strategy.${key}`] ? true : undefined}
        data-testid={`strategy${suffix}-field-${key}`}
        className={inputCls}
      />
      <FieldError id={`${id}-${key}-err`} message={errors[`strategy.${key}`]} />
    </label>
  );

  return (
    <div className="flex flex-col gap-3">
      <label className={labelCls}>
        <span className="sr-only">Strategy</span>
        <select
          value={t}
          onChange={(e) => onChange({ ...draft, type: e.target.value as StrategyType })}
          data-testid={`strategy-select${suffix}`}
          aria-invalid={strategyError ? true : undefined}
          className={`${inputCls} font-medium`}
        >
          {STRATEGY_TYPES.map((s) => (
            <option key={s} value={s}>
              {STRATEGY_LABEL[s]} ({s})
            </option>
          ))}
        </select>
        <span className="text-[11px] leading-snug text-zinc-500 dark:text-zinc-400">{STRATEGY_HINT[t]}</span>
        <FieldError id={`${id}-strategy-err`} message={strategyError} />
      </label>

      {t === "token_buffer" && <div className="grid grid-cols-2 gap-3">{num("token_buffer", "max_token_limit", "max_token_limit", { min: 0 })}</div>}

      {t === "message_window" && (
        <>
          <div className="grid grid-cols-2 gap-3">
            {num("message_window", "max_attached_message_count", "max messages", { min: 1, hint: "max_attached_message_count" })}
            {num("message_window", "history_message_truncate_length", "truncate at (chars)", { min: 0, hint: "history_message_truncate_length (0: every history text empty)" })}
          </div>
          {check("message_window", "history_message_truncate_enable", "Truncate long history messages")}
          <label className={labelCls}>
            System message (inserted first when the window has none)
            <textarea
              rows={2}
              value={draft.message_window.system_message}
              onChange={(e) => set("message_window", { system_message: e.target.value })}
              data-testid={`strategy${suffix}-field-system_message`}
              aria-invalid={errors["strategy.system_message"] ? true : undefined}
              placeholder="optional"
              className="w-full resize-y rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm shadow-xs dark:border-zinc-700 dark:bg-zinc-950"
            />
            <FieldError id={`${id}-sm-err`} message={errors["strategy.system_message"]} />
          </label>
        </>
      )}

      {t === "auto_context" && (
        <>
          <div className="grid grid-cols-2 gap-3">
            {num("auto_context", "msg_threshold", "msg_threshold", { min: 1 })}
            {num("auto_context", "last_keep", "last_keep", { min: 0 })}
            {num("auto_context", "max_token", "max_token", { min: 1, hint: "AutoContextConfig.maxToken, not the model's window" })}
            {num("auto_context", "token_ratio", "token_ratio", { step: 0.05, min: 0.05, max: 1, hint: "trigger at floor(max_token × token_ratio) estimated tokens" })}
            {num("auto_context", "steps", "model calls (steps)", { min: 1, max: 50, hint: "consecutive model calls simulated on a pasted memory" })}
            <label className={labelCls}>
              <span title="How AutoContextHook's instruction reaches the model">hook wiring</span>
              <select
                value={draft.auto_context.hook_wiring}
                onChange={(e) => set("auto_context", { hook_wiring: e.target.value as "1.0" | "1.1" })}
                data-testid={`strategy${suffix}-field-hook_wiring`}
                className={inputCls}
              >
                <option value="1.0">1.0: appended to the system prompt</option>
                <option value="1.1">1.1: a second system message</option>
              </select>
            </label>
            <label className={`${labelCls} col-span-2`}>
              <span title="Who writes the summaries of a replay">summaries</span>
              <select
                value={draft.auto_context.summarizer}
                onChange={(e) => set("auto_context", { summarizer: e.target.value as "auto" | "placeholder" })}
                data-testid={`strategy${suffix}-field-summarizer`}
                className={inputCls}
              >
                <option value="placeholder">placeholders (free, no model call)</option>
                <option value="auto">the chat model (MEMSCOPE_CHAT_*), cached</option>
              </select>
            </label>
          </div>
          <details className="text-xs text-zinc-600 dark:text-zinc-400">
            <summary className="cursor-pointer select-none">More AutoContextConfig settings</summary>
            <div className="mt-2 grid grid-cols-2 gap-3">
              {num("auto_context", "large_payload_threshold", "large_payload_threshold (chars)", { min: 0 })}
              {num("auto_context", "offload_single_preview", "offload_single_preview (chars)", { min: 0 })}
              {num("auto_context", "min_consecutive_tool_messages", "min_consecutive_tool_messages", { min: 0 })}
              {num("auto_context", "min_compression_token_threshold", "min_compression_token_threshold", { min: 0 })}
              {num("auto_context", "current_round_compression_ratio", "current_round_compression_ratio", { step: 0.05, min: 0.05, max: 1 })}
            </div>
          </details>
        </>
      )}

      {t === "summary_buffer" && (
        <div className="grid grid-cols-2 gap-3">
          {num("summary_buffer", "msg_threshold", "msg_threshold", { min: 1 })}
          {num("summary_buffer", "token_ratio", "token_ratio", { step: 0.05, min: 0.05, max: 1, hint: "share of the context window" })}
          {num("summary_buffer", "last_keep", "last_keep", { min: 0 })}
          {num("summary_buffer", "offload_tokens", "offload_tokens", { min: 50 })}
        </div>
      )}

      {t === "langchain_trim" && (
        <div className="grid grid-cols-2 gap-3">
          {num("langchain_trim", "max_tokens", "max_tokens", { min: 0 })}
          {choice("langchain_trim", "strategy", "strategy", ["last", "first"])}
          {choice("langchain_trim", "token_counter", "token_counter", ["model", "messages", "chars", "words"], "model: a ChatOpenAI as tokenCounter (tiktoken of each message's text)")}
          {text("langchain_trim", "start_on", "start_on", "human, ai, system, tool (last only)")}
          {text("langchain_trim", "end_on", "end_on", "human, ai, system, tool")}
          <div className="col-span-2 flex flex-col gap-1.5">
            {check("langchain_trim", "include_system", "include_system (last only)")}
            {check("langchain_trim", "allow_partial", "allow_partial")}
          </div>
        </div>
      )}

      {t === "llamaindex_buffer" && (
        <div className="grid grid-cols-2 gap-3">
          {num("llamaindex_buffer", "token_limit", "token_limit", { min: 0, hint: "0: not set, ceil(0.75 × context window)" })}
          {num("llamaindex_buffer", "initial_token_count", "initial_token_count", { min: 0 })}
          {num("llamaindex_buffer", "context_window", "context_window", { min: 0, hint: "0: the model's" })}
        </div>
      )}

      {t === "llamaindex_memory" && (
        <div className="grid grid-cols-2 gap-3">
          {num("llamaindex_memory", "token_limit", "token_limit", { min: 0 })}
          {num("llamaindex_memory", "short_term_token_limit_ratio", "short_term_token_limit_ratio", { step: 0.05, min: 0, max: 1 })}
          {num("llamaindex_memory", "context_window", "LLM context_window", { min: 0, hint: "0: no LLM given to getLLM; else 0.75 of it replaces token_limit" })}
        </div>
      )}

      {t === "mastra_last_messages" && (
        <div className="grid grid-cols-2 gap-3">{num("mastra_last_messages", "last_messages", "last_messages", { min: 0, hint: "stored messages; 0: no history (as false)" })}</div>
      )}

      {HAS_INCLUDE_TOOLS.includes(t) && check(t, "include_tools" as never, "Include tool calls and results")}
    </div>
  );
}
