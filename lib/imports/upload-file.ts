import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { Unzip, UnzipInflate, UnzipPassThrough } from "fflate";
import { TooLargeError, ValidationError } from "../errors/domain-errors";
import { ImportLimitError, LIMITS } from "./upload-limits";

// An uploaded import file (POST /imports/upload sends the file's bytes as the body): kept
// in a temporary file while its job runs, so that a 300 MB export never sits in memory.
// Read as a byte stream (JSON exports, through a streaming parser), whole (small JSON,
// SQLite), or as a zip (an export archive, a directory).

/** An upload's size limit: exports of several years run to hundreds of MB (upload-limits.ts). */
export const MAX_UPLOAD_BYTES = LIMITS.compressed.value;
const CHUNK = 1024 * 1024;

export type FileKind = "zip" | "sqlite" | "text";

const uploadDir = () => path.join(os.tmpdir(), "memscope-imports");

/** The request body into a temporary file, refusing more than `limit` bytes. */
export async function saveUpload(body: ReadableStream<Uint8Array> | null, limit = MAX_UPLOAD_BYTES): Promise<string> {
  if (!body) throw new ValidationError("The file is empty", [{ field: "body", message: "empty" }], "invalid_import_file");
  const dir = uploadDir();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // The owner's pid in the name: a start removes the files of processes that are gone (removeStaleUploads).
  const file = path.join(dir, `${process.pid}-${randomUUID()}`);
  const fd = fs.openSync(file, "w", 0o600);
  let size = 0;
  try {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw new TooLargeError(limit);
      }
      fs.writeSync(fd, value);
    }
  } catch (e) {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw e;
  }
  fs.closeSync(fd);
  if (!size) {
    fs.rmSync(file, { force: true });
    throw new ValidationError("The file is empty", [{ field: "body", message: "empty" }], "invalid_import_file");
  }
  return file;
}

export function removeUpload(file: string) {
  fs.rmSync(file, { force: true });
}

/**
 * At start: the uploads left by a process that crashed (or was killed) mid-import. Only files
 * whose owner pid is not alive: another instance on this machine may be importing right now.
 * Returns how many were removed.
 */
export function removeStaleUploads(): number {
  let removed = 0;
  let names: string[];
  try {
    names = fs.readdirSync(uploadDir());
  } catch {
    return 0; // no folder: nothing was ever uploaded here
  }
  for (const name of names) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (pid && pid !== process.pid && alive(pid)) continue;
    if (pid === process.pid) continue;
    fs.rmSync(path.join(uploadDir(), name), { force: true, recursive: true });
    removed++;
  }
  return removed;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // alive, another user's
  }
}

/** The first bytes, to tell the kind of file and (for JSON) its format. */
export function head(file: string, bytes = 64 * 1024): Buffer {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(bytes);
    const n = fs.readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

export function kindOf(first: Buffer): FileKind {
  if (first.subarray(0, 4).toString("latin1") === "PK\u0003\u0004") return "zip";
  if (first.subarray(0, 16).toString("latin1") === "SQLite format 3\u0000") return "sqlite";
  return "text";
}

export function fileSize(file: string): number {
  return fs.statSync(file).size;
}

/** Bytes pushed into an unzipper at a time: deflate expands at most ~1 000x, so one push unpacks at most ~4 MB before a bound is checked. */
const ZIP_CHUNK = 4 * 1024;
/** Input between two turns of the event loop: reading and unpacking never hold other requests for long. */
const YIELD_EVERY = 1024 * 1024;
const turn = () => new Promise<void>((r) => setImmediate(r));

/**
 * Feeds the file to `write` a chunk at a time; after each chunk, `drain` runs (the caller
 * writes what the chunk completed): memory stays at one chunk plus what drain leaves. The event
 * loop turns at least every MiB read, so a long read never blocks other requests.
 */
export async function pumpFile(file: string, write: (chunk: Uint8Array, last: boolean) => void, drain: () => Promise<void>, chunkBytes = CHUNK): Promise<void> {
  const fd = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(fd).size;
    let pos = 0;
    let sinceTurn = 0;
    const buf = Buffer.alloc(chunkBytes);
    while (pos < size) {
      const n = fs.readSync(fd, buf, 0, chunkBytes, pos);
      if (n <= 0) break;
      pos += n;
      // A copy: the writer may keep the bytes (a parser's partial token) while buf is reused.
      write(Uint8Array.prototype.slice.call(buf, 0, n), pos >= size);
      await drain();
      sinceTurn += n;
      if (sinceTurn >= YIELD_EVERY) {
        sinceTurn = 0;
        await turn();
      }
    }
    if (size === 0) write(new Uint8Array(0), true);
  } finally {
    fs.closeSync(fd);
  }
}

