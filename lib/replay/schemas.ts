import { z } from "zod";
import { MEMORY_FORMATS, SECTION_NAMES, ZContextInput, ZContextResult } from "../context/schemas";
import { ZBreakdown, ZMemoryStatus, ZMemoryType, ZWeights } from "../memories/schemas";
import { ZProfileSettings } from "../profiles/schemas";
import { ZRoleMessage, ZStrategy } from "../strategies/schemas";
import { int32, ZDateTime } from "../http/scalars";
import { ZUserIdInput } from "../http/user-id";

// POST /api/v1/replay (issue 22, part 3): one past turn replayed as it ran then. Client-safe.

const ZWeight = z.number().min(0).max(10);

/** Changes to a profile's settings: each field given replaces it (memory and its weights field by field). */
export const ZSettingsOverrides = z
  .object({
    model: z.string().trim().min(1).max(100).optional(),
    strategy: ZStrategy.optional(),
    system_prompt: z.string().max(200_000).optional(),
    reserved_output_tokens: z.number().int().min(0).max(10_000_000).optional(),
    // No defaults here: an override names only what it changes.
    memory: z
      .object({
        enabled: z.boolean().optional(),
        k: z.number().int().min(1).max(100).optional(),
        memory_types: z.array(ZMemoryType).min(1).optional(),
        min_score: z.number().min(-10).max(10).optional(),
        // Not ZWeights.partial(): zod fills a missing weight with its default there, and an
        // override of one weight would reset the other two.
        weights: z.object({ similarity: ZWeight.optional(), recency: ZWeight.optional(), importance: ZWeight.optional() }).strict().optional(),
        format: z.enum(MEMORY_FORMATS).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type SettingsOverrides = z.infer<typeof ZSettingsOverrides>;

export const ZVariant = z
  .object({
    label: z.string().trim().min(1).max(200).optional(),
    profile_version: int32(1).optional().describe("Start from this version of the app's profile instead of the original's settings."),
    overrides: ZSettingsOverrides.optional(),
  })
  .strict();

export const ZReplayInput = z
  .object({
    conversation_id: z.uuid(),
    message_id: z.uuid().describe("The turn to replay (a message of the conversation): its query is the query, the thread before it the history."),
    as_of: ZDateTime.optional().describe("The instant whose memories and profile are used; default the turn's time."),
    user_id: ZUserIdInput.optional().describe("Whose memories: default the conversation's end user (required when it has none)."),
    profile_version: int32(1).optional().describe("This version of the app's profile instead of the one in force then."),
    overrides: ZSettingsOverrides.optional(),
    variants: z.array(ZVariant).max(10).optional(),
    explain: z.array(z.uuid()).max(100).optional().describe("Memories to explain (why in, why out) besides those the retrieval ranked."),
  })
  .strict();
export type ReplayInput = z.infer<typeof ZReplayInput>;

export const WHY_RULES = [
  "included",
  "token_budget",
  "k",
  "min_score",
  "not_a_candidate",
  "status",
  "type_filter",
  "memory_disabled",
  "created_after_turn",
  "deleted_before_turn",
  "other_user",
  "unknown_memory",
] as const;

export const ZWhy = z.object({
  memory_id: z.string(),
  in_prompt: z.boolean(),
  rule: z.enum(WHY_RULES).describe("What put it in or kept it out: included; token_budget (ranked, then cut to fit the window); k; min_score; not_a_candidate (neither among the nearest nor a full-text match); status; type_filter; memory_disabled; created_after_turn; deleted_before_turn; other_user; unknown_memory."),
  reason: z.string(),
  rank: z.number().int().nullable().describe("Rank among every candidate of the search then (before k and min_score)."),
  score: z.number().nullable(),
  score_parts: ZBreakdown.nullable(),
  state: z
    .object({
      memory_type: ZMemoryType,
      status: ZMemoryStatus,
      content: z.string(),
      importance_score: z.number(),
      access_count: z.number().int(),
      last_accessed_at: z.string().nullable(),
      version: z.number().int(),
      reconstructed: z.boolean(),
      reconstruction_note: z.string().nullable(),
    })
    .nullable()
    .describe("The memory as it was at the replayed instant (null when it did not exist then or is not this user's)."),
});
export type Why = z.infer<typeof ZWhy>;

const ZProfileUsed = z.object({
  source: z.enum(["profile", "default"]).describe("default: no version of the app's profile was in force (POST /context's defaults, message_window)."),
  app_id: z.string(),
  version: z.number().int().nullable(),
  effective_from: z.string().nullable(),
  overridden: z.array(z.string()).describe("Settings the request changed (dotted names)."),
});

const ZMessageDiff = z.object({ index: z.number().int(), section: z.enum(SECTION_NAMES), message: ZRoleMessage });

export const ZReplayDiff = z.object({
  empty: z.boolean(),
  messages: z.object({
    added: z.array(ZMessageDiff).describe("In the variant's prompt only (index in the variant's messages)."),
    dropped: z.array(ZMessageDiff).describe("In the original's prompt only (index in the original's messages)."),
    changed: z.array(z.object({ index: z.number().int(), original_index: z.number().int(), section: z.enum(SECTION_NAMES), before: ZRoleMessage, after: ZRoleMessage })),
  }),
  memories: z.object({
    in: z.array(z.object({ memory_id: z.string(), rank: z.number().int().nullable(), original_rank: z.number().int().nullable(), original_rule: z.enum(WHY_RULES) })),
    out: z.array(z.object({ memory_id: z.string(), original_rank: z.number().int().nullable(), rank: z.number().int().nullable(), rule: z.enum(WHY_RULES) })),
  }),
  tokens: z.record(z.string(), z.object({ original: z.number().int(), variant: z.number().int(), delta: z.number().int() })).describe("Sections whose tokens changed."),
});
export type ReplayDiff = z.infer<typeof ZReplayDiff>;

const ZRetrievalReplayed = z.object({
  embedding_model: z.string(),
  weights: ZWeights,
  candidate_count: z.number().int(),
  reconstructed: z.boolean().describe("false when the state of some memory of then could not be rebuilt from the history (see why[].state)."),
});

const ZLoggedHit = z.object({ memory_id: z.string(), rank: z.number().int(), score: z.number(), cosine: z.number(), time_decay: z.number(), importance: z.number() });

const ZLogged = z.object({
  retrieval_id: z.string(),
  created_at: z.string(),
  query: z.string(),
  embedding_model: z.string(),
  k: z.number().int(),
  weights: z.record(z.string(), z.number()),
  dry_run: z.boolean(),
  hits: z.array(ZLoggedHit),
  differences: z.array(
    z.object({
      memory_id: z.string(),
      logged_rank: z.number().int().nullable(),
      replayed_rank: z.number().int().nullable(),
      explanation: z.string(),
    }),
  ),
});

const ZTurn = z.object({
  message_id: z.string(),
  created_at: z.string(),
  query: z.string(),
  index: z.number().int().describe("0-based position of the turn in its thread."),
  history_leaf_message_id: z.string().nullable().describe("The last turn of the history (null for a thread's first turn)."),
});

const ZReplayed = z.object({
  profile: ZProfileUsed,
  settings: ZProfileSettings,
  request: ZContextInput.describe("The POST /context body this replay answers (memory as of `as_of`, not today's)."),
  context: ZContextResult.describe("What POST /context would have answered then (retrieval_id null: a replay logs nothing, marks nothing accessed)."),
  retrieval: ZRetrievalReplayed.nullable(),
  why: z.array(ZWhy),
});

export const CHANGE_KINDS = ["created_later", "edited_since", "archived_since", "restored_since", "deleted_since"] as const;

export const ZChangeSince = z.object({
  memory_id: z.string(),
  changes: z.array(z.enum(CHANGE_KINDS)).describe("edited_since: its content, type, importance, confidence or structured data differ from then (or it changed with no history to say how)."),
  memory_type: ZMemoryType,
  content: z.string().describe("Its content now (a deleted memory: when it was deleted)."),
  content_then: z.string().nullable().describe("Its content at the replayed instant, when that differs from now."),
  status: ZMemoryStatus.nullable().describe("Its status now (null: deleted)."),
  created_at: z.string().nullable(),
  changed_at: z.string().describe("Its last change (updated_at), or when it was deleted."),
});
export type ChangeSince = z.infer<typeof ZChangeSince>;

export const ZReplayResult = ZReplayed.extend({
  conversation_id: z.string(),
  app_id: z.string(),
  user_id: z.string(),
  as_of: z.string(),
  turn: ZTurn,
  logged: ZLogged.nullable().describe("The retrieval logged for this conversation around the turn, beside the replayed one, each difference explained."),
  variants: z.array(ZReplayed.extend({ label: z.string(), diff: ZReplayDiff })),
  changes_since: z
    .object({ memories: z.array(ZChangeSince), truncated: z.boolean().describe("More memories changed than listed (the newest are; the replay's own memories always are).") })
    .describe("The user's memories created, edited, archived, restored or deleted after the replayed instant."),
});
export type ReplayResult = z.infer<typeof ZReplayResult>;
