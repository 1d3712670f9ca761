export type ErrorCodeRow = { code: string; status: number; meaning: string };

/** The API's closed set of error codes (lib/errors/error-codes.ts), each with its status. */
export function ErrorCodesTable({ rows }: { rows: ErrorCodeRow[] }) {
  return (
    <section aria-labelledby="error-codes" className="mt-10" data-testid="error-codes">
      <h2 id="error-codes" className="text-lg font-semibold tracking-tight">
        Error codes
      </h2>
      <p className="mt-1 mb-3 max-w-2xl text-sm text-zinc-600 dark:text-zinc-400">
        Every error answers <code className="font-mono">{"{error: {code, message, details}}"}</code>; <code className="font-mono">details</code> names
        the fields at fault. The code is always one of these, and always comes with the same status.
      </p>
      <div tabIndex={0} role="region" aria-label="Error codes" className="overflow-x-auto rounded-md border border-zinc-200 dark:border-zinc-800">
        <table className="w-full text-left text-[13px]">
          <thead className="bg-zinc-50 text-xs text-zinc-600 dark:bg-zinc-900 dark:text-zinc-400">
            <tr>
              <th scope="col" className="px-3 py-1.5 font-medium">
                Code
              </th>
              <th scope="col" className="px-3 py-1.5 font-medium">
                Status
              </th>
              <th scope="col" className="px-3 py-1.5 font-medium">
                Meaning
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {rows.map((r) => (
              <tr key={r.code} className="align-top" data-code={r.code}>
                <td className="px-3 py-1.5 whitespace-nowrap">
                  <code className="font-mono font-medium">{r.code}</code>
                </td>
                <td className="px-3 py-1.5 tabular-nums">{r.status}</td>
                <td className="px-3 py-1.5 text-zinc-600 dark:text-zinc-400">{r.meaning}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
