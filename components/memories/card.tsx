import type { ReactNode } from "react";

export function Card({ title, children, actions, className = "", testId }: { title: ReactNode; children: ReactNode; actions?: ReactNode; className?: string; testId?: string }) {
  return (
    <section data-testid={testId} className={`rounded-lg border border-zinc-200 bg-white shadow-xs dark:border-zinc-800 dark:bg-zinc-900 ${className}`}>
      {/* Actions wrap under the title on narrow screens rather than squeezing it ("Relat-ions" at 390 px). */}
      <header className="flex flex-wrap items-center gap-x-2 gap-y-1 border-b border-zinc-100 px-4 py-2.5 dark:border-zinc-800">
        <h2 className="shrink-0 text-sm font-semibold">{title}</h2>
        <div className="ml-auto flex min-w-0 flex-wrap items-center gap-2">{actions}</div>
      </header>
      <div className="p-4">{children}</div>
    </section>
  );
}
