import type { Op } from "./op";

// Merge, compress, extract, review queue, bulk, memory.md, metrics.
export const MEMORY_CURATION_OPS: Op[] = [];
