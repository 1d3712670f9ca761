import { createHash } from "node:crypto";

/**
 * A UUID derived from a name (the shape of a v5 UUID, from SHA-256): records without ids
 * of their own (OpenAI chat lines) get the same ids on every run, so re-imports find them.
 */
export function stableUuid(name: string): string {
  const h = createHash("sha256").update(name).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
