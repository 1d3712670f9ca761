"use client";
import { WriteButton } from "@/components/ui/write-button";
import type { Conversation } from "@/client/api-types";
import { useSetStatus } from "@/client/hooks/conversations";
import { Spinner } from "@/components/ui/states";

/** Archive or restore one conversation (PATCH status), then the lists refetch. */
export function ArchiveButton({ conversation, size = "sm" }: { conversation: Pick<Conversation, "id" | "name" | "status">; size?: "sm" | "md" }) {
  const mutation = useSetStatus();
  const archived = conversation.status === "archived";
  const label = archived ? "Restore" : "Archive";
  return (
    <span className="inline-flex items-center gap-2">
      {mutation.isError && (
        <span role="alert" className="max-w-48 truncate text-xs text-red-600 dark:text-red-400" title={mutation.error.message}>
          {mutation.error.message}
        </span>
      )}
      <WriteButton
        size={size}
        variant="secondary"
        disabled={mutation.isPending}
        aria-label={`${label} ${conversation.name || "conversation"}`}
        data-testid="archive-toggle"
        onClick={() => mutation.mutate({ id: conversation.id, status: archived ? "active" : "archived" })}
      >
        {mutation.isPending && <Spinner />}
        {label}
      </WriteButton>
    </span>
  );
}
