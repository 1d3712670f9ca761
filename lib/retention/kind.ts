import type { RetentionCounts } from "./schemas";

// What each kind of rule provides: a preview (counts and samples of what a run now would take)
// and a run with the same counts' keys.

export type KindPreview = { counts: RetentionCounts; samples: Record<string, string | number | null>[] };
export type KindRun = { counts: RetentionCounts; receipts: string[]; complete: boolean };
export type RunContext = {
  /** True once the server is shutting down: the run stops between batches. */
  shouldStop(): boolean;
  /** Who the run acts as in history and receipts ("retention:<rule id>"). */
  by: string;
  ruleId: string;
};
