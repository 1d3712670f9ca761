"use client";
import "@xyflow/react/dist/style.css";
import {
  Background,
  BackgroundVariant,
  ControlButton,
  Controls,
  getViewportForBounds,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Edge,
  type NodeMouseHandler,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Message } from "@/lib/messages/schemas";
import { UUID_NIL } from "@/lib/threads/uuid-nil";
import { layoutTree } from "@/lib/ui/tree-layout";
import { oneLine } from "@/lib/ui/format";
import { TURN_NODE_HEIGHT, TURN_NODE_WIDTH, TurnNodeComponent, type TurnNode, type TurnNodeData } from "./turn-node";

const COL = TURN_NODE_WIDTH + 28;
const ROW = TURN_NODE_HEIGHT + 36;
const NODE_TYPES = { turn: TurnNodeComponent };
/** How many newest thread turns the first view frames (not the whole tree). */
const FIT_TAIL = 10;
const HANDLES: NonNullable<TurnNode["handles"]> = [
  { type: "target", position: Position.Top, x: TURN_NODE_WIDTH / 2 - 0.5, y: 0, width: 1, height: 1 },
  { type: "source", position: Position.Bottom, x: TURN_NODE_WIDTH / 2 - 0.5, y: TURN_NODE_HEIGHT - 1, width: 1, height: 1 },
];
/** A short thread should not be blown up to giant boxes. */
const FIT_MAX_ZOOM = 1;

type Props = {
  conversationId: string;
  messages: Message[];
  /** Current thread, newest first. */
  threadIds: string[];
  leafId: string | null;
  onSelect: (id: string) => void;
};

export function MessageTree(props: Props) {
  return (
    <ReactFlowProvider>
      <TreeCanvas {...props} />
    </ReactFlowProvider>
  );
}

type Base = { id: string; parent: string | null; x: number; y: number; data: Omit<TurnNodeData, "inThread" | "isLeaf"> };

