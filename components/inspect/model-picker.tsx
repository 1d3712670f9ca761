"use client";
import { useEffect, useId, useState } from "react";
import { fieldErrors } from "@/client/api-error";
import { useModels, usePresets, useSavePresets, type Preset } from "@/client/hooks/models";
import { formatInt } from "@/client/ui/format";
import { Badge } from "@/components/ui/badge";
import { WriteButton } from "@/components/ui/write-button";
import { Button } from "@/components/ui/button";
import { ErrorBox, Spinner } from "@/components/ui/states";
import { Dialog } from "@/components/memories/dialog";
import { FieldError, inputCls, labelCls } from "./strategy-form";

/** Model select with its context window, an "approximate" badge, and the presets dialog. */
export function ModelPicker({
  model,
  reservedOutput,
  onModel,
  onReserved,
  errors,
}: {
  model: string;
  reservedOutput: number;
  onModel: (m: string) => void;
  onReserved: (n: number) => void;
  errors: Record<string, string>;
}) {
  const id = useId();
  const models = useModels();
  const [settings, setSettings] = useState(false);
  const row = models.data?.find((m) => m.model === model);
  return (
    <div className="flex flex-col gap-2.5">
      <div className="grid grid-cols-[minmax(0,1fr)_auto] items-end gap-2">
        <label className={labelCls}>
          <span className="flex items-center gap-1.5">
            Model
            {models.isFetching && <Spinner className="size-3 text-zinc-400" />}
          </span>
          <select value={model} onChange={(e) => onModel(e.target.value)} data-testid="model-select" aria-invalid={errors["model"] ? true : undefined} className={inputCls}>
            {!row && <option value={model}>{model}</option>}
            {models.data?.map((m) => (
              <option key={m.model} value={m.model}>
                {m.model} — {formatInt(m.context_window)}
                {m.exact ? "" : " (≈)"}
              </option>
            ))}
          </select>
        </label>
        <Button size="sm" variant="secondary" className="h-8" onClick={() => setSettings(true)} aria-label="Model presets" title="Edit model presets" data-testid="model-settings">
          <svg aria-hidden viewBox="0 0 20 20" className="size-4" fill="currentColor">
            <path
              fillRule="evenodd"
              d="M8.34 1.8A1 1 0 0 1 9.32 1h1.36a1 1 0 0 1 .98.8l.28 1.4c.4.15.78.35 1.13.58l1.35-.46a1 1 0 0 1 1.18.45l.68 1.18a1 1 0 0 1-.2 1.25l-1.07.95a6 6 0 0 1 0 1.3l1.07.95a1 1 0 0 1 .2 1.25l-.68 1.18a1 1 0 0 1-1.18.45l-1.35-.46c-.35.23-.73.43-1.13.58l-.28 1.4a1 1 0 0 1-.98.8H9.32a1 1 0 0 1-.98-.8l-.28-1.4a6 6 0 0 1-1.13-.58l-1.35.46a1 1 0 0 1-1.18-.45l-.68-1.18a1 1 0 0 1 .2-1.25l1.07-.95a6 6 0 0 1 0-1.3l-1.07-.95a1 1 0 0 1-.2-1.25l.68-1.18a1 1 0 0 1 1.18-.45l1.35.46c.35-.23.73-.43 1.13-.58l.28-1.4ZM10 12.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5Z"
              clipRule="evenodd"
            />
          </svg>
        </Button>
      </div>
      <div className="flex flex-wrap items-center gap-1.5 text-[11px] text-zinc-500 dark:text-zinc-400" data-testid="model-info">
        {row ? (
          <>
            <span className="tabular-nums">{formatInt(row.context_window)} token window</span>
            <span>· {row.encoding}</span>
            {row.exact ? <Badge tone="green">exact count</Badge> : <Badge tone="amber" title="Counted with a stand-in tokenizer: numbers are estimates">approximate</Badge>}
          </>
        ) : (
          <span>Unknown model: counted as approximate with a 128k window</span>
        )}
      </div>
      <FieldError id={`${id}-m`} message={errors["model"]} />
      <label className={labelCls}>
        Reserved output tokens
        <input
          type="number"
          min={0}
          value={Number.isNaN(reservedOutput) ? "" : reservedOutput}
          onChange={(e) => onReserved(e.target.value === "" ? NaN : Number(e.target.value))}
          data-testid="reserved-output"
          aria-invalid={errors["reserved_output_tokens"] ? true : undefined}
          className={inputCls}
        />
        <FieldError id={`${id}-r`} message={errors["reserved_output_tokens"]} />
      </label>
      {settings && <PresetsDialog onClose={() => setSettings(false)} />}
    </div>
  );
}

type Row = Preset & { source: string; key: number };

