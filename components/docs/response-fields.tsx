"use client";

import { useState } from "react";
import type { FieldRow } from "@/client/ui/json-schema-summary";
import { FieldTable } from "./field-table";

/**
 * An operation's response fields, folded. The table is rendered only once opened: the 73
 * operations' responses are about 1 300 rows, three quarters of the page's tables, which the
 * browser (and every accessibility check) would otherwise lay out unseen.
 */
export function ResponseFields({ status, rows }: { status: string; rows: FieldRow[] | null }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="group" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="cursor-pointer text-xs font-semibold tracking-wide text-zinc-500 uppercase select-none dark:text-zinc-400">
        Response {status} {rows ? "· fields" : "· no content"}
      </summary>
      {open && rows && (
        <div className="mt-2">
          <FieldTable rows={rows} />
        </div>
      )}
    </details>
  );
}