function TreeCanvas({ conversationId, messages, threadIds, leafId, onSelect }: Props) {
  const flow = useReactFlow();
  const [ready, setReady] = useState(false);
  const boxRef = useRef<HTMLDivElement>(null);

  // Layout and labels depend only on the messages: O(n) once per load.
  const base = useMemo(() => {
    const ids = new Set(messages.map((m) => m.id));
    const layout = layoutTree(messages, COL, ROW);
    return messages.map<Base>((m) => {
      const p = layout.positions.get(m.id)!;
      const marker = m.parent_message_id === UUID_NIL ? "nil" : m.parent_message_id && !ids.has(m.parent_message_id) ? "missing" : null;
      return {
        id: m.id,
        parent: m.tree_parent_id && ids.has(m.tree_parent_id) ? m.tree_parent_id : null,
        x: p.x,
        y: p.y,
        data: {
          label: oneLine(m.query, 90),
          tokens: m.tokens.o200k_base.query + m.tokens.o200k_base.answer,
          marker,
          hasImage: m.files.some((f) => f.type === "image"),
        },
      };
    });
  }, [messages]);

  const threadSet = useMemo(() => new Set(threadIds), [threadIds]);
  const selectedLeaf = leafId ?? threadIds[0] ?? null;

  // Reuse node/edge objects whose highlight did not change, so React Flow re-renders only those.
  const nodeCache = useRef(new Map<string, { key: string; node: TurnNode }>());
  const edgeCache = useRef(new Map<string, { key: string; edge: Edge }>());
  const { nodes, edges } = useMemo(() => {
    const nodes: TurnNode[] = new Array(base.length);
    const edges: Edge[] = [];
    const nc = nodeCache.current;
    const ec = edgeCache.current;
    for (let i = 0; i < base.length; i++) {
      const b = base[i];
      const inThread = threadSet.has(b.id);
      const isLeaf = b.id === selectedLeaf;
      const key = `${b.x},${b.y},${inThread ? 1 : 0}${isLeaf ? 1 : 0}`;
      let hit = nc.get(b.id);
      if (!hit || hit.key !== key || hit.node.data.label !== b.data.label) {
        hit = {
          key,
          node: {
            id: b.id,
            type: "turn",
            position: { x: b.x, y: b.y },
            // Fixed size and declared handles: React Flow otherwise mounts every node once
            // just to measure it, which defeats onlyRenderVisibleElements on a 5 000-node tree.
            width: TURN_NODE_WIDTH,
            height: TURN_NODE_HEIGHT,
            measured: { width: TURN_NODE_WIDTH, height: TURN_NODE_HEIGHT },
            handles: HANDLES,
            data: { ...b.data, inThread, isLeaf },
            draggable: false,
            connectable: false,
            selectable: false,
            zIndex: inThread ? 1 : 0,
          },
        };
        nc.set(b.id, hit);
      }
      nodes[i] = hit.node;
      if (b.parent) {
        const on = inThread && threadSet.has(b.parent);
        const ek = on ? "1" : "0";
        let e = ec.get(b.id);
        if (!e || e.key !== ek || e.edge.source !== b.parent) {
          e = { key: ek, edge: { id: `e-${b.id}`, source: b.parent, target: b.id, type: "smoothstep", className: on ? "in-thread" : undefined, zIndex: on ? 1 : 0, focusable: false, selectable: false } };
          ec.set(b.id, e);
        }
        edges.push(e.edge);
      }
    }
    return { nodes, edges };
  }, [base, threadSet, selectedLeaf]);

  const positions = useMemo(() => new Map(base.map((b) => [b.id, b] as const)), [base]);

  const SMALL_TREE = 40;

/** Frames the newest FIT_TAIL turns of the current thread. */
  const focusThreadEnd = useCallback(
    (duration = 0) => {
      const tail = threadIds.slice(0, FIT_TAIL).map((id) => positions.get(id)).filter((p): p is Base => !!p);
      // A small tree is shown whole, so every branch is in sight.
      if (!tail.length || positions.size <= SMALL_TREE) {
        void flow.fitView({ duration, maxZoom: FIT_MAX_ZOOM, padding: 0.15 });
        return;
      }
      const xs = tail.map((p) => p.x);
      const ys = tail.map((p) => p.y);
      const x = Math.min(...xs);
      // Extra room on top for the legend strip that overlays the canvas.
      const y = Math.min(...ys) - 48;
      const bounds = { x, y, width: Math.max(...xs) - x + TURN_NODE_WIDTH, height: Math.max(...ys) - y + TURN_NODE_HEIGHT };
      const box = boxRef.current;
      if (!box) return;
      void flow.setViewport(getViewportForBounds(bounds, box.clientWidth, box.clientHeight, 0.05, FIT_MAX_ZOOM, 0.2), { duration });
    },
    [flow, threadIds, positions],
  );

  // Fit once per conversation, when both the tree and its thread are known; later clicks keep the user's viewport.
  const fittedFor = useRef<string | null>(null);
  useEffect(() => {
    if (!ready || !threadIds.length || !base.length || fittedFor.current === conversationId) return;
    fittedFor.current = conversationId;
    const raf = requestAnimationFrame(() => focusThreadEnd(0));
    return () => cancelAnimationFrame(raf);
  }, [ready, threadIds, base, conversationId, focusThreadEnd]);

  const onNodeClick: NodeMouseHandler<TurnNode> = useCallback((_, node) => onSelect(node.id), [onSelect]);

  // React Flow focuses node wrappers but does not "click" them from the keyboard: Enter/Space do.
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key !== "Enter" && e.key !== " ") return;
    const el = e.target as HTMLElement;
    if (!el.classList?.contains("react-flow__node")) return;
    const id = el.getAttribute("data-id");
    if (id) {
      e.preventDefault();
      onSelect(id);
    }
  };

  return (
    <div ref={boxRef} className="h-full w-full" onKeyDown={onKeyDown}>
      <ReactFlow<TurnNode, Edge>
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        onNodeClick={onNodeClick}
        onInit={() => setReady(true)}
        onlyRenderVisibleElements
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        edgesFocusable={false}
        minZoom={0.05}
        maxZoom={1.5}
        colorMode="system"
        aria-label="Message tree"
      >
        <Background variant={BackgroundVariant.Dots} gap={20} size={1} className="!text-zinc-300 dark:!text-zinc-800" />
        <Controls showInteractive={false} position="bottom-right">
          <ControlButton onClick={() => focusThreadEnd(300)} title="Go to the end of the selected thread" aria-label="Go to the end of the selected thread">
            <svg viewBox="0 0 16 16" aria-hidden>
              <circle cx="8" cy="8" r="3" fill="currentColor" />
              <circle cx="8" cy="8" r="6.25" fill="none" stroke="currentColor" strokeWidth="1.5" />
            </svg>
          </ControlButton>
        </Controls>
      </ReactFlow>
    </div>
  );
}
