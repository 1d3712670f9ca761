import path from "node:path";

export type DbConfig =
  | { kind: "pglite"; dataDir: string; sharedBuffers?: string }
  | { kind: "postgres"; url: string };

/** DATABASE_URL=postgres(ql)://... selects a server; otherwise PGlite in MEMSCOPE_DATA_DIR. */
export function readDbConfig(env: NodeJS.ProcessEnv = process.env): DbConfig {
  const url = env.DATABASE_URL?.trim();
  if (url) {
    if (!/^postgres(ql)?:\/\//.test(url)) {
      throw new Error(`DATABASE_URL must start with postgresql:// (got "${url.split(":")[0]}:")`);
    }
    return { kind: "postgres", url };
  }
  const dir = env.MEMSCOPE_DATA_DIR?.trim() || ".data";
  return { kind: "pglite", dataDir: path.resolve(/*turbopackIgnore: true*/ dir), sharedBuffers: readSharedBuffers(env) };
}

/**
 * PGlite's buffer pool. PostgreSQL's default of 128MB is touched at start inside the WASM
 * memory, which never shrinks: 64MB held a server at rest ~80 MB lower (docs/benchmarks.md),
 * and the data folder's files stay in the OS page cache behind it. Raise it for large stores.
 */
export const DEFAULT_PGLITE_SHARED_BUFFERS = "64MB";

/**
 * PGlite's ANALYZE sample: 300 rows per unit of target, each copied whole into the WASM memory,
 * which never shrinks. At PostgreSQL's default of 100 that is 30 000 rows (~50 MB of 1.6 KB
 * turns after a large import, held for the life of the server); 10 samples 3 000 rows. The
 * embedded database's queries are lookups by project, conversation and id, which a coarser
 * histogram does not change. A PostgreSQL server keeps its default.
 */
export const PGLITE_STATISTICS_TARGET = 10;

function readSharedBuffers(env: NodeJS.ProcessEnv): string {
  const raw = env.MEMSCOPE_PGLITE_SHARED_BUFFERS?.trim() || DEFAULT_PGLITE_SHARED_BUFFERS;
  const m = /^(\d+)\s*(kB|MB|GB)$/.exec(raw);
  const mb = m ? Number(m[1]) / (m[2] === "kB" ? 1024 : m[2] === "GB" ? 1 / 1024 : 1) : NaN;
  if (!(mb >= 1 && mb <= 1024)) {
    throw new Error(`MEMSCOPE_PGLITE_SHARED_BUFFERS must be a size between 1MB and 1GB, like 64MB; got "${raw}"`);
  }
  return `${m![1]}${m![2]}`;
}
