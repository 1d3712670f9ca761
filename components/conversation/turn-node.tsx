"use client";
import { Handle, Position, type Node, type NodeProps } from "@xyflow/react";
import { memo } from "react";
import { formatCompact } from "@/client/ui/format";
import type { ParentMarker } from "@/client/ui/tree-parent";

export type TurnNodeData = {
  label: string;
  tokens: number;
  inThread: boolean;
  isLeaf: boolean;
  /** "nil": parent is UUID_NIL, drawn under the previous turn (Dify's legacy "previous row"); "missing": parent id not in this conversation; null for a root (client/ui/tree-parent.ts). */
  marker: ParentMarker;
  hasImage: boolean;
  /** Where the turn stands in the previewed window (null: not on the selected thread or not computed yet). */
  windowState: "kept" | "dropped" | "placeholder" | "beyond-limit" | null;
  /** The oldest kept turn: the window starts here. */
  windowStart: boolean;
};
export type TurnNode = Node<TurnNodeData, "turn">;

export const TURN_NODE_WIDTH = 208;
export const TURN_NODE_HEIGHT = 72;

const hiddenHandle = "!pointer-events-none !size-1 !min-h-0 !min-w-0 !border-0 !bg-transparent";

// Deliberately light: thousands of these may exist, and only the visible ones render.
function TurnNodeView({ id, data }: NodeProps<TurnNode>) {
  const outside = data.windowState === "dropped" || data.windowState === "beyond-limit" || data.windowState === "placeholder";
  // Outside the window: dashed and grey (no opacity, so the text keeps its contrast).
  const tone = data.isLeaf
    ? `border-indigo-500 bg-indigo-600 text-white shadow-md shadow-indigo-500/20 ${outside ? "border-dashed" : ""}`
    : outside
      ? "border-dashed border-zinc-400 bg-zinc-100 text-zinc-600 dark:border-zinc-600 dark:bg-zinc-900/60 dark:text-zinc-400"
      : data.inThread
        ? "border-indigo-300 bg-indigo-50 text-zinc-900 dark:border-indigo-700 dark:bg-indigo-950 dark:text-zinc-100"
        : "border-zinc-200 bg-white text-zinc-700 hover:border-zinc-400 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-300 dark:hover:border-zinc-500";
  return (
    <div
      data-testid="tree-node"
      data-id={id}
      data-in-thread={data.inThread ? "true" : "false"}
      data-leaf={data.isLeaf ? "true" : "false"}
      data-marker={data.marker ?? undefined}
      data-tokens={data.tokens}
      data-window={data.windowState ?? undefined}
      data-window-start={data.windowStart ? "true" : undefined}
      title={data.label}
      className={`relative flex cursor-pointer flex-col justify-center rounded-lg border px-2.5 py-1.5 text-left transition-colors ${tone}`}
      style={{ width: TURN_NODE_WIDTH, height: TURN_NODE_HEIGHT }}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} className={hiddenHandle} />
      {data.windowStart && (
        <span className="absolute -top-2.5 left-2 rounded-full bg-emerald-700 px-1.5 py-px text-[10px] font-semibold text-white" data-testid="tree-window-start">
          window starts
        </span>
      )}
      <span className="line-clamp-2 text-[15px] leading-tight">{data.label || <em className="opacity-60">(empty query)</em>}</span>
      <span className={`mt-0.5 flex items-center gap-1.5 text-xs tabular-nums ${data.isLeaf ? "text-indigo-50" : "text-zinc-600 dark:text-zinc-400"}`}>
        {formatCompact(data.tokens)} tok
        {data.windowState && data.windowState !== "kept" && <span className="font-medium">· {data.windowState === "beyond-limit" ? "past limit" : data.windowState}</span>}
        {data.hasImage && <span aria-label="has image">▣</span>}
      </span>
      {data.marker && (
        <span
          className={`absolute -top-2 -right-2 rounded-full px-1.5 py-px text-[9px] font-semibold ring-2 ring-white dark:ring-zinc-950 ${
            data.marker === "nil" ? "bg-amber-400 text-amber-950" : "bg-red-500 text-white"
          }`}
          title={data.marker === "nil" ? "parent_message_id is UUID_NIL: drawn under the previous turn (Dify legacy)" : "parent_message_id points to a message that is not in this conversation"}
          data-testid="tree-node-marker"
        >
          {data.marker === "nil" ? "NIL" : "?"}
        </span>
      )}
      <span className="sr-only">{turnNodeStates(data)}</span>
      <Handle type="source" position={Position.Bottom} isConnectable={false} className={hiddenHandle} />
    </div>
  );
}

export const TurnNodeComponent = memo(TurnNodeView);

/** What the colours say, in words: read after the node's visible text (its accessible name is its content). */
export function turnNodeStates(d: TurnNodeData): string {
  const parts: string[] = [];
  if (d.isLeaf) parts.push("selected leaf");
  else if (d.inThread) parts.push("on the selected thread");
  if (d.windowState === "kept") parts.push("in the window");
  if (d.windowState === "dropped") parts.push("dropped from the window");
  if (d.windowState === "placeholder") parts.push("in-flight placeholder, not sent");
  if (d.windowState === "beyond-limit") parts.push("past message_limit");
  if (d.windowStart) parts.push("the window starts here");
  if (d.marker === "nil") parts.push("UUID_NIL parent");
  if (d.marker === "missing") parts.push("parent missing");
  return parts.length ? `, ${parts.join(", ")}` : "";
}
