"use client";
import { useEffect, useRef } from "react";

/** A list's search field: "/" anywhere on the page (outside a text field) focuses it and selects its text. */
export function SearchBox({ value, onChange, placeholder, label, testId }: { value: string; onChange: (q: string) => void; placeholder: string; label: string; testId?: string }) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "/" || e.metaKey || e.ctrlKey || e.altKey) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
      e.preventDefault();
      ref.current?.focus();
      ref.current?.select();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  return (
    <div className="relative min-w-64 flex-1">
      <svg aria-hidden viewBox="0 0 20 20" className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 fill-zinc-400">
        <path d="M8.5 3a5.5 5.5 0 0 1 4.38 8.83l3.65 3.64a.75.75 0 1 1-1.06 1.06l-3.64-3.65A5.5 5.5 0 1 1 8.5 3Zm0 1.5a4 4 0 1 0 0 8 4 4 0 0 0 0-8Z" />
      </svg>
      <input
        ref={ref}
        type="search"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={placeholder}
        aria-label={label}
        aria-keyshortcuts="/"
        data-testid={testId}
        className="h-9 w-full rounded-md border border-zinc-300 bg-white pr-9 pl-8 text-sm shadow-xs placeholder:text-zinc-400 dark:border-zinc-700 dark:bg-zinc-900"
      />
      {!value && (
        <kbd className="pointer-events-none absolute top-1/2 right-2 -translate-y-1/2 rounded border border-zinc-300 px-1.5 font-mono text-[10px] text-zinc-500 dark:border-zinc-700">/</kbd>
      )}
    </div>
  );
}
