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
import type { HistoryResponse, Message } from "@/client/api-types";
import { layoutTree } from "@/client/ui/tree-layout";
import { parentMarker } from "@/client/ui/tree-parent";
import { branchLeaves, collapseRuns } from "@/client/ui/tree-collapse";
import { oneLine } from "@/client/ui/format";
import { TURN_NODE_HEIGHT, TURN_NODE_WIDTH, TurnNodeComponent, type TurnNode, type TurnNodeData } from "./turn-node";
import { RunNodeComponent, type RunNode, type RunNodeData } from "./run-node";
import { BranchList } from "./branch-list";
import { TreeLegend } from "./tree-legend";

const COL = TURN_NODE_WIDTH + 28;
const ROW = TURN_NODE_HEIGHT + 28;
const NODE_TYPES = { turn: TurnNodeComponent, run: RunNodeComponent };
type TreeNode = TurnNode | RunNode;
/** How many newest thread turns the first view frames (not the whole tree). */
const FIT_TAIL = 10;
const HANDLES: NonNullable<TurnNode["handles"]> = [
  { type: "target", position: Position.Top, x: TURN_NODE_WIDTH / 2 - 0.5, y: 0, width: 1, height: 1 },
  { type: "source", position: Position.Bottom, x: TURN_NODE_WIDTH / 2 - 0.5, y: TURN_NODE_HEIGHT - 1, width: 1, height: 1 },
];
/** A short thread should not be blown up to giant boxes. */
const FIT_MAX_ZOOM = 1;
/** The first view of a long thread never goes below this zoom: 15 px labels stay at least 13.5 px on screen. */
export const READABLE_ZOOM = 0.9;
/** A small tree (a few branches) is shown whole down to this zoom (labels 10.5 px), so every branch is in sight. */
const SMALL_TREE_ZOOM = 0.7;
/** Newest thread turns that are never folded into a run (the ones the first view frames, and a few more). */
const PINNED_TAIL = FIT_TAIL + 2;

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
  /** Set on a folded run: its turns, oldest first. */
  members?: string[];
};

