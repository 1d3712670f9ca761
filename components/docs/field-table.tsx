import type { FieldRow } from "@/client/ui/json-schema-summary";

/** A table of fields (name, type, notes) in the API reference. */
export function FieldTable({ title, rows }: { title?: string; rows: FieldRow[] }) {
  return (
    <div>
      {title && <h3 className="mb-1.5 text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">{title}</h3>}
      <div tabIndex={0} role="region" aria-label={title ?? "Fields"} className="overflow-x-auto rounded-md border border-zinc-200 dark:border-zinc-800">
        <table className="w-full text-left text-[13px]">
          <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {rows.map((r) => (
              <tr key={r.name} className="align-top">
                <td className="w-56 px-3 py-1.5 whitespace-nowrap">
                  <code className="font-mono font-medium">{r.name}</code>
                  {r.required && <span className="ml-1 text-[10px] font-semibold text-red-600 dark:text-red-400">required</span>}
                </td>
                <td className="w-64 px-3 py-1.5">
                  <code className="font-mono text-[12px] break-words text-indigo-700 dark:text-indigo-300">{r.type}</code>
                </td>
                <td className="px-3 py-1.5 text-zinc-600 dark:text-zinc-400">
                  {r.notes.length > 0 && <span className="text-[12px] tabular-nums">{r.notes.join(" · ")}</span>}
                  {r.description && <p className="text-[12px]">{r.description}</p>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
