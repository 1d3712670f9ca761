"use client";
import { useCanWrite } from "@/client/hooks/auth";
import { READ_ONLY_HINT } from "@/components/ui/write-button";
import { useVirtualizer } from "@tanstack/react-virtual";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { memo, useCallback, useEffect, useRef, useState } from "react";
import type { Memory } from "@/client/api-types";
import { absoluteTime, formatInt, relativeTime } from "@/client/ui/format";
import { Skeleton } from "@/components/ui/skeleton";
import { Spinner } from "@/components/ui/states";
import { InlineEditor } from "./inline-editor";
import { TypeBadge, UnitBar } from "./type-badge";
import { useArchiveRestore, type MemorySort } from "@/client/hooks/memories";
import { useToast } from "./toast";

/** One line of content per row: about 40 px, so a screen shows twice the rows it did at 60. */
const ROW_H = 40;
const EDIT_H = 184;
// Fixed widths everywhere but Content: relative times and counts never move a column.
const COLS = "grid grid-cols-[40px_104px_minmax(280px,1fr)_112px_64px_64px_112px_104px_168px]";
/** With a replayed turn: room for "Why not?" in the actions. */
const COLS_REPLAY = "grid grid-cols-[40px_104px_minmax(280px,1fr)_112px_64px_64px_112px_104px_232px]";
const th = "flex items-center px-2 text-[11px] font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400";

type Props = {
  rows: Memory[];
  user: string;
  loading: boolean;
  hasNextPage: boolean;
  fetchingNext: boolean;
  onLoadMore: () => void;
  sort: MemorySort;
  order: "asc" | "desc";
  onSort: (s: MemorySort) => void;
  selected: Set<string>;
  onSelect: (ids: string[], on: boolean) => void;
  onClearSelection: () => void;
  /** A replayed turn's "why not?" for each row (the table was opened from a replay). */
  whyHref?: (id: string) => string;
  /** Query added to each row's own page (the replayed turn it was opened from). */
  openSuffix?: string;
};

