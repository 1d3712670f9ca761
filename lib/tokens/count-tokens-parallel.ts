import os from "node:os";
import { Worker } from "node:worker_threads";
import { countTextTokens } from "./count-tokens";

// Counting tokens in both encodings is most of a large import's CPU time. Big batches
// are split across worker threads (the main thread is meanwhile free for the database);
// small ones are counted inline, where messaging would cost more than it saves.

export type TokenCounts = { o200k_base: Int32Array; cl100k_base: Int32Array };

const INLINE_BELOW = 400;

// Evaluated source, not a module file: bundlers leave it alone, and tiktoken is
// resolved from the app folder at run time (it is a server-external package).
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const req = require("node:module").createRequire(require("node:path").join(process.cwd(), "package.json"));
const { get_encoding } = req("tiktoken");
const o = get_encoding("o200k_base");
const c = get_encoding("cl100k_base");
parentPort.on("message", ({ id, texts }) => {
  try {
    const o200k = new Int32Array(texts.length);
    const cl100k = new Int32Array(texts.length);
    for (let i = 0; i < texts.length; i++) {
      const t = texts[i];
      if (t) { o200k[i] = o.encode_ordinary(t).length; cl100k[i] = c.encode_ordinary(t).length; }
    }
    parentPort.postMessage({ id, o200k, cl100k }, [o200k.buffer, cl100k.buffer]);
  } catch (e) {
    parentPort.postMessage({ id, error: String(e && e.message || e) });
  }
});`;

type Pending = { resolve: (r: { o200k: Int32Array; cl100k: Int32Array }) => void; reject: (e: Error) => void };
type PoolWorker = { worker: Worker; pending: Map<number, Pending> };

let pool: PoolWorker[] | null = null;
let poolBroken = false;
let nextId = 1;

function getPool(): PoolWorker[] | null {
  if (poolBroken) return null;
  if (pool) return pool;
  const size = Math.max(1, Math.min(2, os.availableParallelism()));
  try {
    pool = Array.from({ length: size }, () => {
      const pw: PoolWorker = { worker: new Worker(WORKER_SOURCE, { eval: true }), pending: new Map() };
      pw.worker.unref(); // never keeps a script or test process alive
      pw.worker.on("message", (m: { id: number; o200k?: Int32Array; cl100k?: Int32Array; error?: string }) => {
        const p = pw.pending.get(m.id);
        if (!p) return;
        pw.pending.delete(m.id);
        if (m.error) p.reject(new Error(m.error));
        else p.resolve({ o200k: m.o200k!, cl100k: m.cl100k! });
      });
      pw.worker.on("error", (e) => {
        poolBroken = true;
        for (const p of pw.pending.values()) p.reject(e);
        pw.pending.clear();
      });
      return pw;
    });
  } catch {
    poolBroken = true;
    return null;
  }
  return pool;
}

function countInline(texts: string[]): TokenCounts {
  const out = { o200k_base: new Int32Array(texts.length), cl100k_base: new Int32Array(texts.length) };
  texts.forEach((t, i) => {
    out.o200k_base[i] = countTextTokens(t, "o200k_base");
    out.cl100k_base[i] = countTextTokens(t, "cl100k_base");
  });
  return out;
}

/** Token counts of every text in both encodings, in parallel for large inputs. */
export async function countTextsAllEncodings(texts: string[]): Promise<TokenCounts> {
  const workers = texts.length >= INLINE_BELOW ? getPool() : null;
  if (!workers) return countInline(texts);
  const chunk = Math.ceil(texts.length / workers.length);
  try {
    const parts = await Promise.all(
      workers.map((pw, w) => {
        const slice = texts.slice(w * chunk, (w + 1) * chunk);
        const id = nextId++;
        return new Promise<{ o200k: Int32Array; cl100k: Int32Array }>((resolve, reject) => {
          pw.pending.set(id, { resolve, reject });
          pw.worker.postMessage({ id, texts: slice });
        });
      }),
    );
    const out = { o200k_base: new Int32Array(texts.length), cl100k_base: new Int32Array(texts.length) };
    parts.forEach((p, w) => {
      out.o200k_base.set(p.o200k, w * chunk);
      out.cl100k_base.set(p.cl100k, w * chunk);
    });
    return out;
  } catch {
    poolBroken = true; // e.g. tiktoken not resolvable from the working directory
    return countInline(texts);
  }
}