function TreeCanvas({ conversationId, messages, threadIds, leafId, onSelect, history }: Props) {
  const flow = useReactFlow();
  const [ready, setReady] = useState(false);
  const [focusId, setFocusId] = useState<string | null>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  /** The canvas (below the legend strip): the first view is fitted to its size. */
  const canvasRef = useRef<HTMLDivElement>(null);

  // The whole tree's shape depends only on the messages: O(n) once per load.
  const full = useMemo(() => {
    const ids = new Set(messages.map((m) => m.id));
    const layout = layoutTree(messages, COL, ROW);
    const byId = new Map(messages.map((m) => [m.id, m] as const));
    const labels = new Map(
      messages.map((m) => {
        const marker = parentMarker(m, conversationId, ids);
        return [m.id, { label: oneLine(m.query, 90), marker, hasImage: m.files.some((f) => f.type === "image") } as Base["data"]] as const;
      }),
    );
    const leaves = branchLeaves(messages, layout.children, (id) => layout.positions.get(id)?.depth ?? 0);
    return { layout, byId, labels, leaves };
  }, [messages, conversationId]);
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

  // Long linear runs fold into "… N turns" nodes. What the page is about stays drawn: the selected
  // leaf, the thread's newest turns, the turns in the window and where it starts, the focused node.
  // Turns of runs the user expanded: pinned one by one, so a later split of that run does not fold them again.
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const pinned = useMemo(() => {
    const p = new Set<string>(expanded);
    for (const id of threadIds.slice(0, PINNED_TAIL)) p.add(id);
    if (selectedLeaf) p.add(selectedLeaf);
    if (windowInfo.start) p.add(windowInfo.start);
    if (focusId) p.add(focusId);
    // The kept turns (not the dropped ones: with message_limit 500 those can be hundreds).
    const dropped = new Set(history?.dropped_message_ids ?? []);
    for (const id of history?.thread_message_ids ?? []) if (!dropped.has(id)) p.add(id);
    return p;
  }, [expanded, threadIds, selectedLeaf, windowInfo.start, focusId, history]);
  const layout = useMemo(() => {
    const folded = collapseRuns(messages, full.layout.children, pinned);
    // The selected thread (its runs included) is the layout's spine: one straight column.
    const spine = new Set(threadIds);
    for (const item of folded.items) if (item.run && spine.has(item.run.members[item.run.members.length - 1])) spine.add(item.id);
    const reduced = layoutTree(folded.items, COL, ROW, spine);
    const nodes = folded.items.map<Base>((item, index) => {
      const p = reduced.positions.get(item.id)!;
      const m = full.byId.get(item.id);
      return {
        id: item.id,
        index,
        raw: m ? m.tokens : (undefined as unknown as Message["tokens"]),
        parent: item.tree_parent_id,
        x: p.x,
        y: p.y,
        data: full.labels.get(item.id) ?? { label: "", marker: null, hasImage: false },
        members: item.run?.members,
      };
    });
    return { nodes, children: reduced.children, hiddenIn: folded.hiddenIn };
  }, [messages, full, pinned, threadIds]);
  const base = layout.nodes;

  const positions = useMemo(() => new Map(base.map((b) => [b.id, b] as const)), [base]);

  // Reuse node/edge objects whose highlight did not change, so React Flow re-renders only those.
  const nodeCache = useRef(new Map<string, { key: string; node: TurnNode }>());
  const edgeCache = useRef(new Map<string, { key: string; edge: Edge }>());
  const { nodes, edges } = useMemo(() => {
    const nodes: TreeNode[] = new Array(base.length);
    const edges: Edge[] = [];
    const nc = nodeCache.current;
    const ec = edgeCache.current;
    for (let i = 0; i < base.length; i++) {
      const b = base[i];
      if (b.members) {
        nodes[i] = runNode(b, threadSet, windowInfo.state, full.byId, encoding, b.id === focusId);
        if (b.parent) edges.push(edgeOf(ec, b.id, b.parent, nodes[i].data.inThread && isOnThread(b.parent)));
        continue;
      }
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
      if (b.parent) edges.push(edgeOf(ec, b.id, b.parent, inThread && isOnThread(b.parent)));
    }
    return { nodes, edges };

    // A run is on the thread when its last turn is (the leaf is never folded, so a run is all in or all out).
    function isOnThread(id: string) {
      const run = positions.get(id)?.members;
      return threadSet.has(run ? run[run.length - 1] : id);
    }
  }, [base, positions, threadSet, selectedLeaf, windowInfo, encoding, focusId, full]);

  const SMALL_TREE = 40;

  /**
   * The first view: the whole tree when it fits at a readable zoom, else the newest FIT_TAIL turns of
   * the selected thread, never below READABLE_ZOOM (the leaf then sits near the bottom edge).
   */
  const focusThreadEnd = useCallback(
    (duration = 0) => {
      const box = canvasRef.current;
      if (!box) return;
      const w = box.clientWidth;
      // In a narrow pane (1024 px screens) a node centred at the bottom lands under the minimap
      // (bottom right): the view then ends above it. Hidden below 640 px, it takes no room there.
      const mm = box.querySelector<HTMLElement>(".react-flow__minimap");
      const boxRect = box.getBoundingClientRect();
      const mmRect = mm && mm.offsetWidth > 0 ? mm.getBoundingClientRect() : null;
      const underMinimap = !!mmRect && w / 2 + (TURN_NODE_WIDTH * READABLE_ZOOM) / 2 > mmRect.left - boxRect.left;
      const h = underMinimap ? Math.max(TURN_NODE_HEIGHT * 2, mmRect!.top - boxRect.top - 8) : box.clientHeight;
      const boundsOf = (ps: Base[]) => {
        const xs = ps.map((p) => p.x);
        const ys = ps.map((p) => p.y);
        const x = Math.min(...xs);
        const y = Math.min(...ys);
        return { x, y, width: Math.max(...xs) - x + TURN_NODE_WIDTH, height: Math.max(...ys) - y + TURN_NODE_HEIGHT };
      };
      // The branch list's toggle overlays the canvas's top: the view is fitted below it, in screen
      // pixels whatever the zoom (a margin in flow units shrank with the zoom). The legend is a
      // strip above the canvas (as an overlay it covered the top node: issue 40).
      const toggle = box.querySelector<HTMLElement>('[data-testid="branch-list-toggle"]');
      const top = toggle && toggle.offsetHeight > 0 ? Math.max(0, toggle.getBoundingClientRect().bottom - boxRect.top + 4) : 0;
      const below = (vp: { x: number; y: number; zoom: number }) => ({ ...vp, y: vp.y + top });
      const whole = below(getViewportForBounds(boundsOf(base), w, Math.max(TURN_NODE_HEIGHT, h - top), 0.05, FIT_MAX_ZOOM, 0.1));
      const tail = threadIds.slice(0, FIT_TAIL).map((id) => positions.get(id)).filter((p): p is Base => !!p);
      if (!tail.length || whole.zoom >= READABLE_ZOOM || (base.length <= SMALL_TREE && whole.zoom >= SMALL_TREE_ZOOM)) {
        void flow.setViewport(whole, { duration });
        return;
      }
      const vp = below(getViewportForBounds(boundsOf(tail), w, Math.max(TURN_NODE_HEIGHT, h - top), 0.05, FIT_MAX_ZOOM, 0.2));
      if (vp.zoom >= READABLE_ZOOM) {
        void flow.setViewport(vp, { duration });
        return;
      }
      const zoom = READABLE_ZOOM;
      const leaf = tail[0];
      const x = w / 2 - (leaf.x + TURN_NODE_WIDTH / 2) * zoom;
      const y = h - (underMinimap ? 8 : 56) - (leaf.y + TURN_NODE_HEIGHT) * zoom;
      void flow.setViewport({ x, y, zoom }, { duration });
    },
    [flow, threadIds, positions, base],
  );

  // Fit once per conversation, when both the tree and its thread are known; later clicks keep the user's viewport.
  const fittedFor = useRef<string | null>(null);
  /** True while the view is the automatic one (the first view, or "go to the end"); a pan, zoom, click or jump ends it. */
  const viewIsAuto = useRef(true);
  // The same, as state: the root says `data-fitted` once its first view is set, and from then on
  // only the user moves the viewport (tests wait on it before they read or drag the view).
  const [fittedId, setFittedId] = useState<string | null>(null);
  useEffect(() => {
    if (!ready || !threadIds.length || !base.length || fittedFor.current === conversationId) return;
    // Marked done inside the frame: the layout changes again as the window arrives (its turns are
    // pinned), which cancels a pending frame; the next run of this effect must then still fit.
    const raf = requestAnimationFrame(() => {
      fittedFor.current = conversationId;
      viewIsAuto.current = true;
      focusThreadEnd(0);
      setFittedId(conversationId);
    });
    return () => cancelAnimationFrame(raf);
  }, [ready, threadIds, base, conversationId, focusThreadEnd]);

  // The layout moves under the view whenever the folding changes: the window arrives or a knob
  // moves (its kept turns are pinned, the rest fold into runs), a run is expanded. Left alone, the
  // viewport keeps pointing where the nodes were, often at empty canvas (max_token_limit 500 on
  // 640 turns folded 614 of them away from it). While the view is still the automatic one, it is
  // set again for the new layout; once the user moved it (or a jump did), the selected leaf keeps
  // its place on screen instead.
  const tailKey = useMemo(() => {
    const parts: string[] = [];
    for (const id of threadIds.slice(0, FIT_TAIL)) {
      const p = positions.get(id);
      if (p) parts.push(`${p.x},${p.y}`);
    }
    return `${base.length}|${parts.join(";")}`;
  }, [threadIds, positions, base.length]);
  const lastLayout = useRef<{ key: string; positions: ReadonlyMap<string, Base> } | null>(null);
  useEffect(() => {
    const before = lastLayout.current;
    lastLayout.current = { key: tailKey, positions };
    if (fittedFor.current !== conversationId || !before || before.key === tailKey) return;
    if (viewIsAuto.current) {
      focusThreadEnd(0);
      return;
    }
    const now = selectedLeaf ? positions.get(selectedLeaf) : undefined;
    const then = selectedLeaf ? before.positions.get(selectedLeaf) : undefined;
    if (now && then && (now.x !== then.x || now.y !== then.y)) {
      const vp = flow.getViewport();
      void flow.setViewport({ x: vp.x - (now.x - then.x) * vp.zoom, y: vp.y - (now.y - then.y) * vp.zoom, zoom: vp.zoom });
    }
  }, [tailKey, positions, selectedLeaf, conversationId, flow, focusThreadEnd]);

  /** Draws a folded run's turns again; `then` is the node to centre (and focus, from the keyboard) once laid out. */
  const [pending, setPending] = useState<{ id: string; focus: boolean; leaf?: boolean } | null>(null);
  const expandRun = useCallback(
    (runId: string, focus: boolean) => {
      const run = positions.get(runId)?.members;
      if (!run) return;
      setExpanded((prev) => new Set([...prev, ...run]));
      setPending({ id: run[0], focus });
    },
    [positions],
  );

  const endAutoView = useCallback(() => {
    viewIsAuto.current = false;
  }, []);

  const onNodeClick: NodeMouseHandler<TreeNode> = useCallback(
    (_, node) => {
      // The clicked node stays under the pointer as the tree re-folds around the new thread.
      viewIsAuto.current = false;
      if (node.type === "run") expandRun(node.id, false);
      else onSelect(node.id);
    },
    [onSelect, expandRun],
  );

  /** Moves keyboard focus to a node, panning it into view first (only visible nodes are in the DOM). */
  const focusNode = useCallback(
    (id: string) => {
      const p = positions.get(id);
      if (!p) return;
      viewIsAuto.current = false;
      setFocusId(id);
      void flow.setCenter(p.x + TURN_NODE_WIDTH / 2, p.y + TURN_NODE_HEIGHT / 2, { zoom: Math.max(flow.getZoom(), READABLE_ZOOM), duration: 0 });
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

  // A jump (branch list, expanded run) waits until the target is laid out (a jumped-to leaf: until
  // it is the selected leaf, whose pins re-fold the tree), then centres it.
  useEffect(() => {
    if (!pending) return;
    // The new thread's window pins other turns and re-folds the tree (moving the leaf), so wait for it too.
    const windowOf = (id: string) => !!history && (history.thread_message_ids.includes(id) || history.placeholder_message_id === id);
    if (pending.leaf && (selectedLeaf !== pending.id || (history && !windowOf(pending.id)))) return;
    const p = positions.get(pending.id);
    if (!p) return;
    setPending(null);
    viewIsAuto.current = false;
    if (pending.focus) focusNode(pending.id);
    else void flow.setCenter(p.x + TURN_NODE_WIDTH / 2, p.y + TURN_NODE_HEIGHT / 2, { zoom: Math.max(flow.getZoom(), READABLE_ZOOM), duration: 200 });
  }, [pending, positions, flow, focusNode, selectedLeaf, history]);

  const jumpToLeaf = useCallback(
    (id: string) => {
      onSelect(id);
      setPending({ id, focus: false, leaf: true });
    },
    [onSelect],
  );

  // Enter/Space select a node; arrows move to the parent (up), a child (down, the thread's first) and siblings.
  const onKeyDown = (e: React.KeyboardEvent) => {
    const el = e.target as HTMLElement;
    if (!el.classList?.contains("react-flow__node")) return;
    const id = el.getAttribute("data-id");
    if (!id) return;
    const me = positions.get(id);
    if (!me) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      if (me.members) expandRun(id, true);
      else onSelect(id);
      return;
    }
    let next: string | undefined;
    if (e.key === "ArrowUp") next = me.parent ?? undefined;
    else if (e.key === "ArrowDown") {
      const kids = layout.children.get(id) ?? [];
      next = kids.find((k) => threadSet.has(positions.get(k)?.members?.at(-1) ?? k)) ?? kids[0];
    } else if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      const siblings = me.parent ? (layout.children.get(me.parent) ?? []) : base.filter((b) => !b.parent).map((b) => b.id);
      const i = siblings.indexOf(id);
      next = siblings[i + (e.key === "ArrowRight" ? 1 : -1)];
    } else return;
    e.preventDefault();
    if (next) focusNode(next);
  };

  return (
    <div ref={boxRef} className="flex h-full w-full flex-col" onKeyDown={onKeyDown} data-testid="tree-root" data-encoding={encoding} data-fitted={fittedId === conversationId}>
      <div className="shrink-0 px-2 pt-2">
        <TreeLegend turns={messages.length} threadLength={threadIds.length} folded={layout.hiddenIn.size} />
      </div>
      <div ref={canvasRef} className="relative min-h-0 flex-1">
      <div className="pointer-events-none absolute inset-x-2 top-2 bottom-32 z-10 flex flex-col items-stretch gap-1.5">
        <BranchList leaves={full.leaves} selected={selectedLeaf} onJump={jumpToLeaf} />
      </div>
      <ReactFlow<TreeNode, Edge>
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        onNodeClick={onNodeClick}
        onInit={() => setReady(true)}
        // A pan or zoom by the user (an event; programmatic moves have none) ends the automatic view.
        onMoveStart={(event) => {
          if (event) viewIsAuto.current = false;
        }}
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
          // Bottom right: the first view puts the leaf at the bottom centre, clear of it.
          position="bottom-right"
          nodeColor={(n) => (n.type === "run" ? "#71717a" : (n as TurnNode).data.isLeaf ? "#4f46e5" : (n as TurnNode).data.inThread ? "#a5b4fc" : "#d4d4d8")}
          className="!h-28 !w-40 max-sm:!hidden"
          data-testid="tree-minimap"
        />
        <Background variant={BackgroundVariant.Dots} gap={20} size={1} className="!text-zinc-300 dark:!text-zinc-800" />
        <Controls
          showInteractive={false}
          position="bottom-left"
          onZoomIn={endAutoView}
          onZoomOut={endAutoView}
          onFitView={endAutoView}
        >
          <ControlButton
            onClick={() => {
              viewIsAuto.current = true;
              focusThreadEnd(300);
            }} title="Go to the end of the selected thread" aria-label="Go to the end of the selected thread">
            <svg viewBox="0 0 16 16" aria-hidden>
              <circle cx="8" cy="8" r="3" fill="currentColor" />
              <circle cx="8" cy="8" r="6.25" fill="none" stroke="currentColor" strokeWidth="1.5" />
            </svg>
          </ControlButton>
        </Controls>
      </ReactFlow>
      </div>
    </div>
  );
}

