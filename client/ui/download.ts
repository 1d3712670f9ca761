// Saves a value as a JSON file through the browser's download (an export, an erasure receipt).
export function downloadJson(fileName: string, value: unknown): void {
  const url = URL.createObjectURL(new Blob([JSON.stringify(value, null, 2)], { type: "application/json" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A file name part from any id: what a file system takes everywhere. */
export const fileSafe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80) || "user";

/** An erasure receipt's file name, the same wherever it is downloaded (the erase dialog, the audit log). */
export const receiptFileName = (receiptId: string) => `memscope-erasure-receipt-${fileSafe(receiptId)}.json`;

/** An audit entry's download: a receipt by its own name, anything else by the entry. */
export function auditFileName(e: { id: string; action: string; details: unknown }): string {
  const receiptId = (e.details as { receipt_id?: unknown } | null)?.receipt_id;
  return typeof receiptId === "string" ? receiptFileName(receiptId) : `memscope-${e.action.replace(".", "-")}-${e.id}.json`;
}
