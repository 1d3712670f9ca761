import "server-only";
import crypto from "node:crypto";

// SHA-256 of a string, hex. The ingest digests every message of every span it reads (continuation
// keys, prompt node ids: ~50 digests a span of a 20-turn agent), and a Hash object a digest cost
// ~10 µs of CPU against ~2 µs for the one-shot crypto.hash (Node 20.12+; the engines field allows
// 20.9, where it is missing): a third of the ingest's JavaScript per span (docs/benchmarks.md
// section 59). Same bytes in, same digest out: the stored keys and ids do not change.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

export const sha256Hex: (text: string) => string = oneShot
  ? (text) => oneShot("sha256", text, "hex")
  : (text) => crypto.createHash("sha256").update(text).digest("hex");

/** Whether sha256Hex is the one-shot digest (a test checks it is, on the Node the project runs). */
export const oneShotDigest = !!oneShot;
