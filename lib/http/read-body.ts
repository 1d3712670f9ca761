import "server-only";
import { TooLargeError } from "../errors/domain-errors";

/**
 * A request body read to its end, refused (413) as soon as it passes `maxBytes`: counted in
 * bytes as they arrive, so a body without (or lying in) Content-Length is still bounded.
 */
export async function readBodyLimited(req: Request, maxBytes: number): Promise<Buffer> {
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new TooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
