import { z } from "zod";
import {
  ZActorReason,
  ZBulkInput,
  ZBulkResult,
  ZBulkUndoResult,
  ZCompressApplyInput,
  ZCompressApplyResult,
  ZCompressPreview,
  ZCompressPreviewInput,
  ZExtractInput,
  ZExtractResult,
  ZMemoryMdApplied,
  ZMemoryMdDiff,
  ZMemoryMdInput,
  ZMemoryMdQuery,
  ZMemoryMetrics,
  ZMergeInput,
  ZMergeResult,
  ZMergeSuggestInput,
  ZMergeSuggestion,
  ZReviewItem,
  ZReviewListQuery,
  ZReviewResolve,
  ZReviewResolved,
  ZUnmergeResult,
} from "../../memories/curation-schemas";
import { page, type Op } from "./op";

const tag = "curation";

// Merge, compress, extract, review queue, bulk, memory.md, metrics.
export const MEMORY_CURATION_OPS: Op[] = [
  { tag, method: "post", path: "/memories/merge", summary: "Merge 2-50 active memories of one user into a new one (sources archived, merged_into relations)", body: ZMergeInput, response: ZMergeResult, status: 201, errors: [400, 404, 413, 422, 502] },
  { tag, method: "post", path: "/memories/merge/suggest", summary: "Suggested merged text (chat model when configured, else the distinct sentences)", body: ZMergeSuggestInput, response: ZMergeSuggestion, errors: [400, 404, 422, 502] },
  { tag, method: "post", path: "/memories/{id}/unmerge", summary: "Undo a merge: restore the sources, archive the merged memory", body: ZActorReason, response: ZUnmergeResult, errors: [400, 404, 422] },
  { tag, method: "post", path: "/users/{user_id}/memories/compress/preview", summary: "Propose compressions of old, rarely accessed memories, grouped by type", body: ZCompressPreviewInput, response: ZCompressPreview, errors: [400, 422, 502] },
  { tag, method: "post", path: "/users/{user_id}/memories/compress/apply", summary: "Write (possibly edited) proposals: new memories derived_from the archived originals", body: ZCompressApplyInput, response: ZCompressApplyResult, status: 201, errors: [400, 404, 413, 422, 502] },
  { tag, method: "post", path: "/users/{user_id}/memories/extract", summary: "Extract memory candidates from a conversation thread into the review queue (422 when the conversation belongs to another end user)", body: ZExtractInput, response: ZExtractResult, status: 201, errors: [400, 404, 422, 502] },
  { tag, method: "get", path: "/users/{user_id}/review", summary: "The review queue (duplicates, contradictions, extracted candidates)", query: ZReviewListQuery, response: page(ZReviewItem), errors: [422] },
  { tag, method: "post", path: "/users/{user_id}/review/{item_id}/resolve", summary: "Resolve a review item: keep / merge / archive, or approve / reject", body: ZReviewResolve, response: ZReviewResolved, errors: [400, 404, 409, 422, 502] },
  { tag, method: "post", path: "/users/{user_id}/memories/bulk", summary: "Archive, restore, set type or importance of up to 1000 memories, all or nothing", body: ZBulkInput, response: ZBulkResult, errors: [400, 413, 422] },
  { tag, method: "post", path: "/users/{user_id}/memories/bulk/{batch_id}/undo", summary: "Undo a bulk batch (409 when a memory changed since)", body: ZActorReason, response: ZBulkUndoResult, errors: [400, 404, 409, 422] },
  { tag, method: "get", path: "/users/{user_id}/memories/metrics", summary: "Counts, average importance, retrieval latency, most accessed", response: ZMemoryMetrics },
  { tag, method: "get", path: "/users/{user_id}/memory-md", summary: "memory.md or learnings.md export (text/markdown)", query: ZMemoryMdQuery, response: z.string().describe("text/markdown"), errors: [422] },
  { tag, method: "post", path: "/users/{user_id}/memory-md/preview", summary: "What applying an edited memory.md / learnings.md would change", body: ZMemoryMdInput, response: ZMemoryMdDiff, errors: [400, 413, 422] },
  { tag, method: "post", path: "/users/{user_id}/memory-md/apply", summary: "Apply an edited memory.md / learnings.md in one transaction", body: ZMemoryMdInput, response: ZMemoryMdApplied, errors: [400, 413, 422, 502] },
];
