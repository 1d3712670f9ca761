import type { MemoryType } from "@/lib/memories/schemas";

export const MEMORY_TYPE_LIST: MemoryType[] = ["preference", "fact", "pattern", "skill"];

/** One colour per memory type, used by badges, chips and chart bars alike. */
export const TYPE_STYLE: Record<MemoryType, { badge: string; dot: string; bar: string; label: string }> = {
  preference: {
    label: "Preference",
    badge: "bg-sky-50 text-sky-700 ring-sky-200 dark:bg-sky-950 dark:text-sky-300 dark:ring-sky-900",
    dot: "bg-sky-500",
    bar: "bg-sky-500",
  },
  fact: {
    label: "Fact",
    badge: "bg-emerald-50 text-emerald-700 ring-emerald-200 dark:bg-emerald-950 dark:text-emerald-300 dark:ring-emerald-900",
    dot: "bg-emerald-500",
    bar: "bg-emerald-500",
  },
  pattern: {
    label: "Pattern",
    badge: "bg-violet-50 text-violet-700 ring-violet-200 dark:bg-violet-950 dark:text-violet-300 dark:ring-violet-900",
    dot: "bg-violet-500",
    bar: "bg-violet-500",
  },
  skill: {
    label: "Skill",
    badge: "bg-amber-50 text-amber-800 ring-amber-200 dark:bg-amber-950 dark:text-amber-300 dark:ring-amber-900",
    dot: "bg-amber-500",
    bar: "bg-amber-500",
  },
};

export const RELATION_STYLE: Record<string, { color: string; text: string; label: string }> = {
  supports: { color: "#10b981", text: "text-emerald-700 dark:text-emerald-400", label: "supports" },
  contradicts: { color: "#ef4444", text: "text-red-700 dark:text-red-400", label: "contradicts" },
  refines: { color: "#6366f1", text: "text-indigo-700 dark:text-indigo-400", label: "refines" },
  merged_into: { color: "#a855f7", text: "text-purple-700 dark:text-purple-400", label: "merged into" },
  derived_from: { color: "#f59e0b", text: "text-amber-700 dark:text-amber-400", label: "derived from" },
};

export const fmt2 = (n: number | null | undefined) => (n === null || n === undefined || Number.isNaN(n) ? "—" : n.toFixed(2));
export const fmt3 = (n: number | null | undefined) => (n === null || n === undefined || Number.isNaN(n) ? "—" : n.toFixed(3));
export const clamp01 = (n: number) => Math.min(1, Math.max(0, n));

export type DiffPart = { text: string; kind: "same" | "added" | "removed" };

/** Word-level diff: LCS over words (each with its trailing whitespace); within each changed stretch the removed words come first, then the added ones. */
export function wordDiff(before: string, after: string): DiffPart[] {
  const a = before.match(/\s*\S+\s*/g) ?? (before ? [before] : []);
  const b = after.match(/\s*\S+\s*/g) ?? (after ? [after] : []);
  const ka = a.map((t) => t.trim());
  const kb = b.map((t) => t.trim());
  // Very long texts: fall back to whole-text replace rather than an O(n·m) table.
  if (a.length * b.length > 4_000_000) {
    return [...(before ? [{ text: before, kind: "removed" as const }] : []), ...(after ? [{ text: after, kind: "added" as const }] : [])];
  }
  const n = a.length;
  const m = b.length;
  const dp: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) dp[i][j] = ka[i] === kb[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
  const out: DiffPart[] = [];
  let removed = "";
  let added = "";
  const flush = () => {
    if (removed) out.push({ text: removed, kind: "removed" });
    if (added) out.push({ text: added, kind: "added" });
    removed = added = "";
  };
  const same = (t: string) => {
    flush();
    const last = out[out.length - 1];
    if (last && last.kind === "same") last.text += t;
    else out.push({ text: t, kind: "same" });
  };
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (ka[i] === kb[j]) {
      same(b[j]);
      i++;
      j++;
    } else if (dp[i + 1][j] >= dp[i][j + 1]) removed += a[i++];
    else added += b[j++];
  }
  while (i < n) removed += a[i++];
  while (j < m) added += b[j++];
  flush();
  return out;
}

export function stringifyField(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(3);
  return JSON.stringify(v, null, 2);
}
