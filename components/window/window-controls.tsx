"use client";
import { useId, useState } from "react";
import { useModels } from "@/client/hooks/models";
import { maxTokenLimitError, messageLimitError, type WindowSettings } from "@/client/ui/window-url";
import { InlineError } from "@/components/ui/states";

export { DEFAULT_SETTINGS, type WindowSettings } from "@/client/ui/window-url";
const SLIDER_MAX = 32_000;
const CUSTOM = "__custom__";

const field = "h-8 rounded-md border border-zinc-300 bg-white px-2 text-sm tabular-nums shadow-xs dark:border-zinc-700 dark:bg-zinc-900";
const labelCls = "mb-1 block text-[11px] font-medium tracking-wide text-zinc-500 uppercase dark:text-zinc-400";

/** The three knobs of Dify's TokenBufferMemory: tokenizer (model), token budget, turn cap. */
export function WindowControls({ value, onChange }: { value: WindowSettings; onChange: (v: WindowSettings) => void }) {
  const ids = useId();
  const models = useModels();
  const known = models.data?.some((m) => m.model === value.model) ?? true;
  const [custom, setCustom] = useState(!known);
  const showCustom = custom || !known;
  // Raw text for number inputs so the field can be empty or mid-edit without snapping back.
  const [maxText, setMaxText] = useState(String(value.max_token_limit));
  const [limitText, setLimitText] = useState(value.message_limit == null ? "" : String(value.message_limit));
  const set = (patch: Partial<WindowSettings>) => onChange({ ...value, ...patch });

  // An invalid value is shown as invalid (and the window keeps the last valid one), never swapped silently.
  const maxError = maxTokenLimitError(maxText);
  const limitError = messageLimitError(limitText);
  const setMax = (text: string) => {
    setMaxText(text);
    if (maxTokenLimitError(text) === null) set({ max_token_limit: Number(text) });
  };

  return (
    <div className="grid grid-cols-1 gap-3 sm:grid-cols-[minmax(9rem,12rem)_1fr_7.5rem]">
      <div>
        <label htmlFor={`${ids}-model`} className={labelCls}>
          Model
        </label>
        <select
          id={`${ids}-model`}
          data-testid="model-select"
          className={`${field} w-full`}
          value={showCustom ? CUSTOM : value.model}
          onChange={(e) => {
            if (e.target.value === CUSTOM) setCustom(true);
            else {
              setCustom(false);
              set({ model: e.target.value });
            }
          }}
        >
          {models.data?.map((m) => (
            <option key={m.model} value={m.model}>
              {m.model} · {m.encoding}
            </option>
          ))}
          {!models.data && <option value={value.model}>{value.model}</option>}
          <option value={CUSTOM}>Other model…</option>
        </select>
        {showCustom && (
          <input
            aria-label="Model name"
            data-testid="model-input"
            className={`${field} mt-1.5 w-full font-mono text-xs`}
            placeholder="e.g. claude-3-5-sonnet"
            defaultValue={known ? "" : value.model}
            autoFocus={custom}
            onChange={(e) => e.target.value.trim() && set({ model: e.target.value.trim() })}
          />
        )}
      </div>

      <div>
        <label htmlFor={`${ids}-max`} className={labelCls}>
          max_token_limit
        </label>
        <div className="flex items-center gap-2">
          <input
            type="range"
            min={0}
            max={SLIDER_MAX}
            step={100}
            aria-label="max_token_limit slider"
            data-testid="max-token-limit-slider"
            value={Math.min(value.max_token_limit, SLIDER_MAX)}
            onChange={(e) => setMax(e.target.value)}
            className="h-8 min-w-0 flex-1 accent-indigo-600"
          />
          <input
            id={`${ids}-max`}
            type="number"
            min={0}
            step={100}
            inputMode="numeric"
            data-testid="max-token-limit-input"
            className={`${field} w-24 text-right aria-invalid:border-red-500 aria-invalid:ring-1 aria-invalid:ring-red-500`}
            value={maxText}
            aria-invalid={maxError ? true : undefined}
            aria-describedby={maxError ? `${ids}-max-error` : undefined}
            onChange={(e) => setMax(e.target.value)}
          />
        </div>
        {maxError && (
          <InlineError id={`${ids}-max-error`} testId="max-token-limit-error">
            {maxError} The window still uses {value.max_token_limit.toLocaleString("en-US")}.
          </InlineError>
        )}
      </div>

      <div>
        <label htmlFor={`${ids}-limit`} className={labelCls}>
          message_limit
        </label>
        <input
          id={`${ids}-limit`}
          type="number"
          min={1}
          inputMode="numeric"
          data-testid="message-limit-input"
          placeholder="500 (default)"
          className={`${field} w-full text-right aria-invalid:border-red-500 aria-invalid:ring-1 aria-invalid:ring-red-500 placeholder:text-left placeholder:text-xs placeholder:text-zinc-400`}
          value={limitText}
          aria-invalid={limitError ? true : undefined}
          aria-describedby={limitError ? `${ids}-limit-error` : undefined}
          onChange={(e) => {
            const text = e.target.value;
            setLimitText(text);
            if (text.trim() === "") set({ message_limit: null });
            else if (messageLimitError(text) === null) set({ message_limit: Number(text) });
          }}
        />
        {limitError && (
          <InlineError id={`${ids}-limit-error`} testId="message-limit-error">
            {limitError}
          </InlineError>
        )}
      </div>
    </div>
  );
}
