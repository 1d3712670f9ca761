import { z } from "zod";

// The integers and instants every contract takes, range-checked here once so that no value a
// column cannot hold reaches SQL (a 500 from PostgreSQL: profile_version 2147483648 into an
// int, created_at 300000-01-01 into a timestamptz). tests/unit/contract-scalars.test.ts fails
// for a route input that does not use them. Client-safe.

export const INT32_MAX = 2_147_483_647;

/** An integer for an int (int4) column: min..max within int32. */
export function int32(min = -INT32_MAX - 1, max = INT32_MAX) {
  return z.number().int().min(Math.max(min, -INT32_MAX - 1)).max(Math.min(max, INT32_MAX));
}

/** An integer for a bigint column: what JSON numbers hold exactly (2^53 - 1), within int64. */
export function int64(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  return z.number().int().min(min).max(max).meta({ "x-int": "int64" });
}

/**
 * An instant as RFC 3339 with its offset (`2026-06-01T12:00:00Z`, `...+02:00`): a four-digit
 * year as written (0001-9999: the range a timestamptz and JavaScript both hold), month, day,
 * hours, minutes, seconds and offset in range (February 30 is refused). Never read by
 * `new Date()` of another form, which reads 0050 as 1950.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

export function dateTimeProblem(s: string): string | null {
  const m = RFC3339.exec(s);
  if (!m) return "must be an RFC 3339 date-time with a four-digit year and an offset (2026-06-01T12:00:00Z)";
  const [, y, mo, d, h, mi, sec, , oh, om] = m.map((x) => (x === undefined ? x : Number(x))) as (number | undefined)[];
  if (y! < 1) return "the year must be 0001 to 9999";
  if (mo! < 1 || mo! > 12) return "the month must be 01 to 12";
  const days = new Date(Date.UTC(2000, mo!, 0)).getUTCDate() - (mo === 2 && !(y! % 4 === 0 && (y! % 100 !== 0 || y! % 400 === 0)) ? 1 : 0);
  if (d! < 1 || d! > days) return `the day must be 01 to ${days} in that month`;
  if (h! > 23 || mi! > 59 || sec! > 59) return "the time must be 00:00:00 to 23:59:59";
  if (oh !== undefined && (oh > 23 || om! > 59)) return "the offset must be -23:59 to +23:59";
  return null;
}

export const ZDateTime = z
  .string()
  .superRefine((s, ctx) => {
    const why = dateTimeProblem(s);
    if (why) ctx.addIssue({ code: "custom", message: why });
  })
  .meta({ format: "date-time", "x-date": "rfc3339" });
