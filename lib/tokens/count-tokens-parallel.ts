import os from "node:os";
import path from "node:path";
import { Piscina } from "piscina";
import { estimateTokens } from "./bounded-count.mjs";
import { countText } from "./count-tokens";
import { ENCODINGS, type EncodingName } from "./registry";

// Counting tokens of a request's texts is CPU work: off the request thread (a piscina pool)
// whenever it is more than a few milliseconds, so one large body never delays other
// requests. Small batches are counted inline, where messaging would cost more than it saves.

/** Where a batch was counted: the worker pool, or inline on the calling thread (small batch, or the pool failed). */
export type CountPath = "pool" | "inline";

export type TokenCounts = {
  o200k_base: Int32Array;
  cl100k_base: Int32Array;
  /** 1 where a text's count is approximate in either encoding (a piece over MAX_PIECE_BYTES, or the time bound hit). */
  approximate: Uint8Array;
  path: CountPath;
};

/** Below this many characters in all, a batch is counted inline (a few ms at most). */
export const INLINE_BELOW_CHARS = 32 * 1024;
/**
 * Counting time a slice may take in its worker (measured there, from when it starts); texts
 * past it are estimated (bounded-count.mjs `estimateTokens`) and flagged approximate. Never
 * reached at the linear cost above; a bound, not an expectation.
 */
const COUNT_BOUND_MS = 10_000;
const COUNT_BOUND_MS_PER_MB = 10_000;
/**
 * Time a slice may take from the moment it is queued, for a worker that stalls (it never
 * answers): then the slice is estimated. Generous, since it also holds the pool's queue and a
 * worker's start (loading tiktoken), which on a loaded machine took over 10 s.
 */
const STALL_BOUND_MS = 120_000;
/**
 * A worker ends after this long without work, so a server at rest gives its encoder's memory
 * back; a steady stream of large batches keeps it.
 */
const POOL_IDLE_MS = 10_000;
/**
 * A worker's young generation: its slices' texts are short-lived, and V8's default young
 * generation (tens of MB per thread, grown under a steady stream of slices) held ~35 MB more
 * per worker at the same speed (bench/diag/import-token-pool-memory.mjs).
 */
const WORKER_YOUNG_GENERATION_MB = 8;

// One pool per encoding: a worker only ever builds the encoder of its pool. With one pool for
// both, each worker was handed slices of either encoding and ended up holding both encoders
// (o200k ~65 MB, cl100k ~40 MB of WASM memory per thread): two workers, four encoders, ~200 MB
// of a 600 MB budget for an import. Split this way, the process holds each encoder once.
const pools = new Map<EncodingName, Piscina>();
let poolBroken = false;

/** Worker threads per encoding: the two encodings already count in parallel, so one each up to 3 cores. */
export function threadsPerEncoding(): number {
  return Math.max(1, Math.floor(Math.min(4, os.availableParallelism()) / 2));
}

// The worker is a plain .mjs file read at run time from the app folder, not a bundled
// module: the bundler leaves it alone and it resolves tiktoken from node_modules.
function workerFile(): string {
  return path.join(process.cwd(), "lib", "tokens", "token-worker.mjs");
}

function getPool(encoding: EncodingName): Piscina | null {
  if (poolBroken) return null;
  let pool = pools.get(encoding);
  if (!pool) {
    try {
      pool = new Piscina({
        filename: workerFile(),
        workerData: { encoding },
        minThreads: 0,
        maxThreads: threadsPerEncoding(),
        idleTimeout: POOL_IDLE_MS,
        resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
      });
    } catch {
      poolBroken = true;
      return null;
    }
    pools.set(encoding, pool);
  }
  return pool;
}

/** Both encodings' pools, or null when the pool cannot run here. */
function getPools(): Record<EncodingName, Piscina> | null {
  const o = getPool("o200k_base");
  const c = getPool("cl100k_base");
  return o && c ? { o200k_base: o, cl100k_base: c } : null;
}

type Slice = { start: number; texts: string[]; chars: number };

