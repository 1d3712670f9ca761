"use client";
import { WriteButton } from "@/components/ui/write-button";
import { useMemo, useState } from "react";
import type { Memory } from "@/client/api-types";
import { usePatchMemory } from "@/client/hooks/memories";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/states";

type Parsed = { ok: true; value: Record<string, unknown> | null } | { ok: false; error: string };

/** Where a JSON.parse error points, as "line L, column C" (V8 reports a character position). */
function locate(text: string, message: string): string {
  const m = /position (\d+)/.exec(message);
  if (!m) return message.replace(/^JSON\.parse: /, "");
  const pos = Number(m[1]);
  const before = text.slice(0, pos).split("\n");
  return `${message.replace(/ in JSON at position \d+.*$/, "").replace(/\s*\(line \d+ column \d+\)/, "")} — line ${before.length}, column ${before[before.length - 1].length + 1}`;
}

function parse(text: string): Parsed {
  if (!text.trim()) return { ok: true, value: null };
  try {
    const v = JSON.parse(text) as unknown;
    if (v === null) return { ok: true, value: null };
    if (typeof v !== "object" || Array.isArray(v)) return { ok: false, error: "Structured data must be a JSON object ({ … }) or empty." };
    return { ok: true, value: v as Record<string, unknown> };
  } catch (e) {
    return { ok: false, error: locate(text, (e as Error).message) };
  }
}

const pretty = (v: unknown) => (v === null || v === undefined ? "" : JSON.stringify(v, null, 2));

/** structured_data as editable JSON: validated on every keystroke, Save disabled while invalid. Keyed by version by its parent. */
export function JsonEditor({ memory }: { memory: Memory }) {
  const original = pretty(memory.structured_data);
  const [text, setText] = useState(original);
  const patch = usePatchMemory();
  const parsed = useMemo(() => parse(text), [text]);
  const dirty = text.trim() !== original.trim();
  const lines = text.split("\n").length;

  return (
    <div data-testid="json-editor">
      <div className="relative">
        <div aria-hidden className="pointer-events-none absolute inset-y-0 left-0 w-8 overflow-hidden border-r border-zinc-200 bg-zinc-50 py-2 text-right font-mono text-[11px] leading-5 text-zinc-500 dark:border-zinc-800 dark:bg-zinc-900">
          {Array.from({ length: Math.max(lines, 4) }, (_, i) => (
            <div key={i} className="pr-1.5">{i + 1}</div>
          ))}
        </div>
        <textarea
          value={text}
          spellCheck={false}
          aria-label="Structured data (JSON)"
          aria-invalid={!parsed.ok}
          data-testid="json-editor-input"
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Tab") {
              e.preventDefault();
              const el = e.currentTarget;
              const s = el.selectionStart;
              setText(text.slice(0, s) + "  " + text.slice(el.selectionEnd));
              requestAnimationFrame(() => el.setSelectionRange(s + 2, s + 2));
            }
          }}
          rows={Math.min(18, Math.max(4, lines))}
          placeholder='{ "city": "Lisbon" }'
          className={`w-full resize-y rounded-md border bg-white py-2 pr-3 pl-10 font-mono text-xs leading-5 shadow-xs outline-none dark:bg-zinc-950 ${
            parsed.ok ? "border-zinc-300 focus:border-indigo-400 dark:border-zinc-700" : "border-red-400 focus:border-red-500 dark:border-red-700"
          }`}
        />
      </div>
      <div className="mt-1.5 flex min-h-7 items-center gap-2 text-xs">
        {parsed.ok ? (
          <span className="text-emerald-700 dark:text-emerald-400" data-testid="json-valid">
            ✓ {parsed.value === null ? "empty (no structured data)" : `valid JSON · ${Object.keys(parsed.value).length} keys`}
          </span>
        ) : (
          <span role="alert" className="font-mono text-red-600 dark:text-red-400" data-testid="json-error">
            ✗ {parsed.error}
          </span>
        )}
        <span className="ml-auto flex items-center gap-2">
          {patch.isError && <span className="text-red-600 dark:text-red-400">{patch.error.message}</span>}
          {dirty && (
            <Button size="sm" variant="ghost" onClick={() => setText(original)}>
              Reset
            </Button>
          )}
          {parsed.ok && text.trim() && (
            <Button size="sm" variant="ghost" onClick={() => setText(pretty(parsed.value))}>
              Format
            </Button>
          )}
          <WriteButton
            size="sm"
            variant="primary"
            data-testid="json-save"
            disabled={!parsed.ok || !dirty || patch.isPending}
            onClick={() => parsed.ok && patch.mutate({ id: memory.id, version: memory.version, structured_data: parsed.value, reason: "edited structured data" }, { onSuccess: (m) => setText(pretty(m.structured_data)) })}
          >
            {patch.isPending && <Spinner />}Save
          </WriteButton>
        </span>
      </div>
    </div>
  );
}
