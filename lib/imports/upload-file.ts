import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { Unzip, UnzipInflate, UnzipPassThrough, unzipSync } from "fflate";
import { TooLargeError, ValidationError } from "../errors/domain-errors";

// An uploaded import file (POST /imports/upload sends the file's bytes as the body): kept
// in a temporary file while its job runs, so that a 300 MB export never sits in memory.
// Read as a byte stream (JSON exports, through a streaming parser), whole (small JSON,
// SQLite), or as a zip (an export archive, a directory).

/** An upload's size limit: exports of several years run to hundreds of MB. */
export const MAX_UPLOAD_BYTES = 2 * 1024 * 1024 * 1024;
/** Files read whole (not streamed): a zip's entries, a SQLite database, a small JSON document. */
export const MAX_WHOLE_BYTES = 256 * 1024 * 1024;
const CHUNK = 1024 * 1024;

export type FileKind = "zip" | "sqlite" | "text";

/** The request body into a temporary file, refusing more than `limit` bytes. */
export async function saveUpload(body: ReadableStream<Uint8Array> | null, limit = MAX_UPLOAD_BYTES): Promise<string> {
  if (!body) throw new ValidationError("The file is empty", [{ field: "body", message: "empty" }], "invalid_import_file");
  const dir = path.join(os.tmpdir(), "memscope-imports");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, randomUUID());
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

/**
 * Feeds the file to `write` a chunk at a time; after each chunk, `drain` runs (the caller
 * writes what the chunk completed): memory stays at one chunk plus what drain leaves.
 */
export async function pumpFile(file: string, write: (chunk: Uint8Array, last: boolean) => void, drain: () => Promise<void>): Promise<void> {
  const fd = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(fd).size;
    let pos = 0;
    const buf = Buffer.alloc(CHUNK);
    while (pos < size) {
      const n = fs.readSync(fd, buf, 0, CHUNK, pos);
      if (n <= 0) break;
      pos += n;
      // A copy: the writer may keep the bytes (a parser's partial token) while buf is reused.
      write(Uint8Array.prototype.slice.call(buf, 0, n), pos >= size);
      await drain();
    }
    if (size === 0) write(new Uint8Array(0), true);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The bytes of one entry of a zip (the first whose name `pick` accepts), streamed: for an
 * export archive whose conversations.json is hundreds of MB. Returns false when none matched.
 */
export async function pumpZipEntry(file: string, pick: (name: string) => boolean, write: (chunk: Uint8Array) => void, drain: () => Promise<void>): Promise<string | null> {
  let found: string | null = null;
  let failure: Error | null = null;
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  unzip.register(UnzipPassThrough);
  unzip.onfile = (f) => {
    if (found || !pick(f.name)) return;
    found = f.name;
    f.ondata = (err, data) => {
      if (err) failure = err;
      else if (data.length) write(data);
    };
    f.start();
  };
  await pumpFile(
    file,
    (chunk, last) => unzip.push(chunk, last),
    async () => {
      if (failure) throw failure;
      await drain();
    },
  );
  if (failure) throw failure;
  return found;
}

/** A zip's files (name → bytes), for archives read whole (a directory, a small export). */
export function readZip(file: string): Map<string, Uint8Array> {
  if (fileSize(file) > MAX_WHOLE_BYTES) {
    throw new ValidationError("The zip is too large to read whole", [{ field: "body", message: `at most ${MAX_WHOLE_BYTES} bytes for this format` }], "invalid_import_file");
  }
  let files;
  try {
    files = unzipSync(new Uint8Array(fs.readFileSync(file)));
  } catch (e) {
    throw new ValidationError("The zip could not be read", [{ field: "body", message: (e as Error).message }], "invalid_import_file");
  }
  return new Map(Object.entries(files).filter(([name]) => !name.endsWith("/") && !name.startsWith("__MACOSX/")));
}

export function readWhole(file: string): Buffer {
  if (fileSize(file) > MAX_WHOLE_BYTES) {
    throw new ValidationError("The file is too large for this format", [{ field: "body", message: `at most ${MAX_WHOLE_BYTES} bytes` }], "invalid_import_file");
  }
  return fs.readFileSync(file);
}

/** Names from the zip's central directory (at its end), without reading the entries. */
export function zipEntryNames(file: string): string[] {

  const size = fileSize(file);
  const tail = Math.min(size, 66 * 1024);
  const fd = fs.openSync(file, "r");
  try {
    const end = Buffer.alloc(tail);
    fs.readSync(fd, end, 0, tail, size - tail);
    const eocd = end.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd < 0) return [];
    let count = end.readUInt16LE(eocd + 10);
    let cdSize = end.readUInt32LE(eocd + 12);
    let cdOffset = end.readUInt32LE(eocd + 16);
    if (cdOffset === 0xffffffff || count === 0xffff) {
      // zip64: the locator sits just before the end record
      const loc = end.lastIndexOf(Buffer.from([0x50, 0x4b, 0x06, 0x07]), eocd);
      if (loc < 0) return [];
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
    for (let i = 0; i < count && p + 46 <= cd.length; i++) {
      if (cd.readUInt32LE(p) !== 0x02014b50) break;
      const n = cd.readUInt16LE(p + 28);
      const m = cd.readUInt16LE(p + 30);
      const k = cd.readUInt16LE(p + 32);
      names.push(cd.subarray(p + 46, p + 46 + n).toString("utf8"));
      p += 46 + n + m + k;
    }
    return names;
  } finally {
    fs.closeSync(fd);
  }
}