/** Consecutive slices of about equal length in characters, at most `parts` of them. */
function slices(texts: string[], parts: number, totalChars: number): Slice[] {
  const out: Slice[] = [];
  const target = totalChars / parts;
  let cur: Slice = { start: 0, texts: [], chars: 0 };
  texts.forEach((t, i) => {
    if (cur.texts.length && cur.chars >= target && out.length < parts - 1) {
      out.push(cur);
      cur = { start: i, texts: [], chars: 0 };
    }
    cur.texts.push(t);
    cur.chars += t.length;
  });
  out.push(cur);
  return out;
}

function countInline(texts: string[]): TokenCounts {
  const out: TokenCounts = {
    o200k_base: new Int32Array(texts.length),
    cl100k_base: new Int32Array(texts.length),
    approximate: new Uint8Array(texts.length),
    path: "inline",
  };
  texts.forEach((t, i) => {
    for (const e of ENCODINGS) {
      const r = countText(t, e);
      out[e][i] = r.tokens;
      if (r.approximate) out.approximate[i] = 1;
    }
  });
  return out;
}

function estimate(slice: Slice): { tokens: Int32Array; approximate: Uint8Array } {
  const tokens = Int32Array.from(slice.texts, estimateTokens);
  return { tokens, approximate: new Uint8Array(slice.texts.length).fill(1) };
}

class PoolStalled extends Error {}

/** The counting and stall bounds of a slice (ms); `boundMs` replaces both (see countTextsAllEncodings). */
function sliceBounds(slice: Slice, boundMs: number | undefined): { count: number; stall: number } {
  if (boundMs !== undefined) return { count: boundMs, stall: boundMs };
  return { count: Math.round(COUNT_BOUND_MS + (COUNT_BOUND_MS_PER_MB * slice.chars) / 1e6), stall: STALL_BOUND_MS };
}

// Slices sent to each encoding's pool and not answered yet: a request's batch goes to a pool
// only when it would not queue behind an import's slices (countInWarmPool).
const inFlight: Record<EncodingName, number> = { o200k_base: 0, cl100k_base: 0 };

async function runSlice(p: Piscina, slice: Slice, encoding: EncodingName, bounds: { count: number; stall: number }) {
  inFlight[encoding]++;
  try {
    return (await p.run({ texts: slice.texts, encoding, boundMs: bounds.count }, { signal: AbortSignal.timeout(bounds.stall + bounds.count) })) as {
      tokens: Int32Array;
      approximate: Uint8Array;
    };
  } catch (e) {
    if (e instanceof Error && (e.name === "AbortError" || e.name === "TimeoutError")) throw new PoolStalled();
    throw e;
  } finally {
    inFlight[encoding]--;
  }
}

// When the last large batch asked for a warm pool (ms, performance.now()); see countInWarmPool.
const lastAsked: Record<EncodingName, number> = { o200k_base: -Infinity, cl100k_base: -Infinity };

/**
 * Counts `texts` in one encoding on that encoding's pool worker, for a request that meanwhile
 * counts other texts on its own thread (a framework window under gpt-4o: cl100k decides on the
 * request thread, o200k gives total_tokens): wall time, not CPU. Only when a worker is already
 * running with nothing in flight: a request never waits for a worker's start (loading tiktoken,
 * 0.3-0.9 s) nor behind an import's slices; then null, and the caller counts inline. A worker is
 * started (off the request's path) when a second such batch comes within the pool's idle time,
 * so a lone cold request never pays for one. Resolves to null when the pool fails; a text whose
 * count came back approximate (a long piece, or the slice's time bound) is for the caller to count again.
 */
export function countInWarmPool(texts: string[], encoding: EncodingName): Promise<{ tokens: Int32Array; approximate: Uint8Array } | null> | null {
  if (poolBroken) return null;
  const pool = pools.get(encoding);
  if (!pool || pool.threads.length === 0 || inFlight[encoding] > 0) {
    const t = performance.now();
    if (t - lastAsked[encoding] < POOL_IDLE_MS && inFlight[encoding] === 0) {
      const p = getPool(encoding);
      // An empty slice builds the worker's encoder: its first real slice then only counts.
      if (p) void runSlice(p, { start: 0, texts: [], chars: 0 }, encoding, sliceBounds({ start: 0, texts: [], chars: 0 }, undefined)).catch(() => {});
    }
    lastAsked[encoding] = t;
    return null;
  }
  lastAsked[encoding] = performance.now();
  const chars = texts.reduce((n, t) => n + t.length, 0);
  return runSlice(pool, { start: 0, texts, chars }, encoding, sliceBounds({ start: 0, texts, chars }, undefined)).catch(() => null);
}

