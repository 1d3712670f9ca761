import { z } from "zod";
import { ZActor, ZContent, ZDedupe, ZMemory, ZMemoryType } from "./schemas";

// Contracts of the curation API (merge, compress, extract, review queue, bulk,
// memory.md, metrics). Client-safe: zod only.

const ZUnit = z.number().min(0).max(1);
const ZReason = z.string().max(2000);
const ZStructured = z.record(z.string(), z.unknown());

function distinct(ids: string[]) {
  return new Set(ids).size === ids.length;
}

// ---------- merge / unmerge ----------

export const ZMergeInput = z
  .object({
    ids: z
      .array(z.uuid())
      .min(2, "give at least 2 memories to merge")
      .max(50)
      .refine(distinct, "ids must be distinct"),
    content: ZContent,
    memory_type: ZMemoryType.optional().describe("Default: the most common type of the sources."),
    actor: ZActor.optional(),
    reason: ZReason.optional(),
  })
  .strict();
export type MergeInput = z.infer<typeof ZMergeInput>;

export const ZMergeResult = ZMemory.extend({
  merged_from: z.array(z.string()).describe("The source memories, now archived with a merged_into relation."),
  batch_id: z.string(),
});
export type MergeResult = z.infer<typeof ZMergeResult>;

export const ZMergeSuggestInput = z
  .object({ ids: z.array(z.uuid()).min(2).max(50).refine(distinct, "ids must be distinct") })
  .strict();
export type MergeSuggestInput = z.infer<typeof ZMergeSuggestInput>;

export const ZMergeSuggestion = z.object({ content: z.string(), source: z.enum(["chat", "local"]) });
export type MergeSuggestion = z.infer<typeof ZMergeSuggestion>;

export const ZActorReason = z.object({ actor: ZActor.optional(), reason: ZReason.optional() }).strict();
export type ActorReason = z.infer<typeof ZActorReason>;

export const ZUnmergeResult = z.object({
  memory: ZMemory.describe("The merge result, now archived."),
  restored: z.array(ZMemory),
  batch_id: z.string(),
});
export type UnmergeResult = z.infer<typeof ZUnmergeResult>;

// ---------- compress ----------

export const ZCompressPreviewInput = z
  .object({
    older_than_days: z.number().min(0).max(36500).default(90).describe("Not accessed (or, never accessed, not created) for this many days."),
    max_access_count: z.number().int().min(1).max(1_000_000).default(5).describe("Only memories accessed fewer times than this."),
    memory_types: z.array(ZMemoryType).min(1).optional(),
    min_group_size: z.number().int().min(2).max(1000).default(3),
    similarity_threshold: z.number().min(0).max(1).default(0.5).describe("Local clustering: cosine to a cluster's first memory."),
  })
  .strict();
export type CompressPreviewInput = z.infer<typeof ZCompressPreviewInput>;

export const ZCompressedItem = z
  .object({
    content: ZContent,
    importance_score: ZUnit.default(0.5),
    source_ids: z.array(z.uuid()).min(1).optional().describe("The sources this item summarizes (default: all of the proposal's)."),
  })
  .strict();

export const ZCompressProposal = z
  .object({
    memory_type: ZMemoryType,
    source_ids: z.array(z.uuid()).min(2).max(500).refine(distinct, "source_ids must be distinct"),
    compressed: z.array(ZCompressedItem).min(1).max(3),
    method: z.enum(["chat", "local-cluster"]).optional(),
  })
  .strict();
export type CompressProposal = z.infer<typeof ZCompressProposal>;

export const ZCompressPreview = z.object({
  proposals: z.array(
    z.object({
      memory_type: ZMemoryType,
      source_ids: z.array(z.string()),
      sources: z.array(z.object({ id: z.string(), content: z.string(), importance_score: z.number() })),
      compressed: z.array(z.object({ content: z.string(), importance_score: z.number(), source_ids: z.array(z.string()) })),
      method: z.enum(["chat", "local-cluster"]),
    }),
  ),
  eligible: z.number().int().describe("Memories that met the age and access criteria."),
  truncated: z.boolean().describe("More memories were eligible than one preview considers (2000)."),
});
export type CompressPreview = z.infer<typeof ZCompressPreview>;

