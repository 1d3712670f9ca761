import type { Memory } from "../schemas";

// The state of one memory at an instant T, from what its history says around T.
// Pure: history-probe.ts reads the inputs, this decides. Never guesses silently: where the
// history cannot say, the answer carries reconstructed = false and the reason.

export type Snapshot = Record<string, unknown>;

export type ProbeEvent = { event_type: string; before: Snapshot | null; after: Snapshot | null; created_at: string };

export type MemoryProbe = {
  id: string;
  user_id: string;
  /** The row as it is now; null when it was permanently deleted. */
  live: Memory | null;
  /** Its delete event's snapshot, when it was deleted after T (has app_id, created_at... since issue 22). */
  tombstone: Snapshot | null;
  /**
   * The last event at or before T that changed the memory (a version moved, it was made or
   * deleted): its after-state is the state at T, its time the updated_at. Events that
   * changed nothing (an unmerge of an already restored source) and relation events are skipped.
   */
  prev: ProbeEvent | null;
  /** The first event after T (any but relations): its before-state must be the state at T. */
  next: ProbeEvent | null;
  /** Logged hits that counted as accesses: up to T, and in all. */
  access: { count: number; last: string | null; total: number; totalLast: string | null };
};

export type RebuiltMemory = Memory & { reconstructed: boolean; reason: string | null };

/** The fields a snapshot must hold for the state to be rebuilt from it. */
export const SNAPSHOT_FIELDS = ["memory_type", "content", "structured_data", "importance_score", "confidence", "status", "version"] as const;
type StateFields = Pick<Memory, (typeof SNAPSHOT_FIELDS)[number]>;

const ms = (t: string | null | undefined) => (t ? new Date(t).getTime() : null);
const iso = (t: unknown) => (typeof t === "string" || t instanceof Date ? new Date(t).toISOString() : null);

/** JSON with sorted keys: jsonb and a JS object may list the same keys in another order. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

function missingFields(s: Snapshot | null): string[] {
  if (!s) return [...SNAPSHOT_FIELDS];
  return SNAPSHOT_FIELDS.filter((f) => !(f in s));
}

function stateOf(s: Snapshot | Memory): StateFields {
  const x = s as Record<string, unknown>;
  return {
    memory_type: x.memory_type as Memory["memory_type"],
    content: x.content as string,
    structured_data: (x.structured_data as Memory["structured_data"]) ?? null,
    importance_score: Number(x.importance_score),
    confidence: Number(x.confidence),
    status: x.status as Memory["status"],
    version: Number(x.version),
  };
}

/** The fields in which two states differ. */
export function stateDiff(a: StateFields, b: StateFields): string[] {
  return SNAPSHOT_FIELDS.filter((f) => canonical(a[f]) !== canonical(b[f]));
}

/**
 * The memory at `asOf` (ms), or null when it did not exist then (not yet made, or deleted).
 * `checkChain: false` (a probe without `next`) skips the check that the history is complete
 * after T; the state itself is the same.
 */
