"use client";
import { useId, useRef, type ReactNode } from "react";

export type TabItem<K extends string> = { key: K; label: ReactNode };

/** Accessible tab strip: arrow keys move between tabs, the panel is labelled by its tab. */
export function Tabs<K extends string>({
  tabs,
  value,
  onChange,
  children,
  actions,
}: {
  tabs: TabItem<K>[];
  value: K;
  onChange: (k: K) => void;
  children: ReactNode;
  actions?: ReactNode;
}) {
  const id = useId();
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const onKey = (e: React.KeyboardEvent, i: number) => {
    if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
    const next = (i + (e.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length;
    onChange(tabs[next].key);
    refs.current[next]?.focus();
  };
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="flex items-center gap-2 border-b border-zinc-200 px-3 dark:border-zinc-800">
        <div role="tablist" className="flex gap-1">
          {tabs.map((t, i) => {
            const selected = t.key === value;
            return (
              <button
                key={t.key}
                ref={(el) => {
                  refs.current[i] = el;
                }}
                role="tab"
                type="button"
                id={`${id}-tab-${t.key}`}
                aria-selected={selected}
                aria-controls={`${id}-panel`}
                tabIndex={selected ? 0 : -1}
                onClick={() => onChange(t.key)}
                onKeyDown={(e) => onKey(e, i)}
                className={`-mb-px border-b-2 px-2.5 py-2 text-xs font-medium transition-colors ${
                  selected
                    ? "border-indigo-500 text-zinc-900 dark:text-zinc-50"
                    : "border-transparent text-zinc-500 hover:text-zinc-800 dark:text-zinc-400 dark:hover:text-zinc-200"
                }`}
              >
                {t.label}
              </button>
            );
          })}
        </div>
        <div className="ml-auto flex items-center gap-2">{actions}</div>
      </div>
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-tab-${value}`} className="min-h-0 flex-1">
        {children}
      </div>
    </div>
  );
}
