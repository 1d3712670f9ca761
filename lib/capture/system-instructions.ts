import "server-only";
import type { ChatPart } from "./captured-shapes";

// An agent sends its system instructions with every call: the same text, often kilobytes (a
// ~16 KB prompt in issue 35's report), 512 times an SDK batch. Each call parsed it, checked and
// measured it, and digested it twice (its continuation seed, its prompt node's id): about a
// tenth of a PostgreSQL ingest's time with a 1.4 KB prompt. Here each distinct text is parsed
// once and what is derived from it is kept beside the parsed value, which the later calls
// share. Values are the same as computed afresh; only the work is saved.
//
// Bounded (entries and characters), per process, and dropped after an erasure with the other
// caches of text (lib/privacy/purge-caches.ts): system instructions may hold a user's memories.

const MAX_ENTRIES = 64;
const MAX_CHARS = 4 * 1024 * 1024;

/** Raw attribute text -> its parts, oldest first (a hit moves to the end). */
const parsed = new Map<string, ChatPart[]>();
let chars = 0;

type Derived = { json?: string; bytes?: number; checked?: true; nodeId?: string; seeds?: Map<string, string> };
const derived = new WeakMap<readonly ChatPart[], Derived>();

/**
 * The parts of a system-instructions attribute: `parse` runs for a text not seen lately (it
 * throws for a bad one, which is not kept); the same array for the same text after that.
 * Nothing may change the array or its parts.
 */
export function systemPartsOf(raw: unknown, parse: () => ChatPart[]): ChatPart[] {
  if (typeof raw !== "string" || raw.length > MAX_CHARS / 4) return parse();
  const hit = parsed.get(raw);
  if (hit) {
    parsed.delete(raw);
    parsed.set(raw, hit);
    return hit;
  }
  const parts = parse();
  parsed.set(raw, parts);
  chars += raw.length;
  for (const [k] of parsed) {
    if (parsed.size <= MAX_ENTRIES && chars <= MAX_CHARS) break;
    parsed.delete(k);
    chars -= k.length;
  }
  return parts;
}

function of(parts: readonly ChatPart[]): Derived {
  let d = derived.get(parts);
  if (!d) derived.set(parts, (d = {}));
  return d;
}

/** JSON.stringify(parts), once per array. */
export function systemJson(parts: readonly ChatPart[]): string {
  const d = of(parts);
  return (d.json ??= JSON.stringify(parts));
}

/** Its UTF-8 bytes as JSON. */
export function systemJsonBytes(parts: readonly ChatPart[]): number {
  const d = of(parts);
  return (d.bytes ??= Buffer.byteLength(systemJson(parts)));
}

/** Runs `check` (which throws for a value that cannot be stored) until it has passed once. */
export function checkSystemOnce(parts: readonly ChatPart[], check: () => void): void {
  const d = of(parts);
  if (d.checked) return;
  check();
  d.checked = true;
}

/** `compute()` (the prompt node's id of this JSON), once per array. */
export function systemNodeIdOf(parts: readonly ChatPart[], compute: (json: string) => string): string {
  const d = of(parts);
  return (d.nodeId ??= compute(systemJson(parts)));
}

/** `compute()` (a continuation seed: the app and these instructions), once per array and app. */
export function systemSeedOf(parts: readonly ChatPart[], appId: string, compute: () => string): string {
  const seeds = (of(parts).seeds ??= new Map());
  let seed = seeds.get(appId);
  if (seed === undefined) {
    seed = compute();
    if (seeds.size < MAX_ENTRIES) seeds.set(appId, seed);
  }
  return seed;
}

/** After an erasure (lib/privacy/purge-caches.ts): no instructions' text is kept. */
export function forgetSystemInstructions(): void {
  parsed.clear();
  chars = 0;
}

/** How many texts are kept (tests). */
export const systemInstructionsKept = () => parsed.size;
