"use client";
import { Handle, Position, type Node, type NodeProps } from "@xyflow/react";
import { memo } from "react";
import { formatCompact, formatInt, plural } from "@/client/ui/format";
import { TURN_NODE_HEIGHT, TURN_NODE_WIDTH } from "./turn-node";

export type RunNodeData = {
  count: number;
  tokens: number;
  inThread: boolean;
  /** Turns of the run the previewed window keeps / drops. */
  kept: number;
  dropped: number;
};
export type RunNode = Node<RunNodeData, "run">;

const hiddenHandle = "!pointer-events-none !size-1 !min-h-0 !min-w-0 !border-0 !bg-transparent";

/** A folded linear run of turns: "… 120 turns"; a click (or Enter) draws them again. */
function RunNodeView({ id, data }: NodeProps<RunNode>) {
  const tone = data.inThread
    ? "border-indigo-300 bg-indigo-50/70 text-indigo-900 dark:border-indigo-700 dark:bg-indigo-950/60 dark:text-indigo-100"
    : "border-zinc-300 bg-zinc-50 text-zinc-700 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-300";
  return (
    <div
      data-testid="tree-run"
      data-id={id}
      data-count={data.count}
      data-in-thread={data.inThread ? "true" : "false"}
      title={`${plural(data.count, "turn")} in a row without branches: click to show them`}
      className={`relative flex cursor-pointer flex-col items-center justify-center rounded-lg border-2 border-dotted px-2.5 text-center hover:border-indigo-500 ${tone}`}
      style={{ width: TURN_NODE_WIDTH, height: TURN_NODE_HEIGHT }}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} className={hiddenHandle} />
      <span className="text-[15px] font-semibold tabular-nums">… {plural(data.count, "turn")}</span>
      <span className="text-xs tabular-nums opacity-90">
        {formatCompact(data.tokens)} tok
        {data.dropped > 0 && ` · ${formatInt(data.dropped)} dropped`}
        {data.kept > 0 && ` · ${formatInt(data.kept)} in window`} · expand
      </span>
      <span className="sr-only">{data.inThread ? ", on the selected thread" : ""}, folded: press Enter to show them</span>
      <Handle type="source" position={Position.Bottom} isConnectable={false} className={hiddenHandle} />
    </div>
  );
}

export const RunNodeComponent = memo(RunNodeView);