/** Compression methods a zip entry may use: stored and deflate (what every zip tool writes). */
const METHODS: Record<number, string> = { 0: "stored", 8: "deflate" };

export type ZipWalk = {
  /** Entries to unpack (the others are skipped, unread). */
  pick: (name: string) => boolean;
  write: (name: string, chunk: Uint8Array) => void;
  /** Runs after each chunk of the file: may throw to stop. */
  drain?: () => Promise<void>;
  /** The bound on all unpacked bytes: a streamed export's (unpacked) or a file read whole's (wholeUnpacked). */
  total: "unpacked" | "wholeUnpacked";
  /** The bound on one entry's bytes, or none (conversations.json is bounded by `total` only). */
  entry: "entry" | "record" | null;
};

/**
 * A zip read as a stream, every bound checked as its bytes come out (limits in upload-limits.ts):
 * entries, one entry's size, all unpacked bytes. Nothing is held here; `write` decides. A
 * compression method other than stored or deflate is a 422 naming it. Returns the names read.
 */
export async function walkZip(file: string, w: ZipWalk): Promise<string[]> {
  const declared = zipEntryCount(file);
  if (declared > LIMITS.entries.value) throw new ImportLimitError("entries", `the zip lists ${declared} entries`);
  let failure: Error | null = null;
  let entries = 0;
  let unpacked = 0;
  let turnedAt = 0;
  const read: string[] = [];
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  unzip.register(UnzipPassThrough);
  unzip.onfile = (f) => {
    if (failure) return;
    if (++entries > LIMITS.entries.value) {
      failure = new ImportLimitError("entries", `more than ${LIMITS.entries.value} entries`);
      return;
    }
    if (!(f.compression in METHODS)) {
      failure = new ValidationError(`The zip entry ${f.name} uses compression method ${f.compression}, which is not supported`, [
        { field: f.name, message: `compression method ${f.compression} (supported: 0 stored, 8 deflate)` },
      ], "invalid_import_file");
      return;
    }
    if (f.name.endsWith("/") || !w.pick(f.name)) return;
    read.push(f.name);
    let size = 0;
    f.ondata = (err, data) => {
      if (failure) return;
      if (err) {
        failure = new ValidationError("The zip could not be read", [{ field: f.name, message: err.message }], "invalid_import_file");
        return;
      }
      size += data.length;
      unpacked += data.length;
      if (w.entry && size > LIMITS[w.entry].value) failure = new ImportLimitError(w.entry, `${f.name} unpacks to more than ${LIMITS[w.entry].value} bytes`);
      else if (unpacked > LIMITS[w.total].value) failure = new ImportLimitError(w.total, `the zip unpacks to more than ${LIMITS[w.total].value} bytes`);
      else if (data.length) w.write(f.name, data);
    };
    f.start();
  };
  const check = () => {
    if (failure) throw failure;
  };
  await pumpFile(
    file,
    (chunk, last) => {
      if (failure) return;
      try {
        unzip.push(chunk, last);
      } catch (e) {
        failure ??= new ValidationError("The zip could not be read", [{ field: "body", message: (e as Error).message }], "invalid_import_file");
      }
    },
    async () => {
      check();
      await w.drain?.();
      check();
      // A turn of the event loop per 2 MiB unpacked too: 1 MiB of deflate input can be 1 GB out.
      if (unpacked - turnedAt >= 2 * 1024 * 1024) {
        turnedAt = unpacked;
        await turn();
      }
    },
    ZIP_CHUNK,
  );
  check();
  return read;
}

/**
 * The bytes of one entry of a zip (the first whose name `pick` accepts), streamed: for an
 * export archive whose conversations.json is hundreds of MB. Returns null when none matched.
 */