export const ZCompressApplyInput = z
  .object({
    proposals: z.array(ZCompressProposal).min(1).max(200),
    actor: ZActor.optional(),
    reason: ZReason.optional(),
  })
  .strict();
export type CompressApplyInput = z.infer<typeof ZCompressApplyInput>;

export const ZCompressApplyResult = z.object({
  batch_id: z.string(),
  created: z.array(ZMemory),
  archived_ids: z.array(z.string()),
  counts: z.object({ proposals: z.number().int(), created: z.number().int(), archived: z.number().int() }),
});
export type CompressApplyResult = z.infer<typeof ZCompressApplyResult>;

// ---------- extract ----------

export const ZExtractInput = z
  .object({
    conversation_id: z.uuid(),
    leaf_message_id: z.uuid().optional(),
  })
  .strict();
export type ExtractInput = z.infer<typeof ZExtractInput>;

export const ZCandidate = z.object({
  memory_type: ZMemoryType,
  content: ZContent,
  structured_data: ZStructured.nullish(),
  importance_score: ZUnit.optional(),
});
export type Candidate = z.infer<typeof ZCandidate>;

// ---------- review queue ----------

// A contradiction between memories is a `contradicts` relation (the design doc's
// memory_relations), set by a person or an agent; the queue holds what the system finds.
export const REVIEW_KINDS = ["duplicate", "extracted"] as const;
export const ZReviewKind = z.enum(REVIEW_KINDS);

export const ZReviewItem = z.object({
  id: z.string(),
  user_id: z.string(),
  kind: ZReviewKind,
  status: z.enum(["open", "resolved"]),
  memory_id: z.string().nullable(),
  other_memory_id: z.string().nullable(),
  memory: ZMemory.nullable(),
  other_memory: ZMemory.nullable(),
  candidate: z
    .object({
      memory_type: ZMemoryType,
      content: z.string(),
      structured_data: ZStructured.nullable().optional(),
      importance_score: z.number().optional(),
      source_message_id: z.string().nullable().optional(),
      evidence: z.string().nullable().optional(),
    })
    .loose()
    .nullable(),
  similarity: z.number().nullable(),
  reason: z.string().nullable(),
  source_session_id: z.string().nullable(),
  resolution: z.string().nullable(),
  created_at: z.string(),
  resolved_at: z.string().nullable(),
});
export type ReviewItem = z.infer<typeof ZReviewItem>;

export const ZExtractResult = z.object({
  data: z.array(ZReviewItem),
  method: z.enum(["chat", "rules"]),
  turns: z.number().int().describe("Turns of the thread that were read."),
  skipped: z.number().int().describe("Candidates dropped: malformed, or already waiting in the queue."),
});
export type ExtractResult = z.infer<typeof ZExtractResult>;

