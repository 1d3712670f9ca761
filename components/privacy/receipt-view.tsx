"use client";
// An erasure's counts per table and its receipt (the erase dialog; the audit page downloads it).
import type { ErasureReceipt } from "@/client/hooks/privacy";
import { formatInt } from "@/client/ui/format";
import { Badge } from "@/components/ui/badge";

export function CountsTable({ counts }: { counts: Record<string, number> }) {
  const rows = Object.entries(counts).filter(([, n]) => n > 0);
  if (!rows.length) return <p className="text-xs text-zinc-500">No rows.</p>;
  return (
    <table className="w-full text-sm">
      <thead className="sr-only">
        <tr>
          <th>Table</th>
          <th>Rows</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
        {rows.map(([table, n]) => (
          <tr key={table}>
            <td className="py-1 font-mono text-xs break-all">{table}</td>
            <td className="py-1 text-right tabular-nums">{formatInt(n)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ReceiptSummary({ receipt }: { receipt: ErasureReceipt }) {
  const p = receipt.probes;
  return (
    <div className="grid gap-4 text-sm sm:grid-cols-2" data-testid="erase-receipt">
      <div>
        <p className="mb-2 flex flex-wrap items-center gap-2">
          <Badge tone={p.passed ? "green" : "red"} testId="receipt-probes">
            {p.passed ? "probes passed" : "probes found left-overs"}
          </Badge>
          <span className="text-xs text-zinc-500">{formatInt(receipt.total)} rows erased</span>
        </p>
        <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs">
          <dt className="text-zinc-500">Receipt</dt>
          <dd className="font-mono break-all">{receipt.receipt_id}</dd>
          <dt className="text-zinc-500">Subject</dt>
          <dd className="font-mono break-all" title="The user id as a salted hash: the receipt holds no personal data">
            {receipt.subject}
          </dd>
          <dt className="text-zinc-500">By</dt>
          <dd>{receipt.by}</dd>
          <dt className="text-zinc-500">Finished</dt>
          <dd>{new Date(receipt.finished_at).toLocaleString()}</dd>
          <dt className="text-zinc-500">Probes</dt>
          <dd>
            ids {p.ids.found}/{formatInt(p.ids.checked)} found · search {p.search.found}/{formatInt(p.search.checked)} · scan {p.scan.found} in {formatInt(p.scan.columns)} columns
          </dd>
        </dl>
      </div>
      <div>
        <h3 className="mb-1 text-xs font-medium text-zinc-600 uppercase dark:text-zinc-400">Erased per table</h3>
        <CountsTable counts={receipt.counts} />
      </div>
    </div>
  );
}