function isTyping(t: EventTarget | null) {
  const el = t as HTMLElement | null;
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

/** Virtualized memory table: only the rows in view are in the DOM, so 100 000 rows scroll smoothly. */
export function MemoryTable({ rows, user, loading, hasNextPage, fetchingNext, onLoadMore, sort, order, onSort, selected, onSelect, onClearSelection, whyHref, openSuffix = "" }: Props) {
  const cols = whyHref ? COLS_REPLAY : COLS;
  const router = useRouter();
  const scrollRef = useRef<HTMLDivElement>(null);
  const [focus, setFocus] = useState(0);
  const [editing, setEditingState] = useState<string | null>(null);
  // A viewer may not change data: no path opens the editor (Edit button, double-click, Enter),
  // not just a disabled button beside an editor the keyboard still reaches.
  // As every write control: open while the auth state loads (the API refuses a viewer's PATCH either way).
  const canWrite = useCanWrite();
  const setEditing = useCallback((id: string | null) => setEditingState(id !== null && !canWrite ? null : id), [canWrite]);
  const anchor = useRef<number | null>(null);

  const v = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (rows[i]?.id === editing ? EDIT_H : ROW_H),
    overscan: 12,
    getItemKey: (i) => rows[i]?.id ?? i,
  });

  // Sizes change when a row opens or closes its editor.
  useEffect(() => {
    v.measure();
  }, [editing, v]);

  // Infinite loading: ask for the next page when the last rows come into view.
  const items = v.getVirtualItems();
  const lastIndex = items.length ? items[items.length - 1].index : -1;
  useEffect(() => {
    if (hasNextPage && !fetchingNext && lastIndex >= rows.length - 40) onLoadMore();
  }, [lastIndex, rows.length, hasNextPage, fetchingNext, onLoadMore]);

  // Keep the focused row inside the data when the list changes.
  useEffect(() => {
    if (focus > 0 && focus >= rows.length) setFocus(Math.max(0, rows.length - 1));
  }, [rows.length, focus]);

  const moveFocus = useCallback(
    (i: number) => {
      const n = Math.max(0, Math.min(rows.length - 1, i));
      setFocus(n);
      v.scrollToIndex(n, { align: "auto" });
    },
    [rows.length, v],
  );

  const toggle = useCallback(
    (i: number, shift: boolean) => {
      const r = rows[i];
      if (!r) return;
      if (shift && anchor.current !== null) {
        const [a, b] = anchor.current < i ? [anchor.current, i] : [i, anchor.current];
        onSelect(rows.slice(a, b + 1).map((x) => x.id), true);
      } else {
        onSelect([r.id], !selected.has(r.id));
      }
      anchor.current = i;
    },
    [rows, selected, onSelect],
  );

  const onFocusRow = useCallback((i: number) => {
    setFocus(i);
    scrollRef.current?.focus({ preventScroll: true });
  }, []);
  const onEditDone = useCallback(() => {
    setEditing(null);
    scrollRef.current?.focus({ preventScroll: true });
  }, [setEditing]);
  // Signed out or demoted while an editor was open: close it.
  useEffect(() => {
    if (!canWrite) setEditingState(null);
  }, [canWrite]);

  const open = (m: Memory) => router.push(`/memories/${m.id}?user=${encodeURIComponent(user)}`);

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (isTyping(e.target) || e.metaKey || e.ctrlKey || e.altKey || editing) return;
    // A row's own buttons and links handle their keys (Enter on "Archive" archives that row).
    if (e.target !== e.currentTarget && (e.target as HTMLElement).closest("button, a")) return;
    const r = rows[focus];
    switch (e.key) {
      case "j":
      case "ArrowDown":
        e.preventDefault();
        moveFocus(focus + 1);
        break;
      case "k":
      case "ArrowUp":
        e.preventDefault();
        moveFocus(focus - 1);
        break;
      case "Home":
        e.preventDefault();
        moveFocus(0);
        break;
      case "End":
        e.preventDefault();
        moveFocus(rows.length - 1);
        break;
      case "x":
      case " ":
        e.preventDefault();
        toggle(focus, e.shiftKey);
        break;
      case "X":
        e.preventDefault();
        toggle(focus, true);
        break;
      case "Enter":
        if (!r) break;
        e.preventDefault();
        if (e.shiftKey) open(r);
        else setEditing(r.id);
        break;
      case "o":
        if (r) open(r);
        break;
      case "Escape":
        onClearSelection();
        break;
    }
  };

  const allLoadedSelected = rows.length > 0 && rows.every((r) => selected.has(r.id));
  const sortHeader = (key: MemorySort, label: string, right = false) => {
    const active = sort === key;
    return (
      <div role="columnheader" aria-sort={active ? (order === "asc" ? "ascending" : "descending") : "none"} className={`${th} ${right ? "justify-end" : ""}`}>
        <button
          type="button"
          data-testid={`sort-${key}`}
          onClick={() => onSort(key)}
          className={`inline-flex items-center gap-1 rounded uppercase hover:text-zinc-900 dark:hover:text-zinc-100 ${active ? "text-zinc-900 dark:text-zinc-100" : ""}`}
        >
          {label}
          <span aria-hidden className={`text-[10px] ${active ? "" : "opacity-0"}`}>{order === "asc" ? "▲" : "▼"}</span>
        </button>
      </div>
    );
  };

  return (
    <div className="flex min-h-[420px] flex-1 flex-col overflow-hidden rounded-lg border border-zinc-200 bg-white shadow-xs dark:border-zinc-800 dark:bg-zinc-900">
      <div
        ref={scrollRef}
        role="grid"
        aria-label="Memories"
        aria-rowcount={rows.length}
        aria-multiselectable
        tabIndex={0}
        data-testid="memory-grid"
        onKeyDown={onKeyDown}
        className="min-h-0 flex-1 overflow-auto outline-none focus-visible:ring-2 focus-visible:ring-indigo-500/40 focus-visible:ring-inset"
      >
        <div className="min-w-[1080px]">
          <div role="row" className={`${cols} sticky top-0 z-10 h-9 border-b border-zinc-200 bg-zinc-50/95 backdrop-blur dark:border-zinc-800 dark:bg-zinc-900/95`}>
            <div role="columnheader" className="flex items-center justify-center">
              <input
                type="checkbox"
                aria-label="Select all loaded rows"
                data-testid="select-all"
                checked={allLoadedSelected}
                onChange={() => (allLoadedSelected ? onClearSelection() : onSelect(rows.map((r) => r.id), true))}
                className="size-3.5 accent-indigo-600"
              />
            </div>
            <div role="columnheader" className={th}>Type</div>
            <div role="columnheader" className={th}>Content</div>
            {sortHeader("importance_score", "Importance")}
            <div role="columnheader" className={`${th} justify-end`}>Conf.</div>
            {sortHeader("access_count", "Hits", true)}
            {sortHeader("last_accessed_at", "Last used")}
            {sortHeader("updated_at", "Updated")}
            <div role="columnheader" className={th}>Actions</div>
          </div>
          {loading ? (
            Array.from({ length: 8 }, (_, i) => <SkeletonRow key={i} />)
          ) : (
            <div style={{ height: v.getTotalSize(), position: "relative" }}>
              {items.map((it) => {
                const m = rows[it.index];
                if (!m) return null;
                return (
                  <div
                    key={it.key}
                    data-index={it.index}
                    // The row being edited grows with its editor (and a conflict notice): measured, not estimated.
                    ref={editing === m.id ? v.measureElement : undefined}
                    style={{ position: "absolute", top: 0, left: 0, right: 0, height: editing === m.id ? undefined : it.size, minHeight: editing === m.id ? EDIT_H : undefined, transform: `translateY(${it.start}px)` }}
                  >
                    <Row
                      m={m}
                      index={it.index}
                      focused={it.index === focus}
                      selected={selected.has(m.id)}
                      editing={editing === m.id}
                      onFocusRow={onFocusRow}
                      onToggle={toggle}
                      onEdit={setEditing}
                      onEditDone={onEditDone}
                      href={`/memories/${m.id}?user=${encodeURIComponent(user)}${openSuffix}`}
                      cols={cols}
                      whyHref={whyHref?.(m.id)}
                    />
                  </div>
                );
              })}
            </div>
          )}
          {fetchingNext && (
            <div className="flex items-center justify-center gap-2 py-3 text-xs text-zinc-500">
              <Spinner className="text-indigo-500" /> Loading more…
            </div>
          )}
        </div>
      </div>
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1 border-t border-zinc-200 bg-zinc-50/60 px-3 py-1.5 text-[11px] text-zinc-500 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-400">
        <span className="tabular-nums">{formatInt(rows.length)}{hasNextPage ? "+" : ""} loaded</span>
        <span className="ml-auto flex flex-wrap gap-x-3">
          <Hint k="/">search</Hint>
          <Hint k="j k">move</Hint>
          <Hint k="x">select</Hint>
          <Hint k="⇧ click">range</Hint>
          {canWrite && <Hint k="Enter">edit</Hint>}
          <Hint k="o">open</Hint>
        </span>
      </div>
    </div>
  );
}

