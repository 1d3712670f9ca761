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
import { contract, page, pathId, ZPathUserId } from "../contract";

// Merge, compress, extract, review queue, bulk, memory.md, metrics.
const tag = "curation";
const ZUserParams = z.object({ user_id: ZPathUserId });
const MD_LIMIT = 6 * 1024 * 1024;

export const mergeMemories = contract({
  tag, method: "POST", path: "/memories/merge", scope: "memories:write",
  summary: "Merge 2-50 active memories of one user into a new one (sources archived, merged_into relations)",
  body: ZMergeInput, bodyLimit: 256 * 1024, response: ZMergeResult, status: 201, errors: [404, 422, 502],
});

export const suggestMerge = contract({
  tag, method: "POST", path: "/memories/merge/suggest", scope: "memories:write",
  summary: "Suggested merged text (chat model when configured, else the distinct sentences)",
  body: ZMergeSuggestInput, bodyLimit: 64 * 1024, response: ZMergeSuggestion, errors: [404, 422, 502],
});

export const unmergeMemory = contract({
  tag, method: "POST", path: "/memories/{id}/unmerge", scope: "memories:write",
  summary: "Undo a merge: restore the sources, archive the merged memory",
  params: z.object({ id: pathId("Memory") }), body: ZActorReason, bodyOptional: true, bodyLimit: 64 * 1024,
  response: ZUnmergeResult, errors: [404, 422],
});

export const previewCompression = contract({
  tag, method: "POST", path: "/users/{user_id}/memories/compress/preview", scope: "memories:write",
  summary: "Propose compressions of old, rarely accessed memories, grouped by type",
  params: ZUserParams, body: ZCompressPreviewInput, bodyOptional: true, bodyLimit: 64 * 1024,
  response: ZCompressPreview, errors: [422, 502],
});

export const applyCompression = contract({
  tag, method: "POST", path: "/users/{user_id}/memories/compress/apply", scope: "memories:write",
  summary: "Write (possibly edited) proposals: new memories derived_from the archived originals",
  params: ZUserParams, body: ZCompressApplyInput, bodyLimit: 5 * 1024 * 1024, response: ZCompressApplyResult,
  status: 201, errors: [404, 422, 502],
});

export const extractCandidates = contract({
  tag, method: "POST", path: "/users/{user_id}/memories/extract", scope: "memories:write",
  summary: "Extract memory candidates from a conversation thread into the review queue (422 when the conversation belongs to another end user)",
  params: ZUserParams, body: ZExtractInput, bodyLimit: 64 * 1024, response: ZExtractResult, status: 201, errors: [404, 422, 502],
});

export const listReviewItems = contract({
  tag, method: "GET", path: "/users/{user_id}/review", scope: "memories:read",
  summary: "The review queue (near duplicates, extracted candidates)",
  params: ZUserParams, query: ZReviewListQuery, response: page(ZReviewItem), errors: [422],
});

export const resolveReviewItem = contract({
  tag, method: "POST", path: "/users/{user_id}/review/{item_id}/resolve", scope: "memories:write",
  summary: "Resolve a review item: keep / merge / archive, or approve / reject",
  params: ZUserParams.extend({ item_id: pathId("Review item") }), body: ZReviewResolve, bodyLimit: 256 * 1024,
  response: ZReviewResolved, errors: [404, 409, 422, 502],
});

export const bulkUpdate = contract({
  tag, method: "POST", path: "/users/{user_id}/memories/bulk", scope: "memories:write",
  summary: "Archive, restore, set type or importance of up to 1000 memories, all or nothing",
  params: ZUserParams, body: ZBulkInput, bodyLimit: 1024 * 1024, response: ZBulkResult, errors: [422],
});

export const undoBulk = contract({
  tag, method: "POST", path: "/users/{user_id}/memories/bulk/{batch_id}/undo", scope: "memories:write",
  summary: "Undo a bulk batch (409 when a memory changed since)",
  params: ZUserParams.extend({ batch_id: pathId("Batch") }), body: ZActorReason, bodyOptional: true, bodyLimit: 64 * 1024,
  response: ZBulkUndoResult, errors: [404, 409, 422],
});

export const memoryMetrics = contract({
  tag, method: "GET", path: "/users/{user_id}/memories/metrics", scope: "memories:read",
  summary: "Counts, average importance, retrieval latency, most accessed",
  params: ZUserParams, response: ZMemoryMetrics, errors: [422],
});

export const exportMemoryMd = contract({
  tag, method: "GET", path: "/users/{user_id}/memory-md", scope: "memories:read",
  summary: "memory.md (preferences, facts, patterns) or learnings.md (skills) as text/markdown",
  params: ZUserParams, query: ZMemoryMdQuery, produces: "text/markdown", response: z.string(), errors: [422],
});

export const previewMemoryMd = contract({
  tag, method: "POST", path: "/users/{user_id}/memory-md/preview", scope: "memories:read",
  summary: "What applying an edited memory.md / learnings.md would change",
  description: "A read: the `read` grant may call it (a POST only to carry the document). Nothing is written; POST .../memory-md/apply, which needs `write`, applies it.",
  params: ZUserParams, body: ZMemoryMdInput, bodyLimit: MD_LIMIT, response: ZMemoryMdDiff, errors: [422],
});

export const applyMemoryMd = contract({
  tag, method: "POST", path: "/users/{user_id}/memory-md/apply", scope: "memories:write",
  summary: "Apply an edited memory.md / learnings.md in one transaction",
  params: ZUserParams, body: ZMemoryMdInput, bodyLimit: MD_LIMIT, response: ZMemoryMdApplied, errors: [422, 502],
});

export const CURATION_CONTRACTS = [
  mergeMemories, suggestMerge, unmergeMemory, previewCompression, applyCompression, extractCandidates, listReviewItems,
  resolveReviewItem, bulkUpdate, undoBulk, memoryMetrics, exportMemoryMd, previewMemoryMd, applyMemoryMd,
];
