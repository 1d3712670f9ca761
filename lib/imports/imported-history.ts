import type { ImportMemory } from "./types";

// An imported history (Mem0's ADD / UPDATE / DELETE) written as Memscope's own history is:
// each event carries the memory's whole state before and after, with a version that moves
// by one per change. as_of reads (lib/memories/as-of) rebuild a memory from those snapshots
// and skip events whose version does not move, so content-only snapshots read as "nothing
// changed": an imported UPDATE was ignored and a DELETE made the memory archived from its
// creation (issue 40). Pure: run-import.ts writes what this returns.

/** The memory fields a history snapshot holds (SNAPSHOT_FIELDS of rebuild-state.ts). */
export type StateSnapshot = {
  memory_type: ImportMemory["memory_type"];
  content: string;
  structured_data: Record<string, unknown> | null;
  importance_score: number;
  confidence: number;
  status: "active" | "archived";
  version: number;
};

export type ChainEvent = {
  type: "create" | "update" | "archive";
  before: StateSnapshot | null;
  after: StateSnapshot;
  created_at: string | null;
  reason: string;
};

export type ImportedChain = {
  events: ChainEvent[];
  /** The state after the last event: what the row is written with (its version above all). */
  final: StateSnapshot;
  /** The row's updated_at: the source's, or the last event's time when that is later. */
  updatedAt: string | null;
};

/** The column defaults of memories (prisma/schema.prisma): an import sets neither. */
export const IMPORT_DEFAULTS = { importance_score: 0.5, confidence: 0.8 } as const;

/** The chain of whole snapshots for an imported memory's history; null when it has none. */
export function importedChain(m: ImportMemory): ImportedChain | null {
  if (!m.history.length) return null;
  const base = { memory_type: m.memory_type, structured_data: m.structured_data, ...IMPORT_DEFAULTS };
  const events: ChainEvent[] = [];
  let state: StateSnapshot | null = null;
  for (const e of m.history) {
    const at = e.created_at ?? null;
    if (e.type === "create" && state === null) {
      state = { ...base, content: e.after ?? m.content, status: "active", version: 1 };
      events.push({ type: "create", before: null, after: state, created_at: at, reason: e.reason });
      continue;
    }
    // A change with nothing recorded before it: the state just before is what the event says
    // it replaced (its own before text), as of no known time (no create event is invented).
    const before: StateSnapshot = state ?? { ...base, content: e.before ?? e.after ?? m.content, status: "active", version: 1 };
    const after: StateSnapshot =
      e.type === "archive"
        ? { ...before, status: "archived", version: before.version + 1 }
        : { ...before, content: e.after ?? before.content, status: "active", version: before.version + 1 };
    events.push({ type: e.type === "create" ? "update" : e.type, before, after, created_at: at, reason: e.reason });
    state = after;
  }
  const lastAt = events.map((e) => e.created_at).filter((t): t is string => !!t).sort().at(-1) ?? null;
  const source = m.updated_at ?? m.created_at ?? null;
  const updatedAt = !lastAt ? source : !source ? lastAt : new Date(lastAt) > new Date(source) ? lastAt : source;
  return { events, final: state!, updatedAt };
}
