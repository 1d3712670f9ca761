import type { SearchHit } from "@/client/api-types";

// A retrieval score drawn as three stacked terms (similarity, recency, importance) on a
// shared scale, with the minimum score as a red line: the playground's results and a
// replayed turn's retrieval read the same bars.

export type ScoreParts = Pick<SearchHit["breakdown"], "similarity_term" | "recency_term" | "importance_term">;

export const SCORE_TERMS = [
  { key: "similarity_term", weight: "similarity", label: "Similarity", color: "bg-indigo-500" },
  { key: "recency_term", weight: "recency", label: "Recency", color: "bg-teal-400" },
  { key: "importance_term", weight: "importance", label: "Importance", color: "bg-amber-400" },
] as const;

/**
 * `animated`: the terms' widths ease to new values (the playground's weights moving). The
 * replay's scrubber gives each step new bars: there the easing ran past the next key, a
 * layout and paint every frame (about a fifth of a step's main-thread CPU, docs/benchmarks.md
 * section 72), so it draws them at once.
 */
export function ScoreBar({ parts, scale, minScore, size = "md", animated = true }: { parts: ScoreParts; scale: number; minScore?: number; size?: "sm" | "md"; animated?: boolean }) {
  const pct = (v: number) => `${(Math.max(0, v) / scale) * 100}%`;
  return (
    <div className="relative">
      {minScore !== undefined && minScore > 0 && (
        <span
          aria-hidden
          data-testid="min-score-line"
          className="absolute -top-1 z-10 h-5 w-0.5 bg-red-600 dark:bg-red-400"
          style={{ left: `${Math.min(100, (minScore / scale) * 100)}%` }}
          title={`minimum score ${minScore.toFixed(2)}`}
        />
      )}
      <div
        role="img"
        aria-label={`similarity ${parts.similarity_term.toFixed(3)}, recency ${parts.recency_term.toFixed(3)}, importance ${parts.importance_term.toFixed(3)}`}
        data-testid="stacked-bar"
        className={`flex overflow-hidden rounded-full bg-zinc-100 dark:bg-zinc-800 ${size === "sm" ? "h-2" : "h-3"}`}
      >
        {SCORE_TERMS.map((t) => (
          <span key={t.key} data-testid={`bar-${t.weight}`} className={`${t.color} h-full ${animated ? "transition-[width] duration-300" : ""} first:rounded-l-full`} style={{ width: pct(parts[t.key]) }} title={`${t.label}: ${parts[t.key].toFixed(3)}`} />
        ))}
      </div>
    </div>
  );
}
