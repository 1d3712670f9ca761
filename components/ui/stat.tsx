/** A label and its figure in a definition list (the caller's <dl>); amber when it warns. */
export function Stat({ label, value, testId, warn }: { label: string; value: string; testId: string; warn?: boolean }) {
  return (
    <div className="flex items-baseline justify-between gap-2 rounded-md bg-zinc-50 px-2 py-1.5 dark:bg-zinc-800/60" data-testid={testId}>
      <dt className="text-zinc-500 dark:text-zinc-400">{label}</dt>
      <dd className={`font-semibold whitespace-nowrap tabular-nums ${warn ? "text-amber-700 dark:text-amber-400" : ""}`}>{value}</dd>
    </div>
  );
}