export const ZReviewListQuery = z
  .object({
    status: z.enum(["open", "resolved"]).default("open"),
    kind: ZReviewKind.optional(),
    cursor: z.string().max(500).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();
export type ReviewListQuery = z.infer<typeof ZReviewListQuery>;

export const REVIEW_ACTIONS = ["keep", "merge", "archive", "approve", "reject"] as const;
export const ZReviewResolve = z
  .object({
    action: z.enum(REVIEW_ACTIONS).describe("duplicate: keep, merge, archive (the newer one); extracted: approve, reject."),
    content: ZContent.optional().describe("merge: the merged text (suggested when omitted); approve: an edited candidate text."),
    memory_type: ZMemoryType.optional().describe("approve: override the candidate's type."),
    importance_score: ZUnit.optional().describe("approve: override the candidate's importance."),
    actor: ZActor.optional(),
  })
  .strict();
export type ReviewResolve = z.infer<typeof ZReviewResolve>;

export const ZReviewResolved = z.object({
  item: ZReviewItem,
  memory: ZMemory.nullable().describe("merge: the merged memory; archive: the archived one; approve: the saved one."),
  dedupe: ZDedupe.nullable().describe("approve: what the save's dedupe did."),
});
export type ReviewResolved = z.infer<typeof ZReviewResolved>;

// ---------- bulk ----------

export const BULK_LIMIT = 1000;

export const ZBulkFilter = z
  .object({
    memory_type: ZMemoryType.optional(),
    status: z.enum(["active", "archived", "all"]).optional().describe("Default: active for archive/set_*, archived for restore."),
    q: z.string().trim().min(1).max(500).optional().describe("Substring of content, case-insensitive."),
    min_importance: ZUnit.optional(),
    max_importance: ZUnit.optional(),
  })
  .strict();
export type BulkFilter = z.infer<typeof ZBulkFilter>;

export const ZBulkInput = z
  .object({
    action: z.enum(["archive", "restore", "set_type", "set_importance"]),
    ids: z.array(z.uuid()).min(1).max(BULK_LIMIT).refine(distinct, "ids must be distinct").optional(),
    filter: ZBulkFilter.optional(),
    memory_type: ZMemoryType.optional(),
    importance_score: ZUnit.optional(),
    actor: ZActor.optional(),
    reason: ZReason.optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if ((v.ids === undefined) === (v.filter === undefined)) {
      ctx.addIssue({ code: "custom", path: ["ids"], message: "give either ids or filter" });
    }
    if (v.action === "set_type" && !v.memory_type) ctx.addIssue({ code: "custom", path: ["memory_type"], message: "required for set_type" });
    if (v.action === "set_importance" && v.importance_score === undefined) {
      ctx.addIssue({ code: "custom", path: ["importance_score"], message: "required for set_importance" });
    }
  });
export type BulkInput = z.infer<typeof ZBulkInput>;

export const ZBulkResult = z.object({
  batch_id: z.string(),
  affected: z.number().int(),
  ids: z.array(z.string()).describe("The memories that changed (already matching ones are not counted)."),
});
export type BulkResult = z.infer<typeof ZBulkResult>;

export const ZBulkUndoResult = ZBulkResult.extend({ undone_batch_id: z.string() });
export type BulkUndoResult = z.infer<typeof ZBulkUndoResult>;

// ---------- memory.md / learnings.md ----------

export const ZMemoryMdFile = z.enum(["memory", "learnings"]);
export type MemoryMdFile = z.infer<typeof ZMemoryMdFile>;

export const ZMemoryMdQuery = z.object({ file: ZMemoryMdFile.default("memory") }).strict();

export const ZMemoryMdInput = z
  .object({
    file: ZMemoryMdFile,
    text: z.string().max(5_000_000),
    actor: ZActor.optional(),
  })
  .strict();
export type MemoryMdInput = z.infer<typeof ZMemoryMdInput>;

const ZMdFields = z.object({ memory_type: ZMemoryType, content: z.string(), importance_score: z.number() });

export const ZMemoryMdDiff = z.object({
  added: z.array(z.object({ memory_type: ZMemoryType, content: z.string(), importance_score: z.number(), line: z.number().int() })),
  changed: z.array(z.object({ id: z.string(), before: ZMdFields, after: ZMdFields, line: z.number().int() })),
  archived: z.array(z.object({ id: z.string(), content: z.string(), memory_type: ZMemoryType })),
  unchanged: z.number().int(),
});
export type MemoryMdDiff = z.infer<typeof ZMemoryMdDiff>;

export const ZMemoryMdApplied = ZMemoryMdDiff.extend({ batch_id: z.string() });
export type MemoryMdApplied = z.infer<typeof ZMemoryMdApplied>;

// ---------- metrics ----------

export const ZMemoryMetrics = z.object({
  totals: z.object({
    by_type: z.record(z.string(), z.number().int()),
    by_status: z.record(z.string(), z.number().int()),
    total: z.number().int(),
  }),
  average_importance: z.number().nullable().describe("Over active memories; null when there are none."),
  retrieval: z.object({ count: z.number().int(), p50_ms: z.number().nullable(), p99_ms: z.number().nullable() }),
  most_accessed: z.array(z.object({ memory: ZMemory, access_count: z.number().int() })),
  recent_retrievals: z.array(
    z.object({ id: z.string(), query: z.string(), result_count: z.number().int(), latency_ms: z.number(), created_at: z.string() }),
  ),
});
export type MemoryMetrics = z.infer<typeof ZMemoryMetrics>;
