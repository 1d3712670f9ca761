"use client";
import type { ComponentProps } from "react";
import { useCanWrite } from "@/client/hooks/auth";
import { Button } from "./button";

export const READ_ONLY_HINT = "Read only: your role in this project is viewer";

/** A Button that changes data: disabled, with the reason as its tooltip, for a viewer. */
export function WriteButton({ disabled, title, ...rest }: ComponentProps<typeof Button>) {
  const canWrite = useCanWrite();
  return <Button {...rest} disabled={disabled || !canWrite} title={canWrite ? title : READ_ONLY_HINT} data-writes="" />;
}

/**
 * Form controls that change data, disabled together for a viewer (a disabled fieldset disables
 * every input, select, textarea and button inside it), with the reason on hover and in words.
 */
export function WriteFieldset({ children, className = "", note = false }: { children: React.ReactNode; className?: string; note?: boolean }) {
  const canWrite = useCanWrite();
  return (
    <fieldset disabled={!canWrite} title={canWrite ? undefined : READ_ONLY_HINT} className={`m-0 min-w-0 border-0 p-0 ${className}`} data-read-only={canWrite ? undefined : "true"}>
      {!canWrite && note && (
        <p className="mb-2 text-xs text-zinc-600 dark:text-zinc-400" data-testid="read-only-note">
          {READ_ONLY_HINT}.
        </p>
      )}
      {children}
    </fieldset>
  );
}
