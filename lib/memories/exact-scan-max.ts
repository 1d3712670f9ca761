// A user with at most this many memories (of the searched status) is searched by an exact
// scan of their own rows instead of the HNSW graph (lib/memories/search-memories.ts says why,
// with the measurements behind the default). MEMSCOPE_EXACT_SCAN_MAX moves the line: the
// crossing point moves with the store's size and the machine.
export const EXACT_SCAN_MAX_MEMORIES = 5000;

export function exactScanMaxMemories(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.MEMSCOPE_EXACT_SCAN_MAX?.trim();
  if (!raw) return EXACT_SCAN_MAX_MEMORIES;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`MEMSCOPE_EXACT_SCAN_MAX must be a whole number >= 0 (got ${raw})`);
  return n;
}
