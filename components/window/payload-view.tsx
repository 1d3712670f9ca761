"use client";
import { useMemo, useState } from "react";
import type { HistoryResponse } from "@/client/api-types";
import { CopyButton } from "@/components/ui/copy-button";
import { Tabs } from "@/components/ui/tabs";
import { ErrorBox, Spinner } from "@/components/ui/states";

type Tab = "json" | "text";

/** Exactly what would be sent to the model: the messages array, or the prefixed text form. */
export function PayloadView({
  messages,
  text,
  textError,
  loading,
}: {
  messages: HistoryResponse["messages"] | undefined;
  text: string | undefined;
  textError: unknown;
  loading: boolean;
}) {
  const [tab, setTab] = useState<Tab>("json");
  const json = useMemo(() => (messages ? JSON.stringify(messages, null, 2) : ""), [messages]);
  const current = tab === "json" ? json : (text ?? "");
  const pre = "h-full overflow-auto px-4 py-3 font-mono text-[12px] leading-relaxed whitespace-pre-wrap break-words text-zinc-800 dark:text-zinc-200";

  return (
    <Tabs<Tab>
      tabs={[
        { key: "json", label: `Messages JSON${messages ? ` (${messages.length})` : ""}` },
        { key: "text", label: "Text" },
      ]}
      value={tab}
      onChange={setTab}
      actions={
        <>
          {loading && <Spinner className="text-indigo-500" />}
          <CopyButton text={current} label={tab === "json" ? "Copy JSON" : "Copy text"} testId={tab === "json" ? "copy-json" : "copy-text"} />
        </>
      }
    >
      {tab === "json" ? (
        <pre data-testid="payload-json" tabIndex={0} aria-label="Messages JSON" className={pre}>
          {json || " "}
        </pre>
      ) : textError && text === undefined ? (
        <div className="p-4">
          <ErrorBox title="Could not load the text form" error={textError} />
        </div>
      ) : (
        <pre data-testid="payload-text" tabIndex={0} aria-label="Prompt text" className={pre}>
          {text ?? ""}
        </pre>
      )}
    </Tabs>
  );
}