function Hint({ k, children }: { k: string; children: string }) {
  return (
    <span>
      <kbd className="rounded border border-zinc-300 bg-white px-1 font-mono text-[10px] dark:border-zinc-700 dark:bg-zinc-800">{k}</kbd> {children}
    </span>
  );
}

type RowProps = {
  m: Memory;
  index: number;
  focused: boolean;
  selected: boolean;
  editing: boolean;
  href: string;
  cols: string;
  whyHref?: string;
  onFocusRow: (i: number) => void;
  onToggle: (i: number, shift: boolean) => void;
  onEdit: (id: string) => void;
  onEditDone: () => void;
};

const Row = memo(function Row({ m, index, focused, selected, editing, href, cols, whyHref, onFocusRow, onToggle, onEdit, onEditDone }: RowProps) {
  const archived = m.status === "archived";
  return (
    <div
      role="row"
      aria-selected={selected}
      data-testid="memory-row"
      data-id={m.id}
      data-version={m.version}
      data-status={m.status}
      data-focused={focused ? "true" : undefined}
      onClick={() => onFocusRow(index)}
      onDoubleClick={() => onEdit(m.id)}
      className={`${cols} group h-full min-h-[inherit] border-b border-zinc-100 text-sm transition-colors dark:border-zinc-800/80 ${
        selected ? "bg-indigo-50/80 dark:bg-indigo-950/40" : "hover:bg-zinc-50 dark:hover:bg-zinc-800/40"
      } ${focused ? "shadow-[inset_3px_0_0_var(--color-indigo-500)]" : ""} ${archived ? "text-zinc-600 dark:text-zinc-400" : ""}`}
    >
      <div role="gridcell" className="flex items-start justify-center pt-[13px]">
        <input
          type="checkbox"
          aria-label="Select memory"
          data-testid="row-select"
          checked={selected}
          onClick={(e) => {
            e.stopPropagation();
            onFocusRow(index);
            onToggle(index, e.shiftKey);
          }}
          onChange={() => {}}
          className="size-3.5 accent-indigo-600"
        />
      </div>
      <div role="gridcell" className="flex items-start px-2 pt-2.5">
        <TypeBadge type={m.memory_type} />
      </div>
      <div role="gridcell" className="min-w-0 px-2 py-2.5">
        {editing ? (
          <InlineEditor memory={m} onDone={onEditDone} />
        ) : (
          <div className="flex min-w-0 items-center gap-2">
            {archived && <span className="shrink-0 text-[10px] font-medium tracking-wide text-zinc-600 uppercase dark:text-zinc-400">archived</span>}
            <span data-testid="memory-content" title={m.content} className="min-w-0 flex-1 cursor-default truncate leading-5 text-zinc-800 select-text dark:text-zinc-200">
              {m.content}
            </span>
            <span className="shrink-0 font-mono text-[10px] text-zinc-600 tabular-nums dark:text-zinc-400" data-testid="memory-version" title="version">
              v{m.version}
            </span>
          </div>
        )}
      </div>
      <div role="gridcell" className="px-2 pt-3.5 text-xs">
        <UnitBar value={m.importance_score} />
      </div>
      <div role="gridcell" className="px-2 pt-3 text-right text-xs text-zinc-600 tabular-nums dark:text-zinc-400">{m.confidence.toFixed(2)}</div>
      <div role="gridcell" className="px-2 pt-3 text-right text-xs tabular-nums">{formatInt(m.access_count)}</div>
      <div role="gridcell" className="px-2 pt-3 text-xs whitespace-nowrap text-zinc-600 dark:text-zinc-400">
        {m.last_accessed_at ? (
          <time dateTime={m.last_accessed_at} title={absoluteTime(m.last_accessed_at)}>
            {relativeTime(m.last_accessed_at)}
          </time>
        ) : (
          <span className="text-zinc-600 dark:text-zinc-400">never</span>
        )}
      </div>
      <div role="gridcell" className="px-2 pt-3 text-xs whitespace-nowrap text-zinc-600 dark:text-zinc-400">
        <time dateTime={m.updated_at} title={absoluteTime(m.updated_at)}>
          {relativeTime(m.updated_at)}
        </time>
      </div>
      <div role="gridcell" className="flex items-start gap-1 px-2 pt-2" onClick={(e) => e.stopPropagation()}>
        <RowActions m={m} href={href} whyHref={whyHref} editing={editing} onEdit={() => onEdit(m.id)} />
      </div>
    </div>
  );
});

