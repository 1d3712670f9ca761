import { describe, expect, it } from "vitest";
import { userVectorIndexMin } from "@/lib/embeddings/user-vector-indexes";
import { EXACT_SCAN_MAX_MEMORIES, exactScanMaxMemories } from "@/lib/memories/exact-scan-max";

// The two search thresholds operators set by env: the exact-scan limit, and the size from which
// a user gets an HNSW index of their own (by default just above that limit).

/** An environment holding only these variables (NODE_ENV is required by the type, not the code). */
const env = (vars: Record<string, string> = {}) => vars as NodeJS.ProcessEnv;

describe("search thresholds from the environment", () => {
  it("the exact-scan limit is 5 000 unless MEMSCOPE_EXACT_SCAN_MAX says otherwise; a malformed value names the variable", () => {
    expect(exactScanMaxMemories(env())).toBe(EXACT_SCAN_MAX_MEMORIES);
    expect(EXACT_SCAN_MAX_MEMORIES).toBe(5000);
    expect(exactScanMaxMemories(env({ MEMSCOPE_EXACT_SCAN_MAX: " 400 " }))).toBe(400);
    expect(exactScanMaxMemories(env({ MEMSCOPE_EXACT_SCAN_MAX: "0" }))).toBe(0);
    for (const bad of ["-1", "12.5", "many"]) {
      expect(() => exactScanMaxMemories(env({ MEMSCOPE_EXACT_SCAN_MAX: bad }))).toThrow(/MEMSCOPE_EXACT_SCAN_MAX must be a whole number/);
    }
  });

  it("a user's own index starts just above the exact-scan limit unless MEMSCOPE_USER_VECTOR_INDEX_MIN says otherwise", () => {
    expect(userVectorIndexMin(env())).toBe(5001);
    expect(userVectorIndexMin(env({ MEMSCOPE_EXACT_SCAN_MAX: "400" }))).toBe(401);
    expect(userVectorIndexMin(env({ MEMSCOPE_EXACT_SCAN_MAX: "400", MEMSCOPE_USER_VECTOR_INDEX_MIN: "590" }))).toBe(590);
    expect(() => userVectorIndexMin(env({ MEMSCOPE_USER_VECTOR_INDEX_MIN: "x" }))).toThrow(/MEMSCOPE_USER_VECTOR_INDEX_MIN/);
  });
});