export function rebuildAt(p: MemoryProbe, asOf: number, opts: { checkChain?: boolean } = {}): RebuiltMemory | null {
  if (p.prev?.event_type === "delete") return null;
  const reasons: string[] = [];
  const identity = {
    id: p.id,
    user_id: p.user_id,
    app_id: (p.live?.app_id ?? p.tombstone?.app_id ?? null) as string | null,
    source_session_id: (p.live?.source_session_id ?? p.tombstone?.source_session_id ?? null) as string | null,
  };
  let createdAt = p.live?.created_at ?? iso(p.tombstone?.created_at);
  let state: StateFields;
  let updatedAt: string;

  if (!p.prev) {
    // Nothing recorded up to T. A first event that made the memory comes later: not yet there.
    if (p.next && p.next.before === null) return null;
    if (!createdAt) return null;
    if (ms(createdAt)! > asOf) return null;
    const base = p.next && !missingFields(p.next.before).length ? p.next.before! : p.live;
    if (!base) return null;
    state = stateOf(base);
    updatedAt = p.live && ms(p.live.updated_at)! <= asOf ? p.live.updated_at : createdAt;
    reasons.push(
      p.next
        ? `written before its history was kept: shown as it was just before its first recorded change (${p.next.created_at}), which is not known to be how it was at this instant`
        : "no history recorded for this memory: its current state is shown",
    );
  } else {
    const after = p.prev.after;
    const missing = missingFields(after);
    if (missing.length) {
      const base = p.live ?? p.tombstone;
      state = stateOf({ ...(base ?? {}), ...(after ?? {}) });
      reasons.push(`its history snapshot of ${p.prev.created_at} (${p.prev.event_type}) lacks ${missing.join(", ")}: taken from its current row`);
    } else {
      state = stateOf(after!);
      // The next recorded change must start from this state; otherwise it changed in between
      // without Memscope (or the row was edited since its last event).
      const expected = p.next ? p.next.before : p.live;
      if (opts.checkChain !== false && expected && !missingFields(expected as Snapshot).length) {
        const diff = stateDiff(state, stateOf(expected));
        if (diff.length) {
          reasons.push(
            `changed outside Memscope between ${p.prev.created_at} and ${p.next ? p.next.created_at : "now"} (${diff.join(", ")}): when is not known`,
          );
        }
      }
    }
    updatedAt = new Date(p.prev.created_at).toISOString();
    // A memory made by its first event: created then (imported rows keep their own time).
    if (!createdAt && p.prev.before === null) createdAt = updatedAt;
  }
  if (!createdAt) {
    createdAt = updatedAt;
    reasons.push("deleted before its creation time was kept: created_at is a lower bound");
  }

  // Accesses: what the retrieval log counted. When the counter does not match the log as a
  // whole, some access was counted (or reset) outside it.
  const liveAccess = p.live ?? (p.tombstone && "access_count" in p.tombstone ? p.tombstone : null);
  if (liveAccess) {
    const n = Number((liveAccess as Record<string, unknown>).access_count);
    const last = ms(iso((liveAccess as Record<string, unknown>).last_accessed_at));
    if (n !== p.access.total || last !== ms(p.access.totalLast)) {
      reasons.push(`its access_count (${n}) or last_accessed_at does not match the retrieval log (${p.access.total} logged accesses): access_count and last_accessed_at are the log's`);
    }
  }

  // The key order of serializeMemory, so an as-of memory prints like a live one.
  return {
    id: identity.id,
    app_id: identity.app_id,
    user_id: identity.user_id,
    memory_type: state.memory_type,
    content: state.content,
    structured_data: state.structured_data,
    source_session_id: identity.source_session_id,
    importance_score: state.importance_score,
    access_count: p.access.count,
    last_accessed_at: p.access.last ? new Date(p.access.last).toISOString() : null,
    status: state.status,
    confidence: state.confidence,
    version: state.version,
    created_at: new Date(createdAt).toISOString(),
    updated_at: new Date(updatedAt).toISOString(),
    reconstructed: reasons.length === 0,
    reason: reasons.length ? reasons.join("; ") : null,
  };
}

/**
 * The state at `asOf` from a fast probe (probeUserFast): a row unchanged since T is its own
 * state, with the accesses of then. reconstructed and reason are settled by rebuildAt on a
 * full probe (the rows a page or a search answers).
 */
export function fastStateAt(p: MemoryProbe & { fast: boolean }, asOf: number): RebuiltMemory | null {
  if (!p.fast || !p.live) return rebuildAt(p, asOf, { checkChain: false });
  return {
    ...p.live,
    access_count: p.access.count,
    last_accessed_at: p.access.last ? new Date(p.access.last).toISOString() : null,
    reconstructed: true,
    reason: null,
  };
}