const action =
  "h-6 rounded px-1.5 text-xs font-medium text-zinc-700 hover:bg-zinc-100 hover:text-zinc-900 disabled:opacity-50 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:hover:text-zinc-100";

/** Per-row actions: edit in place, archive or restore (with undo), open the detail page. */
function RowActions({ m, href, whyHref, editing, onEdit }: { m: Memory; href: string; whyHref?: string; editing: boolean; onEdit: () => void }) {
  const toggle = useArchiveRestore();
  const toast = useToast();
  const archived = m.status === "archived";
  const what = m.content.length > 40 ? `${m.content.slice(0, 39)}…` : m.content;
  const canWrite = useCanWrite();
  const run = (action: "archive" | "restore") =>
    toggle.mutate(
      { id: m.id, action },
      {
        onSuccess: () =>
          toast.show({
            message: `${action === "archive" ? "Archived" : "Restored"} “${what}”`,
            action: { label: "Undo", testId: "row-undo", run: () => toggle.mutateAsync({ id: m.id, action: action === "archive" ? "restore" : "archive" }) },
          }),
        onError: (e) => toast.show({ message: e.message, tone: "error" }),
      },
    );
  const readOnly = !canWrite ? READ_ONLY_HINT : undefined;
  return (
    <>
      <button type="button" className={action} data-testid="row-edit" data-writes="" disabled={editing || !canWrite} title={readOnly} aria-label={`Edit “${what}”`} onClick={onEdit}>
        Edit
      </button>
      <button
        type="button"
        className={action}
        data-testid="row-archive"
        data-writes=""
        disabled={toggle.isPending || !canWrite}
        title={readOnly}
        aria-label={`${archived ? "Restore" : "Archive"} “${what}”`}
        onClick={() => run(archived ? "restore" : "archive")}
      >
        {archived ? "Restore" : "Archive"}
      </button>
      <Link href={href} data-testid="memory-open" aria-label={`Open “${what}”`} title="Open (o)" className={`${action} inline-flex items-center text-indigo-700 dark:text-indigo-300`}>
        Open
      </Link>
      {whyHref && (
        <Link href={whyHref} data-testid="row-why-not" aria-label={`Why not “${what}” in the replayed turn?`} className={`${action} inline-flex items-center text-indigo-700 dark:text-indigo-300`}>
          Why not?
        </Link>
      )}
    </>
  );
}

function SkeletonRow() {
  return (
    <div aria-hidden className={`${COLS} h-10 items-center border-b border-zinc-100 dark:border-zinc-800`}>
      <div className="flex justify-center"><Skeleton className="size-3.5" /></div>
      <div className="px-2"><Skeleton className="h-4 w-16" /></div>
      <div className="px-2"><Skeleton className="h-4 w-4/5" /></div>
      <div className="px-2"><Skeleton className="h-3 w-20" /></div>
      <div className="px-2"><Skeleton className="ml-auto h-3 w-8" /></div>
      <div className="px-2"><Skeleton className="ml-auto h-3 w-6" /></div>
      <div className="px-2"><Skeleton className="h-3 w-16" /></div>
      <div className="px-2"><Skeleton className="h-3 w-16" /></div>
      <div className="px-2"><Skeleton className="h-3 w-24" /></div>
    </div>
  );
}
