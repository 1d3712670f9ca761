import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { DomainError, TooLargeError, ValidationError } from "../errors/domain-errors";

// A benchmark file sent as the request's body (POST /evals/sets/{id}/import/upload): written
// to a temporary file as it arrives, then read from there a chunk at a time by the importer.
// Memory stays at one chunk whatever the file's size. Spooled rather than parsed straight
// off the socket: the import takes far longer than the upload, and a request whose body is
// still arriving after the server's requestTimeout (300 s in Node) is cut.

/** LongMemEval_M is ~2.7 GB; its _S ~270 MB. */
export const MAX_EVAL_UPLOAD_BYTES = 4 * 1024 * 1024 * 1024;

export function requireOctetStream(req: Request) {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  // A form or text/plain body is what a cross-site page can send without a preflight.
  if (type !== "application/octet-stream") {
    throw new DomainError("unsupported_media_type", "unsupported_media_type", "Send the file as application/octet-stream", [{ field: "content-type", message: `got ${type || "none"}` }]);
  }
}

/** The body into a temporary file (mode 600), refusing more than `limit` bytes; the caller removes it. */
export async function spoolBody(body: ReadableStream<Uint8Array> | null, limit = MAX_EVAL_UPLOAD_BYTES): Promise<string> {
  const dir = path.join(os.tmpdir(), "memscope-eval-uploads");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, randomUUID());
  const out = await fs.promises.open(file, "w", 0o600);
  let size = 0;
  try {
    if (body) {
      const reader = body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limit) {
          await reader.cancel().catch(() => {});
          throw new TooLargeError(limit);
        }
        // The next chunk is read once this one is on disk: the socket waits for the disk.
        await out.write(value);
      }
    }
    await out.close();
    if (!size) throw new ValidationError("The file is empty", [{ field: "body", message: "empty" }], "invalid_eval_file");
    return file;
  } catch (e) {
    await out.close().catch(() => {});
    fs.rmSync(file, { force: true });
    throw e;
  }
}