function PresetsDialog({ onClose }: { onClose: () => void }) {
  const q = usePresets(true);
  const save = useSavePresets();
  const [rows, setRows] = useState<Row[] | null>(null);
  useEffect(() => {
    if (q.data && rows === null) setRows(q.data.map((p, i) => ({ ...p, key: i })));
  }, [q.data, rows]);
  const errs = fieldErrors(save.error);
  const saved = rows?.filter((r) => r.source === "settings") ?? [];
  const set = (key: number, patch: Partial<Row>) => setRows((rs) => rs!.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const add = () => setRows((rs) => [{ model: "", context_window: 128_000, encoding: "o200k_base", exact: false, source: "settings", key: Date.now() }, ...(rs ?? [])]);
  const submit = () => save.mutate(saved.map(({ model, context_window, encoding, exact }) => ({ model: model.trim(), context_window, encoding, exact })), { onSuccess: onClose });

  return (
    <Dialog
      title="Model presets"
      onClose={onClose}
      wide
      testId="presets-dialog"
      footer={
        <>
          {save.isError && <span className="mr-auto text-xs text-red-600 dark:text-red-400">{save.error.message}</span>}
          <Button size="sm" variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <WriteButton size="sm" variant="primary" onClick={submit} disabled={!rows || save.isPending} data-testid="presets-save">
            {save.isPending && <Spinner />}
            Save presets
          </WriteButton>
        </>
      }
    >
      <p className="mb-3 text-xs text-zinc-500 dark:text-zinc-400">
        Saved presets override the built-in model of the same name. Built-ins are read-only: use “Override” to copy one into your settings.
      </p>
      {q.isError ? (
        <ErrorBox error={q.error} onRetry={() => q.refetch()} />
      ) : !rows ? (
        <div className="flex items-center gap-2 text-sm text-zinc-500">
          <Spinner /> Loading presets…
        </div>
      ) : (
        <div className="max-h-[55vh] overflow-auto">
          <table className="w-full text-xs">
            <thead className="sticky top-0 bg-white text-left text-zinc-500 dark:bg-zinc-900">
              <tr>
                <th className="py-1.5 pr-2 font-medium">Model</th>
                <th className="py-1.5 pr-2 font-medium">Context window</th>
                <th className="py-1.5 pr-2 font-medium">Encoding</th>
                <th className="py-1.5 pr-2 font-medium">Exact</th>
                <th className="py-1.5 font-medium">
                  <Button size="sm" variant="secondary" onClick={add} data-testid="presets-add">
                    + Add
                  </Button>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => {
                const i = saved.indexOf(r);
                const err = (f: string) => (i >= 0 ? errs[`presets[${i}].${f}`] : undefined);
                const ro = r.source === "builtin";
                return (
                  <tr key={r.key} className="border-t border-zinc-100 align-top dark:border-zinc-800">
                    <td className="py-1.5 pr-2">
                      <input value={r.model} disabled={ro} onChange={(e) => set(r.key, { model: e.target.value })} aria-label="Model name" aria-invalid={err("model") ? true : undefined} className={inputCls} />
                      <FieldError id={`p${r.key}m`} message={err("model")} />
                    </td>
                    <td className="py-1.5 pr-2">
                      <input type="number" min={256} value={r.context_window} disabled={ro} onChange={(e) => set(r.key, { context_window: Number(e.target.value) })} aria-label="Context window" aria-invalid={err("context_window") ? true : undefined} className={inputCls} />
                      <FieldError id={`p${r.key}c`} message={err("context_window")} />
                    </td>
                    <td className="py-1.5 pr-2">
                      <select value={r.encoding} disabled={ro} onChange={(e) => set(r.key, { encoding: e.target.value as Preset["encoding"] })} aria-label="Encoding" className={inputCls}>
                        <option value="o200k_base">o200k_base</option>
                        <option value="cl100k_base">cl100k_base</option>
                      </select>
                    </td>
                    <td className="py-2.5 pr-2">
                      <input type="checkbox" checked={r.exact} disabled={ro} onChange={(e) => set(r.key, { exact: e.target.checked })} aria-label="Exact count" className="size-3.5 accent-indigo-600" />
                    </td>
                    <td className="py-1.5 whitespace-nowrap">
                      {ro ? (
                        <Button size="sm" variant="ghost" onClick={() => set(r.key, { source: "settings" })}>
                          Override
                        </Button>
                      ) : (
                        <span className="inline-flex items-center gap-1">
                          <Badge tone="accent">saved</Badge>
                          <Button size="sm" variant="ghost" aria-label={`Remove ${r.model || "preset"}`} onClick={() => setRows((rs) => rs!.filter((x) => x.key !== r.key))}>
                            Remove
                          </Button>
                        </span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </Dialog>
  );
}
