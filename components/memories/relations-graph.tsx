"use client";
import { WriteButton } from "@/components/ui/write-button";
import "@xyflow/react/dist/style.css";
import { Background, BackgroundVariant, Controls, Handle, MarkerType, Position, ReactFlow, type Edge, type Node, type NodeProps } from "@xyflow/react";
import Link from "next/link";
import { memo, useMemo, useState } from "react";
import type { Memory, Relation } from "@/client/api-types";
import { useAddRelation, useMemories, useMemoryList, useRemoveRelation } from "@/client/hooks/memories";
import { RELATION_STYLE } from "@/client/ui/memory-format";
import { oneLine } from "@/client/ui/format";
import { useDebouncedValue } from "@/client/ui/use-debounced-value";
import { EmptyState, Spinner } from "@/components/ui/states";
import { TypeBadge } from "./type-badge";

type MemNodeData = { memory: Memory | null; id: string; center: boolean; user: string };
type MemNode = Node<MemNodeData, "mem">;

const W = 220;
const H = 74;
const hidden = "!pointer-events-none !size-1 !min-h-0 !min-w-0 !border-0 !bg-transparent";

const MemNodeView = memo(function MemNodeView({ data }: NodeProps<MemNode>) {
  const m = data.memory;
  const body = (
    <div
      data-testid="relation-node"
      data-id={data.id}
      className={`flex flex-col gap-1 rounded-lg border px-2.5 py-1.5 text-left text-[11px] leading-snug shadow-xs ${
        data.center
          ? "border-indigo-500 bg-indigo-600 text-white shadow-indigo-500/20"
          : `border-zinc-200 bg-white text-zinc-700 hover:border-zinc-400 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-300 ${m?.status === "archived" ? "opacity-70" : ""}`
      }`}
      style={{ width: W, height: H }}
    >
      <Handle type="target" position={Position.Left} className={hidden} isConnectable={false} />
      <Handle type="source" position={Position.Right} className={hidden} isConnectable={false} />
      <span className="flex items-center gap-1.5">
        {m && <TypeBadge type={m.memory_type} className={data.center ? "!bg-white/15 !text-white !ring-white/30" : ""} />}
        {m?.status === "archived" && <span className="text-[9px] tracking-wide uppercase opacity-70">archived</span>}
      </span>
      <span className="line-clamp-2">{m ? oneLine(m.content, 110) : <span className="text-zinc-500 dark:text-zinc-400">{data.id.slice(0, 8)}…</span>}</span>
    </div>
  );
  return data.center ? body : <Link href={`/memories/${data.id}?user=${encodeURIComponent(data.user)}`}>{body}</Link>;
});
const NODE_TYPES = { mem: MemNodeView };

/** This memory in the centre, related memories on a ring around it; edges coloured and labelled by type. */
function useRelated(memory: Memory, relations: Relation[]) {
  const live = relations.filter((r) => !r.removed_at);
  const otherIds = [...new Set(live.map((r) => (r.source_id === memory.id ? r.target_id : r.source_id)))];
  const others = useMemories(otherIds);
  const byId = new Map(otherIds.map((id, i) => [id, others[i]?.data ?? null] as const));
  const key = others.map((o) => o.dataUpdatedAt).join(",");
  return { live, otherIds, byId, key };
}

