import { z } from "zod";
import { BadRequestError } from "../errors/domain-errors";

// Opaque keyset cursors: base64url JSON of [list, ...sort key of the last row served].
// The list name travels inside, and each key part is checked against its type before it
// reaches SQL, so a forged cursor or one from another list (or another sort) is a 400.

type KeyPart = string | number;

export function encodeCursor(list: string, key: KeyPart[]): string {
  return Buffer.from(JSON.stringify([list, ...key])).toString("base64url");
}

export function decodeCursor<T extends [z.ZodType, ...z.ZodType[]]>(
  cursor: string | undefined,
  list: string,
  parts: T,
): { [K in keyof T]: z.infer<T[K]> } | null {
  if (!cursor) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalidCursor();
  }
  const r = z.tuple([z.literal(list), ...parts]).safeParse(raw);
  if (!r.success) throw invalidCursor();
  return r.data.slice(1) as { [K in keyof T]: z.infer<T[K]> };
}

function invalidCursor() {
  return new BadRequestError("invalid_cursor", "The cursor is not one this list gave out", [
    { field: "cursor", message: "not a cursor from this list" },
  ]);
}

/** A timestamp as Postgres prints it (or ISO), within the calendar, so a cast cannot fail. */
export const ZCursorTime = z
  .string()
  .max(40)
  .regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[ T]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,6})?(Z|[+-]\d{2}(:?\d{2})?)?$/);
export const ZCursorUuid = z.uuid();
export const ZCursorInt = z.number().int().min(-2147483648).max(2147483647);
export const ZCursorNumber = z.number().finite();
