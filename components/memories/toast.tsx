"use client";
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from "react";
import { Spinner } from "@/components/ui/states";

type Toast = { id: number; message: ReactNode; tone?: "neutral" | "error"; action?: { label: string; run: () => Promise<unknown> | void; testId?: string }; ttl?: number };
type Ctx = { show: (t: Omit<Toast, "id">) => void; dismiss: (id: number) => void };

const ToastCtx = createContext<Ctx | null>(null);

export function useToast(): Ctx {
  const c = useContext(ToastCtx);
  if (!c) throw new Error("useToast outside ToastProvider");
  return c;
}

/** Bottom-left stack of short messages, each with an optional action (Undo). */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const seq = useRef(0);
  const dismiss = useCallback((id: number) => setToasts((ts) => ts.filter((t) => t.id !== id)), []);
  const show = useCallback((t: Omit<Toast, "id">) => {
    const id = ++seq.current;
    setToasts((ts) => [...ts.slice(-2), { ...t, id }]);
  }, []);
  return (
    <ToastCtx.Provider value={{ show, dismiss }}>
      {children}
      <div aria-live="polite" className="pointer-events-none fixed bottom-4 left-1/2 z-50 flex -translate-x-1/2 flex-col items-center gap-2">
        {toasts.map((t) => (
          <ToastView key={t.id} toast={t} onDone={() => dismiss(t.id)} />
        ))}
      </div>
    </ToastCtx.Provider>
  );
}

function ToastView({ toast, onDone }: { toast: Toast; onDone: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (busy) return;
    const t = setTimeout(onDone, toast.ttl ?? (toast.action ? 12_000 : 5_000));
    return () => clearTimeout(t);
  }, [busy, onDone, toast]);
  // A failed action turns the toast into an error: it must not keep looking like the success it was about.
  const tone = error ? "error" : (toast.tone ?? "neutral");
  return (
    <div
      role={tone === "error" ? "alert" : "status"}
      data-testid="toast"
      data-tone={tone}
      className={`pointer-events-auto flex max-w-[calc(100vw-2rem)] min-w-72 items-center gap-3 rounded-lg px-4 py-2.5 text-sm break-words shadow-lg ring-1 ${
        tone === "error" ? "bg-red-600 text-white ring-red-700" : "bg-zinc-900 text-zinc-50 ring-zinc-800 dark:bg-zinc-100 dark:text-zinc-900 dark:ring-zinc-300"
      }`}
    >
      <span className="flex-1">{error ?? toast.message}</span>
      {toast.action && !error && (
        <button
          type="button"
          data-testid={toast.action.testId ?? "toast-action"}
          disabled={busy}
          className="inline-flex items-center gap-1.5 rounded px-2 py-0.5 font-semibold text-indigo-300 hover:bg-white/10 dark:text-indigo-600 dark:hover:bg-black/5"
          onClick={async () => {
            setBusy(true);
            try {
              await toast.action!.run();
              onDone();
            } catch (e) {
              setError(e instanceof Error ? e.message : String(e));
              setBusy(false);
            }
          }}
        >
          {busy && <Spinner />}
          {toast.action.label}
        </button>
      )}
      <button type="button" aria-label="Dismiss" onClick={onDone} className="rounded px-1 opacity-60 hover:opacity-100">
        ×
      </button>
    </div>
  );
}