export async function pumpZipEntry(file: string, pick: (name: string) => boolean, write: (chunk: Uint8Array) => void, drain: () => Promise<void>, entry: "record" | null = null): Promise<string | null> {
  let found: string | null = null;
  await walkZip(file, {
    pick: (n) => {
      if (found || !pick(n)) return false;
      found = n;
      return true;
    },
    write: (_n, c) => write(c),
    drain,
    total: "unpacked",
    entry,
  });
  return found;
}

/** A zip's files (name → bytes), for archives read whole (a directory, a small export): all bounds checked while unpacking, in a first pass that keeps nothing. */
export async function readZip(file: string, pick: (name: string) => boolean = () => true): Promise<Map<string, Uint8Array>> {
  const wanted = (n: string) => !n.startsWith("__MACOSX/") && pick(n);
  // A first pass holds nothing: a zip over a bound is refused before any of its bytes are kept
  // (holding 64 MB of a hostile entry before refusing it cost the server seconds of collection).
  await walkZip(file, { pick: wanted, write: () => {}, total: "wholeUnpacked", entry: "entry" });
  const parts = new Map<string, Uint8Array[]>();
  const names = await walkZip(file, {
    pick: wanted,
    write: (n, c) => {
      const p = parts.get(n);
      if (p) p.push(c);
      else parts.set(n, [c]);
    },
    total: "wholeUnpacked",
    entry: "entry",
  });
  return new Map(names.map((n) => [n, Buffer.concat(parts.get(n) ?? [])]));
}

/** A file read whole (SQLite, a JSON or Markdown document): bounded by whole_unpacked_bytes. */
export function readWhole(file: string): Buffer {
  const size = fileSize(file);
  if (size > LIMITS.wholeUnpacked.value) throw new ImportLimitError("wholeUnpacked", `the file is ${size} bytes; this format is read whole`);
  return fs.readFileSync(file);
}

/** How many entries the zip's end record declares (0 when it cannot be read: unpacking will say why). */
function zipEntryCount(file: string): number {
  try {
    return zipEntryNamesAndCount(file).count;
  } catch {
    return 0;
  }
}

/** Names from the zip's central directory (at its end), without reading the entries. */
export function zipEntryNames(file: string): string[] {
  return zipEntryNamesAndCount(file).names;
}

function zipEntryNamesAndCount(file: string): { names: string[]; count: number } {
  const size = fileSize(file);
  const tail = Math.min(size, 66 * 1024);
  const fd = fs.openSync(file, "r");
  try {
    const end = Buffer.alloc(tail);
    fs.readSync(fd, end, 0, tail, size - tail);
    const eocd = end.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd < 0) return { names: [], count: 0 };
    let count = end.readUInt16LE(eocd + 10);
    let cdSize = end.readUInt32LE(eocd + 12);
    let cdOffset = end.readUInt32LE(eocd + 16);
    if (cdOffset === 0xffffffff || count === 0xffff) {
      // zip64: the locator sits just before the end record
      const loc = end.lastIndexOf(Buffer.from([0x50, 0x4b, 0x06, 0x07]), eocd);
      if (loc < 0) return { names: [], count: 0 };
      const z64 = Number(end.readBigUInt64LE(loc + 8));
      const rec = Buffer.alloc(56);
      fs.readSync(fd, rec, 0, 56, z64);
      count = Number(rec.readBigUInt64LE(32));
      cdSize = Number(rec.readBigUInt64LE(40));
      cdOffset = Number(rec.readBigUInt64LE(48));
    }
    const cd = Buffer.alloc(Math.min(cdSize, 32 * 1024 * 1024));
    fs.readSync(fd, cd, 0, cd.length, cdOffset);
    const names: string[] = [];
    let p = 0;
    // Names past the entries limit are never needed: walkZip refuses such a zip.
    for (let i = 0; i < Math.min(count, LIMITS.entries.value + 1) && p + 46 <= cd.length; i++) {
      if (cd.readUInt32LE(p) !== 0x02014b50) break;
      const n = cd.readUInt16LE(p + 28);
      const m = cd.readUInt16LE(p + 30);
      const k = cd.readUInt16LE(p + 32);
      names.push(cd.subarray(p + 46, p + 46 + n).toString("utf8"));
      p += 46 + n + m + k;
    }
    return { names, count };
  } finally {
    fs.closeSync(fd);
  }
}

