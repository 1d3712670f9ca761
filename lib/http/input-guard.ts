import { BadRequestError } from "../errors/domain-errors";

// Input that PostgreSQL or JSON cannot hold is refused here, in one place, before any
// handler runs: NUL characters (text columns refuse them), lone UTF-16 surrogates (jsonb
// refuses them), nesting deeper than MAX_DEPTH (JSON.stringify and recursive code overflow
// the stack) and objects with more than MAX_KEYS keys.

export const MAX_DEPTH = 64;
export const MAX_KEYS = 1000;

// A NUL, a high surrogate not followed by a low one, or a low one not preceded by a high one.
const BAD_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function badTextReason(s: string): string | null {
  const m = BAD_TEXT.exec(s);
  if (!m) return null;
  return m[0] === "\u0000" ? "contains a NUL character (\\u0000)" : "contains a lone UTF-16 surrogate";
}

export function checkText(value: string, field: string): void {
  const why = badTextReason(value);
  if (why) throw new BadRequestError("unsupported_text", `${field} ${why}`, [{ field, message: why }]);
}

/** Walks a parsed JSON value once; `where` prefixes field names ("body", "query"). */
export function checkJsonValue(value: unknown, where = ""): void {
  walk(value, [where], 0);
}

// A NUL or any surrogate: the cheap test that lets most strings skip BAD_TEXT's lookarounds.
const MAYBE_BAD_TEXT = /[\u0000\uD800-\uDFFF]/;

/**
 * The field name of the value at `path` ("messages[3].content"), built only when one is
 * reported: building it for every value cost more than the checks (thousands per request).
 */
function fieldName(path: (string | number)[]): string {
  let out = path[0] as string;
  for (let i = 1; i < path.length; i++) {
    const part = path[i];
    out = typeof part === "number" ? `${out}[${part}]` : out ? `${out}.${part}` : part;
  }
  return out;
}

function walk(v: unknown, path: (string | number)[], depth: number): void {
  if (typeof v === "string") {
    if (v.length && MAYBE_BAD_TEXT.test(v) && BAD_TEXT.test(v)) checkText(v, fieldName(path) || "body");
    return;
  }
  if (v === null || typeof v !== "object") return;
  if (depth >= MAX_DEPTH) {
    // The path of a deep value is itself long: name where it starts.
    const full = fieldName(path);
    const field = full.length > 80 ? `${full.slice(0, 80)}…` : full || "body";
    throw new BadRequestError("nesting_too_deep", `${field} is nested deeper than ${MAX_DEPTH} levels`, [
      { field, message: `more than ${MAX_DEPTH} levels` },
    ]);
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      path.push(i);
      walk(v[i], path, depth + 1);
      path.pop();
    }
    return;
  }
  const keys = Object.keys(v);
  if (keys.length > MAX_KEYS) {
    const field = fieldName(path) || "body";
    throw new BadRequestError("too_many_keys", `${field} has ${keys.length} keys (at most ${MAX_KEYS})`, [
      { field, message: `more than ${MAX_KEYS} keys` },
    ]);
  }
  for (const k of keys) {
    path.push(k);
    if (k.length && MAYBE_BAD_TEXT.test(k) && BAD_TEXT.test(k)) checkText(k, `${fieldName(path)} (key)`);
    walk((v as Record<string, unknown>)[k], path, depth + 1);
    path.pop();
  }
}