function edgeOf(cache: Map<string, { key: string; edge: Edge }>, target: string, source: string, on: boolean): Edge {
  const key = `${source}${on ? 1 : 0}`;
  let e = cache.get(target);
  if (!e || e.key !== key) {
    e = { key, edge: { id: `e-${target}`, source, target, type: "smoothstep", className: on ? "in-thread" : undefined, zIndex: on ? 1 : 0, focusable: false, selectable: false } };
    cache.set(target, e);
  }
  return e.edge;
}

function runNode(
  b: Base,
  threadSet: ReadonlySet<string>,
  state: (id: string) => TurnNodeData["windowState"],
  byId: ReadonlyMap<string, Message>,
  encoding: "o200k_base" | "cl100k_base",
  focusable: boolean,
): RunNode {
  const members = b.members!;
  let tokens = 0;
  let kept = 0;
  let dropped = 0;
  for (const id of members) {
    const t = byId.get(id)?.tokens[encoding];
    if (t) tokens += t.query + t.answer;
    const s = state(id);
    if (s === "kept") kept++;
    else if (s === "dropped") dropped++;
  }
  const data: RunNodeData = { count: members.length, tokens, inThread: threadSet.has(members[members.length - 1]), kept, dropped };
  return {
    id: b.id,
    type: "run",
    position: { x: b.x, y: b.y },
    width: TURN_NODE_WIDTH,
    height: TURN_NODE_HEIGHT,
    measured: { width: TURN_NODE_WIDTH, height: TURN_NODE_HEIGHT },
    handles: HANDLES,
    data,
    ariaRole: "button",
    focusable,
    draggable: false,
    connectable: false,
    selectable: false,
    zIndex: data.inThread ? 1 : 0,
  } as RunNode;
}
