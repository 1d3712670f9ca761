import { ApiError } from "./api-error";

// Opaque keyset cursors: base64url JSON of the sort key of the last row served.

export function encodeCursor(key: (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

export function decodeCursor(cursor: string | undefined, arity: number): (string | number)[] | null {
  if (!cursor) return null;
  try {
    const key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(key) && key.length === arity) return key;
  } catch {
    /* fall through */
  }
  throw new ApiError(422, "validation_error", "Invalid cursor", [{ field: "cursor", message: "not a cursor from this list" }]);
}
