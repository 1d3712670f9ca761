import { z } from "zod";

// Request and answer shapes of the retention routes (lib/api/contracts/retention.ts).

export const RULE_KINDS = ["delete_conversations", "erase_inactive_users", "archive_memories"] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

export const ZRuleKind = z
  .enum(RULE_KINDS)
  .describe(
    "delete_conversations: conversations whose last turn is older than `days` (with their turns, files, node memory, summaries, offloaded contents and retrievals); " +
      "erase_inactive_users: end users with no conversation or memory activity for `days` (each through the user erasure, with its receipt); " +
      "archive_memories: active memories not retrieved (or, never retrieved, not created) for `days`, archived (never destroyed; restorable).",
  );

const ZDays = z.number().int("a whole number of days").min(1, "1 to 36500").max(36500, "1 to 36500");

export const ZRuleCreate = z.strictObject({
  kind: ZRuleKind,
  days: ZDays,
  enabled: z.boolean().default(false).describe("Off by default: preview it, then turn it on."),
});
export type RuleCreate = z.infer<typeof ZRuleCreate>;

export const ZRulePatch = z
  .strictObject({ days: ZDays.optional(), enabled: z.boolean().optional() })
  .refine((p) => p.days !== undefined || p.enabled !== undefined, { message: "give days or enabled", path: ["days"] });
export type RulePatch = z.infer<typeof ZRulePatch>;

/** Rows per kind of thing a run removes or archives: conversations/turns, users/rows, memories. */
export const ZRetentionCounts = z.record(z.string(), z.number().int());
export type RetentionCounts = z.infer<typeof ZRetentionCounts>;

export const ZRetentionRun = z.object({
  run_id: z.string(),
  rule_id: z.string(),
  kind: ZRuleKind,
  days: z.number().int(),
  trigger: z.enum(["schedule", "manual"]),
  cutoff: z.iso.datetime({ offset: true }).describe("Things last active before this time were in scope."),
  started_at: z.iso.datetime({ offset: true }),
  finished_at: z.iso.datetime({ offset: true }),
  by: z.string(),
  counts: ZRetentionCounts,
  /** Erasure receipts (erase_inactive_users): one audit event "user.erased" each. */
  receipts: z.array(z.string()).describe("Receipt ids of the user erasures this run made (audit events user.erased)."),
  complete: z.boolean().describe("False when the run stopped early (shutdown); the next run goes on from what is left."),
});
export type RetentionRun = z.infer<typeof ZRetentionRun>;

export const ZRetentionRule = z.object({
  id: z.string(),
  kind: ZRuleKind,
  days: z.number().int(),
  enabled: z.boolean(),
  created_by: z.string().nullable(),
  created_at: z.iso.datetime({ offset: true }),
  updated_at: z.iso.datetime({ offset: true }),
  next_run_at: z.iso.datetime({ offset: true }).describe("When the daily schedule runs it next (if enabled)."),
  last_run_at: z.iso.datetime({ offset: true }).nullable(),
  last_runs: z.array(ZRetentionRun).describe("The newest runs first (up to 5), from the audit log."),
});
export type RetentionRule = z.infer<typeof ZRetentionRule>;

export const ZRetentionRules = z.object({ data: z.array(ZRetentionRule) });

export const ZRetentionSample = z.record(z.string(), z.union([z.string(), z.number(), z.null()]));

export const ZRetentionPreview = z.object({
  rule_id: z.string(),
  kind: ZRuleKind,
  days: z.number().int(),
  cutoff: z.iso.datetime({ offset: true }),
  counts: ZRetentionCounts.describe("What a run now would remove or archive; a run's counts have the same keys."),
  samples: z.array(ZRetentionSample).describe("Up to 5 of the things in scope, oldest first."),
});
export type RetentionPreview = z.infer<typeof ZRetentionPreview>;
