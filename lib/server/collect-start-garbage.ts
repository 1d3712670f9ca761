import { fullGc } from "../process/full-gc";

// Start-up leaves hundreds of MB of garbage behind: on a new data folder PGlite runs initdb in
// a WebAssembly instance of its own (its memory and the data bundle: ~400 MB), and migrations
// and the demo seed allocate more. V8 collects only when something allocates, and a server at
// rest allocates nothing, so without this the process keeps that memory until its first
// requests. Two full collections, a turn apart: the second frees what the first one's
// finalizers let go (WebAssembly memories).

export async function collectStartGarbage(): Promise<void> {
  const gc = fullGc();
  if (!gc) return;
  gc();
  await new Promise((r) => setImmediate(r));
  gc();
}
