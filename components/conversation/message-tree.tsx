"use client";
import "@xyflow/react/dist/style.css";
import {
  Background,
  BackgroundVariant,
  ControlButton,
  Controls,
  getViewportForBounds,
  MiniMap,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Edge,
  type NodeMouseHandler,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { HistoryResponse, Message } from "@/lib/messages/schemas";
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
  /** The previewed window: which turns it keeps, and each thread turn's cost as the transcript counts it. */
  history?: HistoryResponse;
};

export function MessageTree(props: Props) {
  return (
    <ReactFlowProvider>
      <TreeCanvas {...props} />
    </ReactFlowProvider>
  );
}

type Base = {
  id: string;
  index: number;
  parent: string | null;
  x: number;
  y: number;
  raw: Message["tokens"];
  data: Omit<TurnNodeData, "inThread" | "isLeaf" | "tokens" | "windowState" | "windowStart">;
};

function TreeCanvas({ conversationId, messages, threadIds, leafId, onSelect, history }: Props) {
  const flow = useReactFlow();
  const [ready, setReady] = useState(false);
  const [focusId, setFocusId] = useState<string | null>(null);
  const boxRef = useRef<HTMLDivElement>(null);

  // Layout and labels depend only on the messages: O(n) once per load.
  const layout = useMemo(() => {
    const ids = new Set(messages.map((m) => m.id));
    const layout = layoutTree(messages, COL, ROW);
    const nodes = messages.map<Base>((m, index) => {
      const p = layout.positions.get(m.id)!;
      const marker = m.parent_message_id === UUID_NIL ? "nil" : m.parent_message_id && !ids.has(m.parent_message_id) ? "missing" : null;
      return {
        id: m.id,
        index,
        raw: m.tokens,
        parent: m.tree_parent_id && ids.has(m.tree_parent_id) ? m.tree_parent_id : null,
        x: p.x,
        y: p.y,
        data: {
          label: oneLine(m.query, 90),
          marker,
          hasImage: m.files.some((f) => f.type === "image"),
        },
      };
    });
    return { nodes, children: layout.children };
  }, [messages]);
  const base = layout.nodes;

  const threadSet = useMemo(() => new Set(threadIds), [threadIds]);
  // Thread turns cost what the window counts (the chat formula, the chosen model's encoding);
  // other turns show their raw text in that same encoding.
  const encoding: "o200k_base" | "cl100k_base" = history?.encoding === "cl100k_base" ? "cl100k_base" : "o200k_base";
  const windowInfo = useMemo(() => {
    const tokens = new Map((history?.turn_tokens ?? []).map((t) => [t.id, t.tokens] as const));
    const inWindow = new Set(history?.thread_message_ids ?? []);
    const dropped = new Set(history?.dropped_message_ids ?? []);
    const placeholder = history?.placeholder_message_id ?? null;
    const state = (id: string): TurnNodeData["windowState"] =>
      !history || !threadSet.has(id) ? null : id === placeholder ? "placeholder" : dropped.has(id) ? "dropped" : inWindow.has(id) ? "kept" : "beyond-limit";
    // thread_message_ids is newest first: the last kept one is where the window starts.
    const kept = (history?.thread_message_ids ?? []).filter((id) => !dropped.has(id) && id !== placeholder);
    const start = history && (history.dropped_message_ids.length > 0 || kept.length < threadIds.length) ? (kept.at(-1) ?? null) : null;
    return { tokens, state, start };
  }, [history, threadSet, threadIds.length]);
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
      const tokens = windowInfo.tokens.get(b.id) ?? b.raw[encoding].query + b.raw[encoding].answer;
      const windowState = windowInfo.state(b.id);
      const windowStart = windowInfo.start === b.id;
      const focusable = b.id === (focusId ?? selectedLeaf);
      const key = `${b.x},${b.y},${inThread ? 1 : 0}${isLeaf ? 1 : 0},${tokens},${windowState},${windowStart ? 1 : 0},${focusable ? 1 : 0}`;
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
            data: { ...b.data, inThread, isLeaf, tokens, windowState, windowStart },
            ariaRole: "button",
            // One tab stop for the whole tree (the leaf, or the node the arrow keys reached).
            focusable,
            domAttributes: isLeaf ? { "aria-current": "true" } : undefined,
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
  }, [base, threadSet, selectedLeaf, windowInfo, encoding, focusId]);

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

  /** Moves keyboard focus to a node, panning it into view first (only visible nodes are in the DOM). */
  const focusNode = useCallback(
    (id: string) => {
      const p = positions.get(id);
      if (!p) return;
      setFocusId(id);
      void flow.setCenter(p.x + TURN_NODE_WIDTH / 2, p.y + TURN_NODE_HEIGHT / 2, { zoom: Math.max(flow.getZoom(), 0.8), duration: 0 });
      const tryFocus = (n: number) =>
        requestAnimationFrame(() => {
          const el = boxRef.current?.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`);
          if (el) el.focus({ preventScroll: true });
          else if (n > 0) tryFocus(n - 1);
        });
      tryFocus(10);
    },
    [flow, positions],
  );

  // Enter/Space select a node; arrows move to the parent (up), a child (down, the thread's first) and siblings.
  const onKeyDown = (e: React.KeyboardEvent) => {
    const el = e.target as HTMLElement;
    if (!el.classList?.contains("react-flow__node")) return;
    const id = el.getAttribute("data-id");
    if (!id) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      onSelect(id);
      return;
    }
    const me = positions.get(id);
    if (!me) return;
    let next: string | undefined;
    if (e.key === "ArrowUp") next = me.parent ?? undefined;
    else if (e.key === "ArrowDown") {
      const kids = layout.children.get(id) ?? [];
      next = kids.find((k) => threadSet.has(k)) ?? kids[0];
    } else if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      const siblings = me.parent ? (layout.children.get(me.parent) ?? []) : base.filter((b) => !b.parent).map((b) => b.id);
      const i = siblings.indexOf(id);
      next = siblings[i + (e.key === "ArrowRight" ? 1 : -1)];
    } else return;
    e.preventDefault();
    if (next) focusNode(next);
  };

  return (
    <div ref={boxRef} className="h-full w-full" onKeyDown={onKeyDown} data-testid="tree-root" data-encoding={encoding}>
      <ReactFlow<TurnNode, Edge>
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        onNodeClick={onNodeClick}
        onInit={() => setReady(true)}
        onlyRenderVisibleElements
        nodesDraggable={false}
        nodesConnectable={false}
        nodesFocusable
        elementsSelectable={false}
        edgesFocusable={false}
        minZoom={0.05}
        maxZoom={1.5}
        colorMode="system"
        aria-label="Message tree"
      >
        <MiniMap
          pannable
          zoomable
          ariaLabel="Minimap of the whole tree"
          position="bottom-left"
          nodeColor={(n) => ((n as TurnNode).data.isLeaf ? "#4f46e5" : (n as TurnNode).data.inThread ? "#a5b4fc" : "#d4d4d8")}
          className="!h-28 !w-40 max-sm:!hidden"
          data-testid="tree-minimap"
        />
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
