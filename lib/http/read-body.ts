import "server-only";
import { BadRequestError, TooLargeError } from "../errors/domain-errors";

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
    const { done, value } = await reader.read().catch(() => {
      // The stream failed (the client aborted, the connection broke): a request that is not
      // whole, answered as such, not as the server's own failure.
      throw new BadRequestError("body_incomplete", "The request body broke off before its end", [{ field: "body", message: "incomplete" }]);
    });
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
