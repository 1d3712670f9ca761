import type { ReactNode } from "react";
import { isClientError } from "@/client/api-error";

/** Shows the API's own error message, with a retry unless the request itself was wrong (4xx). */
export function ErrorBox({ title = "Something went wrong", error, onRetry }: { title?: string; error: unknown; onRetry?: () => void }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800 dark:border-red-900/60 dark:bg-red-950/40 dark:text-red-200">
      <p className="font-medium">{title}</p>
      <p className="mt-1 break-words text-red-700 dark:text-red-300">{message}</p>
      {onRetry && !isClientError(error) && (
        <button type="button" onClick={onRetry} className="mt-3 rounded-md border border-red-300 px-2.5 py-1 text-xs font-medium hover:bg-red-100 dark:border-red-800 dark:hover:bg-red-900/50">
          Try again
        </button>
      )}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="flex flex-col items-center justify-center gap-1 px-6 py-16 text-center">
      <p className="text-sm font-medium text-zinc-800 dark:text-zinc-200">{title}</p>
      {children && <div className="text-sm text-zinc-500 dark:text-zinc-400">{children}</div>}
    </div>
  );
}

export function Spinner({ className = "" }: { className?: string }) {
  return <span aria-hidden className={`inline-block size-3.5 animate-spin rounded-full border-2 border-current border-r-transparent ${className}`} />;
}

/** A one-line error next to the control it is about (a field, a button). */
export function InlineError({ id, children, testId }: { id?: string; children: ReactNode; testId?: string }) {
  return (
    <p id={id} role="alert" data-testid={testId} className="mt-1 text-xs break-words text-red-700 dark:text-red-400">
      {children}
    </p>
  );
}