export function RelationsGraph({ memory, relations }: { memory: Memory; relations: Relation[] }) {
  const { live, otherIds, byId, key } = useRelated(memory, relations);

  const { nodes, edges } = useMemo(() => {
    const n = otherIds.length;
    const rx = Math.max(380, n * 40);
    const ry = Math.max(170, n * 22);
    const nodes: MemNode[] = [
      { id: memory.id, type: "mem", position: { x: -W / 2, y: -H / 2 }, data: { memory, id: memory.id, center: true, user: memory.user_id }, draggable: true },
      ...otherIds.map<MemNode>((id, i) => {
        // Start on the left and go round: with two neighbours they sit left and right.
        const a = Math.PI + (2 * Math.PI * i) / Math.max(n, 1) + (n > 2 ? Math.PI / n : 0);
        return { id, type: "mem", position: { x: Math.cos(a) * rx - W / 2, y: Math.sin(a) * ry - H / 2 }, data: { memory: byId.get(id) ?? null, id, center: false, user: memory.user_id } };
      }),
    ];
    const edges: Edge[] = live.map((r) => {
      const s = RELATION_STYLE[r.relation_type] ?? RELATION_STYLE.supports;
      return {
        id: r.id,
        source: r.source_id,
        target: r.target_id,
        label: `${s.label} · ${r.strength.toFixed(1)}`,
        type: "straight",
        style: { stroke: s.color, strokeWidth: 1 + r.strength * 2.5 },
        labelStyle: { fill: s.color, fontSize: 11, fontWeight: 600 },
        labelBgStyle: { fill: "var(--xy-background-color-default, white)", fillOpacity: 0.9 },
        labelBgPadding: [4, 2] as [number, number],
        labelBgBorderRadius: 4,
        markerEnd: { type: MarkerType.ArrowClosed, color: s.color, width: 16, height: 16 },
        data: { relation_type: r.relation_type },
      };
    });
    return { nodes, edges };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [memory, relations, key]);

  if (!live.length) {
    return (
      <div className="grid h-56 place-items-center rounded-lg border border-dashed border-zinc-300 dark:border-zinc-700" data-testid="relations-empty">
        <EmptyState title="No relations yet">Link this memory to others it supports, contradicts or refines.</EmptyState>
      </div>
    );
  }
  return (
    <div className="h-80 overflow-hidden rounded-lg border border-zinc-200 bg-zinc-50/60 dark:border-zinc-800 dark:bg-zinc-950/40" data-testid="relations-graph">
      <ReactFlow<MemNode, Edge>
        key={`${memory.id}-${otherIds.length}`}
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        fitView
        fitViewOptions={{ padding: 0.15, maxZoom: 1 }}
        nodesConnectable={false}
        elementsSelectable={false}
        minZoom={0.2}
        maxZoom={1.5}
        colorMode="system"
        proOptions={{ hideAttribution: true }}
        aria-label="Relations"
      >
        <Background variant={BackgroundVariant.Dots} gap={20} size={1} className="!text-zinc-300 dark:!text-zinc-800" />
        <Controls showInteractive={false} position="bottom-right" />
      </ReactFlow>
    </div>
  );
}

export function RelationLegend() {
  return (
    <div className="flex flex-wrap gap-3 text-[11px] text-zinc-500 dark:text-zinc-400">
      {Object.entries(RELATION_STYLE).map(([k, s]) => (
        <span key={k} className="inline-flex items-center gap-1.5">
          <span aria-hidden className="h-0.5 w-4 rounded" style={{ background: s.color }} />
          {s.label}
        </span>
      ))}
    </div>
  );
}

/** The list under the graph: each relation with its note and a Remove button. */
export function RelationList({ memory, relations }: { memory: Memory; relations: Relation[] }) {
  const remove = useRemoveRelation(memory.id);
  const { live, byId } = useRelated(memory, relations);
  if (!live.length) return null;
  return (
    <ul className="divide-y divide-zinc-100 text-sm dark:divide-zinc-800" data-testid="relation-list">
      {live.map((r) => {
        const s = RELATION_STYLE[r.relation_type] ?? RELATION_STYLE.supports;
        const outgoing = r.source_id === memory.id;
        const other = outgoing ? r.target_id : r.source_id;
        return (
          <li key={r.id} className="flex items-center gap-2 py-1.5" data-testid="relation-item" data-type={r.relation_type}>
            <span className={`w-28 shrink-0 text-xs font-semibold ${s.text}`}>
              {outgoing ? "" : "← "}
              {s.label}
            </span>
            <Link href={`/memories/${other}?user=${encodeURIComponent(memory.user_id)}`} className="min-w-0 flex-1 truncate text-sm text-zinc-700 hover:text-indigo-600 dark:text-zinc-300 dark:hover:text-indigo-400" title={other}>
              {byId.get(other)?.content ?? <span className="font-mono text-xs text-zinc-500">{other}</span>}
            </Link>
            {r.note && <span className="max-w-48 truncate text-xs text-zinc-500 italic" title={r.note}>{r.note}</span>}
            <span className="w-10 text-right text-xs text-zinc-500 tabular-nums">{r.strength.toFixed(2)}</span>
            {["supports", "contradicts", "refines"].includes(r.relation_type) ? (
              <WriteButton size="sm" variant="ghost" data-testid="relation-remove" disabled={remove.isPending} onClick={() => remove.mutate(r.id)} aria-label={`Remove ${s.label} relation`}>
                Remove
              </WriteButton>
            ) : (
              <span className="w-[62px] text-center text-[10px] text-zinc-500" title="Set by merge/compress; undo those instead">system</span>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** Pick a target by searching this user's memories, then type and strength. */
export function AddRelation({ memory }: { memory: Memory }) {
  const [q, setQ] = useState("");
  const [target, setTarget] = useState<Memory | null>(null);
  const [type, setType] = useState<"supports" | "contradicts" | "refines">("supports");
  const [strength, setStrength] = useState(0.6);
  const [note, setNote] = useState("");
  const dq = useDebouncedValue(q, 200);
  const results = useMemoryList(memory.user_id, { memory_type: "", status: "active", q: dq, min_importance: null, max_importance: null, sort: "updated_at", order: "desc" });
  const options = (results.data?.pages[0]?.data ?? []).filter((m) => m.id !== memory.id).slice(0, 6);
  const add = useAddRelation(memory.id);
  return (
    <div className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800" data-testid="add-relation">
      <p className="mb-2 text-xs font-semibold text-zinc-700 dark:text-zinc-300">Add a relation</p>
      {target ? (
        <div className="mb-2 flex items-center gap-2 rounded-md bg-zinc-50 px-2 py-1.5 text-xs dark:bg-zinc-800/60">
          <TypeBadge type={target.memory_type} />
          <span className="min-w-0 flex-1 truncate">{target.content}</span>
          <button type="button" className="text-zinc-500 hover:text-zinc-900 dark:hover:text-zinc-100" onClick={() => setTarget(null)}>
            change
          </button>
        </div>
      ) : (
        <div className="mb-2">
          <input
            type="search"
            value={q}
            onChange={(e) => setQ(e.target.value)}
            placeholder="Search this user's memories…"
            aria-label="Search target memory"
            data-testid="relation-target-search"
            className="h-8 w-full rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-950"
          />
          <ul className="mt-1 max-h-44 overflow-auto rounded-md border border-zinc-100 dark:border-zinc-800">
            {results.isFetching && !options.length && <li className="px-2 py-1.5 text-xs text-zinc-500"><Spinner /> searching…</li>}
            {options.map((m) => (
              <li key={m.id}>
                <button type="button" data-testid="relation-target-option" onClick={() => setTarget(m)} className="flex w-full items-center gap-2 px-2 py-1.5 text-left text-xs hover:bg-indigo-50 dark:hover:bg-indigo-950/50">
                  <TypeBadge type={m.memory_type} />
                  <span className="truncate">{m.content}</span>
                </button>
              </li>
            ))}
            {!results.isFetching && !options.length && <li className="px-2 py-1.5 text-xs text-zinc-500">No other memories match.</li>}
          </ul>
        </div>
      )}
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <select value={type} data-testid="relation-type" onChange={(e) => setType(e.target.value as typeof type)} className="h-8 rounded-md border border-zinc-300 bg-white px-1.5 dark:border-zinc-700 dark:bg-zinc-900" aria-label="Relation type">
          <option value="supports">supports</option>
          <option value="contradicts">contradicts</option>
          <option value="refines">refines</option>
        </select>
        <label className="flex items-center gap-1.5 text-zinc-500">
          strength
          <input type="range" min={0} max={1} step={0.05} value={strength} onChange={(e) => setStrength(Number(e.target.value))} className="w-24 accent-indigo-600" />
          <span className="w-8 tabular-nums">{strength.toFixed(2)}</span>
        </label>
        <input value={note} onChange={(e) => setNote(e.target.value)} placeholder="note (optional)" className="h-8 min-w-24 flex-1 rounded-md border border-zinc-300 bg-white px-2 dark:border-zinc-700 dark:bg-zinc-950" />
        <WriteButton
          size="sm"
          variant="primary"
          data-testid="relation-add"
          disabled={!target || add.isPending}
          onClick={() =>
            target &&
            add.mutate(
              { target_id: target.id, relation_type: type, strength, ...(note.trim() ? { note: note.trim() } : {}) },
              {
                onSuccess: () => {
                  setTarget(null);
                  setQ("");
                  setNote("");
                },
              },
            )
          }
        >
          {add.isPending && <Spinner />}Add
        </WriteButton>
      </div>
      {add.isError && <p role="alert" className="mt-1.5 text-xs text-red-600 dark:text-red-400">{add.error.message}</p>}
    </div>
  );
}
