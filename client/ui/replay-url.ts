// The replay page's whole state in its URL, so a reload or a shared link shows the same:
// the conversation and turn, the thread the scrubber walks (its leaf), the open tab, the
// memory asked about, and one counterfactual (`v.*`: only what it changes).
import { isStrategyType, type StrategyType } from "./inspect-model";

/** "captured": the turn's captured prompt beside the replayed one (turns captured over OTLP). */
export type ReplayTab = "replay" | "whatif" | "captured";

/** A counterfactual: each field set replaces the original's setting. */
export type VariantSpec = {
  k?: number;
  min_score?: number;
  weights?: { similarity?: number; recency?: number; importance?: number };
  strategy?: StrategyType;
  profile_version?: number;
};

export type ReplayState = {
  conversation: string;
  turn: string;
  /** The leaf of the thread the scrubber steps through (null: the turn's own thread, continued to its newest turn). */
  leaf: string | null;
  tab: ReplayTab;
  memory: string | null;
  variant: VariantSpec | null;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuidOr = (v: string | null) => (v && UUID.test(v) ? v.toLowerCase() : null);

function num(v: string | null, min: number, max: number, int = false): number | undefined {
  if (v === null || v.trim() === "") return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max || (int && !Number.isInteger(n))) return undefined;
  return n;
}

/** The bounds of lib/replay/schemas.ts; a value out of them is left out (the original's setting stays). */
export function parseVariant(sp: URLSearchParams): VariantSpec | null {
  const v: VariantSpec = {};
  const k = num(sp.get("v.k"), 1, 100, true);
  if (k !== undefined) v.k = k;
  const min = num(sp.get("v.min"), -10, 10);
  if (min !== undefined) v.min_score = min;
  const w: NonNullable<VariantSpec["weights"]> = {};
  for (const [key, name] of [["v.sim", "similarity"], ["v.rec", "recency"], ["v.imp", "importance"]] as const) {
    const x = num(sp.get(key), 0, 10);
    if (x !== undefined) w[name] = x;
  }
  if (Object.keys(w).length) v.weights = w;
  const s = sp.get("v.strategy");
  if (isStrategyType(s)) v.strategy = s;
  const p = num(sp.get("v.profile"), 1, 1_000_000, true);
  if (p !== undefined) v.profile_version = p;
  return Object.keys(v).length ? v : null;
}

export function parseReplayQuery(sp: URLSearchParams): ReplayState | null {
  const conversation = uuidOr(sp.get("conversation"));
  const turn = uuidOr(sp.get("turn"));
  if (!conversation || !turn) return null;
  return {
    conversation,
    turn,
    leaf: uuidOr(sp.get("leaf")),
    tab: sp.get("tab") === "whatif" ? "whatif" : sp.get("tab") === "captured" ? "captured" : "replay",
    memory: uuidOr(sp.get("memory")),
    variant: parseVariant(sp),
  };
}

export function encodeReplayQuery(s: ReplayState): string {
  const sp = new URLSearchParams();
  sp.set("conversation", s.conversation);
  sp.set("turn", s.turn);
  if (s.leaf) sp.set("leaf", s.leaf);
  if (s.tab !== "replay") sp.set("tab", s.tab);
  if (s.memory) sp.set("memory", s.memory);
  const v = s.variant;
  if (v) {
    if (v.k !== undefined) sp.set("v.k", String(v.k));
    if (v.min_score !== undefined) sp.set("v.min", String(v.min_score));
    if (v.weights?.similarity !== undefined) sp.set("v.sim", String(v.weights.similarity));
    if (v.weights?.recency !== undefined) sp.set("v.rec", String(v.weights.recency));
    if (v.weights?.importance !== undefined) sp.set("v.imp", String(v.weights.importance));
    if (v.strategy) sp.set("v.strategy", v.strategy);
    if (v.profile_version !== undefined) sp.set("v.profile", String(v.profile_version));
  }
  return sp.toString();
}

/** The replay page's address for a turn (from the conversation view, a memory's page, the memory table). */
export function replayHref(s: Partial<ReplayState> & Pick<ReplayState, "conversation" | "turn">): string {
  return `/inspect/replay?${encodeReplayQuery({ leaf: null, tab: "replay", memory: null, variant: null, ...s })}`;
}

/**
 * The replayed turn that pages outside the replay carry (`?replay=<conversation>.<turn>`):
 * a memory's page and the memory table answer "why not this memory?" for it.
 */
export function parseReplayRef(v: string | null): { conversation: string; turn: string } | null {
  if (!v) return null;
  const [c, t] = v.split(".");
  const conversation = uuidOr(c ?? null);
  const turn = uuidOr(t ?? null);
  return conversation && turn ? { conversation, turn } : null;
}

export const replayRef = (r: { conversation: string; turn: string }) => `${r.conversation}.${r.turn}`;

/** A short label of what a variant changes: "k = 10 · min score 0.3". */
export function variantLabel(v: VariantSpec): string {
  const parts: string[] = [];
  if (v.profile_version !== undefined) parts.push(`profile v${v.profile_version}`);
  if (v.k !== undefined) parts.push(`k = ${v.k}`);
  if (v.min_score !== undefined) parts.push(`min score ${v.min_score}`);
  // Only the weights the variant sets, each by name: "similarity 0.1, importance 0.7".
  if (v.weights) {
    const set = (["similarity", "recency", "importance"] as const).filter((n) => v.weights?.[n] !== undefined).map((n) => `${n} ${v.weights![n]}`);
    if (set.length) parts.push(`weights: ${set.join(", ")}`);
  }
  if (v.strategy) parts.push(v.strategy);
  return parts.join(" · ") || "no change";
}
