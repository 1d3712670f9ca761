"use client";
// The user's page (memories of one user): Export data, and Erase with its typed confirmation,
// the dry run's rows per table, and the receipt at the end (downloadable).
import { useEffect, useState } from "react";
import { useAuthState } from "@/client/hooks/auth";
import { useErasePreview, useEraseUser, useExportUser, type ErasureReceipt } from "@/client/hooks/privacy";
import { downloadJson, fileSafe, receiptFileName } from "@/client/ui/download";
import { formatInt } from "@/client/ui/format";
import { Dialog } from "@/components/memories/dialog";
import { Button } from "@/components/ui/button";
import { ErrorBox, Spinner } from "@/components/ui/states";
import { CountsTable, ReceiptSummary } from "./receipt-view";

/** `onErased`: the dialog closed on a receipt; the page leaves the erased user (nothing of theirs is left to show). */
export function UserPrivacyActions({ user, onErased }: { user: string; onErased?: (receipt: ErasureReceipt) => void }) {
  const { data: state } = useAuthState();
  const admin = !!state?.scopes.includes("admin");
  const exporter = useExportUser();
  const [erasing, setErasing] = useState(false);
  if (!user) return null;
  const exportNow = () =>
    exporter.mutate(user, { onSuccess: (doc) => downloadJson(`memscope-export-${fileSafe(user)}-${doc.exported_at.slice(0, 10)}.json`, doc) });
  return (
    <>
      <Button size="sm" onClick={exportNow} disabled={exporter.isPending} data-testid="user-export" title="Everything about this user as one JSON file (importable again)">
        {exporter.isPending && <Spinner />}
        Export data
      </Button>
      {admin && (
        <Button size="sm" variant="danger-outline" onClick={() => setErasing(true)} data-testid="user-erase">
          Erase…
        </Button>
      )}
      {exporter.isError && <span role="alert" className="text-xs text-red-700 dark:text-red-300">Export failed: {(exporter.error as Error).message}</span>}
      {erasing && (
        <EraseDialog
          user={user}
          onClose={(receipt) => {
            setErasing(false);
            if (receipt) onErased?.(receipt);
          }}
        />
      )}
    </>
  );
}

function EraseDialog({ user, onClose }: { user: string; onClose: (receipt: ErasureReceipt | null) => void }) {
  const preview = useErasePreview();
  const erase = useEraseUser();
  const [typed, setTyped] = useState("");
  const receipt: ErasureReceipt | null = erase.data?.receipt ?? null;
  const { mutate: runPreview } = preview;
  // The dry run as the dialog opens: the admin sees what goes before typing anything.
  useEffect(() => runPreview(user), [runPreview, user]);
  const matches = typed === user;
  return (
    <Dialog
      title={receipt ? "Erasure receipt" : `Erase ${user}`}
      onClose={() => onClose(receipt)}
      wide={!!receipt}
      testId="erase-dialog"
      footer={
        receipt ? (
          <>
            <Button key="download" onClick={() => downloadJson(receiptFileName(receipt.receipt_id), receipt)} data-testid="receipt-download">
              Download receipt
            </Button>
            <Button key="done" variant="primary" onClick={() => onClose(receipt)}>
              Done
            </Button>
          </>
        ) : (
          <>
            <Button key="cancel" onClick={() => onClose(null)}>
              Cancel
            </Button>
            <Button key="erase" variant="danger" disabled={!matches || !preview.data || erase.isPending} onClick={() => erase.mutate(user)} data-testid="erase-confirm">
              {erase.isPending && <Spinner />}
              Erase permanently
            </Button>
          </>
        )
      }
    >
      {receipt ? (
        <ReceiptSummary receipt={receipt} />
      ) : (
        <div className="space-y-4 text-sm">
          <p>
            Every row of this end user goes: conversations and turns, memories with their history, retrievals, review items, caches. It cannot be
            undone; <span className="font-medium">Export data</span> first if the person asked for a copy.
          </p>
          <div>
            <h3 className="mb-1 text-xs font-medium text-zinc-600 uppercase dark:text-zinc-400">What would go (dry run)</h3>
            {preview.isPending && <Spinner />}
            {preview.isError && <ErrorBox error={preview.error} onRetry={() => preview.mutate(user)} />}
            {preview.data && (
              <div data-testid="erase-preview">
                <CountsTable counts={preview.data.counts} />
                <p className="mt-1 text-xs text-zinc-500">{formatInt(preview.data.total)} rows in all</p>
              </div>
            )}
          </div>
          <label className="block">
            <span className="text-xs text-zinc-600 dark:text-zinc-400">
              Type the user id <code className="rounded bg-zinc-100 px-1 font-mono dark:bg-zinc-800">{user}</code> to confirm
            </span>
            <input
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              data-testid="erase-typed"
              autoComplete="off"
              spellCheck={false}
              className="mt-1 h-9 w-full rounded-md border border-zinc-300 bg-white px-2 font-mono text-sm dark:border-zinc-700 dark:bg-zinc-900"
            />
          </label>
          {erase.isError && <ErrorBox title="The erasure failed" error={erase.error} />}
        </div>
      )}
    </Dialog>
  );
}
