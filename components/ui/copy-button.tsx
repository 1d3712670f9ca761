"use client";
import { useEffect, useState } from "react";
import { Button } from "./button";

/** Copies `text`; says "Copied" for a moment (or "Copy failed" when the clipboard is blocked). */
export function CopyButton({ text, label = "Copy", testId }: { text: string; label?: string; testId?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 1600);
    return () => clearTimeout(t);
  }, [state]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      setState("failed");
    }
  }

  return (
    <Button size="sm" onClick={copy} data-testid={testId} data-state={state} aria-live="polite">
      {state === "copied" ? "✓ Copied" : state === "failed" ? "Copy failed" : label}
    </Button>
  );
}
