"use client";
import Link from "next/link";
import { useMemo, useState } from "react";
import { useReplay } from "@/client/hooks/replay";
import { replayBody } from "@/client/ui/replay-model";
import { replayHref } from "@/client/ui/replay-url";
import { Button } from "@/components/ui/button";
import { ErrorBox } from "@/components/ui/states";
import { WhyPanel } from "./why-panel";

/**
 * "Why not this memory?" on pages outside the replay (a memory's page) that carry the
 * replayed turn in `?replay=`: asked here, answered here, for that turn.
 */
export function ReplayWhyCard({ memoryId, at }: { memoryId: string; at: { conversation: string; turn: string } }) {
  const [asked, setAsked] = useState(false);
  const body = useMemo(() => (asked ? replayBody(at.conversation, at.turn, { memory: memoryId }) : null), [asked, at.conversation, at.turn, memoryId]);
  const replay = useReplay(body);
  const r = replay.data;
  const href = replayHref({ ...at, memory: memoryId });
  if (!asked) {
    return (
      <div className="flex flex-wrap items-center gap-2 rounded-xl border border-indigo-200 bg-indigo-50/60 px-4 py-3 text-sm dark:border-indigo-900 dark:bg-indigo-950/30" data-testid="replay-why-card">
        <span className="text-zinc-800 dark:text-zinc-200">You came from a replayed turn.</span>
        <Button size="sm" variant="primary" onClick={() => setAsked(true)} data-testid="ask-why-not">
          Why not this memory in that turn?
        </Button>
        <Link href={href} className="ml-auto text-xs font-medium text-indigo-700 hover:underline dark:text-indigo-300">
          Back to the replay
        </Link>
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-2" data-testid="replay-why-card">
      {replay.isError ? (
        <ErrorBox title="Could not replay the turn" error={replay.error} onRetry={() => replay.refetch()} />
      ) : r ? (
        <WhyPanel memoryId={memoryId} result={r} pending={replay.isFetching} since={r.changes_since.memories.find((c) => c.memory_id === memoryId)} onClose={() => setAsked(false)} />
      ) : (
        <WhyPanelLoading />
      )}
      <Link href={href} className="self-start text-xs font-medium text-indigo-700 hover:underline dark:text-indigo-300">
        Open the replay of that turn
      </Link>
    </div>
  );
}

function WhyPanelLoading() {
  return (
    <p className="rounded-xl border border-indigo-200 px-4 py-3 text-sm text-zinc-600 dark:border-indigo-900 dark:text-zinc-400" aria-busy="true">
      Replaying the turn to explain this memory…
    </p>
  );
}
