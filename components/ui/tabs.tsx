"use client";
import { useId, useRef, type ReactNode } from "react";

export type TabItem<K extends string> = { key: K; label: ReactNode; testId?: string };

/**
 * The one tab strip of the app (WAI-ARIA tabs): Left/Right move and wrap, Home/End jump,
 * only the selected tab is a tab stop. `panelId` names the tabpanel it controls.
 */
export function TabList<K extends string>({
  tabs,
  value,
  onChange,
  label,
  panelId,
  size = "sm",
  className = "",
}: {
  tabs: TabItem<K>[];
  value: K;
  onChange: (k: K) => void;
  label: string;
  panelId: string;
  size?: "sm" | "md";
  className?: string;
}) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const onKey = (e: React.KeyboardEvent, i: number) => {
    const last = tabs.length - 1;
    const next = e.key === "ArrowRight" ? (i === last ? 0 : i + 1) : e.key === "ArrowLeft" ? (i === 0 ? last : i - 1) : e.key === "Home" ? 0 : e.key === "End" ? last : -1;
    if (next < 0) return;
    e.preventDefault();
    onChange(tabs[next].key);
    refs.current[next]?.focus();
  };
  return (
    <div role="tablist" aria-label={label} className={`flex gap-1 ${className}`}>
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
            id={`${panelId}-tab-${t.key || "all"}`}
            data-testid={t.testId}
            aria-selected={selected}
            aria-controls={panelId}
            tabIndex={selected ? 0 : -1}
            onClick={() => onChange(t.key)}
            onKeyDown={(e) => onKey(e, i)}
            className={`-mb-px border-b-2 px-2.5 font-medium whitespace-nowrap transition-colors ${size === "sm" ? "py-2 text-xs" : "py-2 text-sm"} ${
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
  );
}

/** A tab strip with its panel below it. */
export function Tabs<K extends string>({
  tabs,
  value,
  onChange,
  children,
  actions,
  label = "Views",
}: {
  tabs: TabItem<K>[];
  value: K;
  onChange: (k: K) => void;
  children: ReactNode;
  actions?: ReactNode;
  label?: string;
}) {
  const id = useId();
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="flex items-center gap-2 border-b border-zinc-200 px-3 dark:border-zinc-800">
        <TabList tabs={tabs} value={value} onChange={onChange} label={label} panelId={`${id}-panel`} />
        <div className="ml-auto flex items-center gap-2">{actions}</div>
      </div>
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-panel-tab-${value || "all"}`} className="min-h-0 flex-1">
        {children}
      </div>
    </div>
  );
}