/**
 * Token counts of every text in both encodings. Batches of INLINE_BELOW_CHARS or more are
 * counted in the worker pool (both encodings and both halves of the batch in parallel); a
 * slice's texts past its counting bound (or a stalled slice) are estimated and flagged
 * approximate. `path` says which ran. `offThread`: the pool whatever the size (start-up work,
 * so that the request thread loads no encoder until a request needs one). `boundMs`: each
 * slice's counting and stall bound instead of the defaults above, for a caller that wants exact
 * counts however long a starved machine takes (the unit suites, niced beside a build).
 */
export async function countTextsAllEncodings(texts: string[], opts: { offThread?: boolean; boundMs?: number } = {}): Promise<TokenCounts> {
  // Each distinct text once: an export repeats texts (a question under each regenerated
  // answer, the same greeting in many conversations), and counting is the costly part.
  const { distinct, at } = distinctTexts(texts);
  if (distinct.length === texts.length) return countDistinct(texts, opts);
  return countsAt(await countDistinct(distinct, opts), at);
}

/** The counts of some of the texts counted, in the order of `at` (their indexes; repeats allowed). */
export function countsAt(c: TokenCounts, at: ArrayLike<number>): TokenCounts {
  return {
    o200k_base: Int32Array.from(at, (k) => c.o200k_base[k]),
    cl100k_base: Int32Array.from(at, (k) => c.cl100k_base[k]),
    approximate: Uint8Array.from(at, (k) => c.approximate[k]),
    path: c.path,
  };
}

/** The texts without repeats, and for each text its index among them. */
function distinctTexts(texts: string[]): { distinct: string[]; at: Int32Array } {
  const index = new Map<string, number>();
  const distinct: string[] = [];
  const at = new Int32Array(texts.length);
  texts.forEach((t, i) => {
    let k = index.get(t);
    if (k === undefined) {
      k = distinct.length;
      index.set(t, k);
      distinct.push(t);
    }
    at[i] = k;
  });
  return { distinct, at };
}

async function countDistinct(texts: string[], opts: { offThread?: boolean; boundMs?: number }): Promise<TokenCounts> {
  const totalChars = texts.reduce((n, t) => n + t.length, 0);
  const p = opts.offThread || totalChars >= INLINE_BELOW_CHARS ? getPools() : null;
  if (!p) return countInline(texts);
  const parts = slices(texts, threadsPerEncoding(), totalChars);
  const out: TokenCounts = {
    o200k_base: new Int32Array(texts.length),
    cl100k_base: new Int32Array(texts.length),
    approximate: new Uint8Array(texts.length),
    path: "pool",
  };
  try {
    await Promise.all(
      parts.flatMap((slice) =>
        ENCODINGS.map(async (encoding) => {
          const r = await runSlice(p[encoding], slice, encoding, sliceBounds(slice, opts.boundMs)).catch((e) => {
            if (e instanceof PoolStalled) return estimate(slice);
            throw e;
          });
          out[encoding].set(r.tokens, slice.start);
          r.approximate.forEach((a, i) => {
            if (a) out.approximate[slice.start + i] = 1;
          });
        }),
      ),
    );
    return out;
  } catch (e) {
    // The pool cannot run here (the worker file or tiktoken not found from this folder): inline
    // from now on. Any other failure costs this batch only. Said either way: a silent fallback
    // puts both tiktoken encoders on the calling thread, the request thread of a server.
    const code = (e as { code?: string } | null)?.code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND" || code === "ENOENT") poolBroken = true;
    console.warn(`[memscope] token pool failed, ${poolBroken ? "counting inline from now on" : "this batch counted inline"}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    return countInline(texts);
  }
}
