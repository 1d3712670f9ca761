// PostgreSQL's text form of timestamptz / timestamp (DateStyle ISO: "0050-06-01 00:00:00+00",
// "2026-11-29 02:19:52.123456+05:30", "0044-03-15 12:00:00+00 BC") as a Date, read field by
// field. PGlite's default parser hands the text to `new Date()`, whose legacy (non-ISO) parsing
// reads a year under 100 as 19xx or 20xx: 0050-06-01 came back as 1950-06-01. node-postgres
// (postgres-date) reads it right; the embedded database now reads it the same way.

const TIMESTAMP = /^(\d{4,})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(?:([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?)?( BC)?$/;

/** A Date, or for what is not a timestamp ("infinity", "-infinity") the Date PostgreSQL's value means in JavaScript (an invalid one). */
export function parsePgTimestamp(text: string, withZone: boolean): Date {
  const m = TIMESTAMP.exec(text);
  if (!m) return new Date(Number.NaN);
  const [, y, mo, d, h, mi, s, frac, sign, oh, om, os, bc] = m;
  // ISO years: 1 BC is year 0, 2 BC is -1.
  const year = bc ? 1 - Number(y) : Number(y);
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  if (!withZone) {
    // timestamp without time zone: local time, as PGlite and node-postgres read it.
    const local = new Date(2000, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
    local.setFullYear(year, Number(mo) - 1, Number(d));
    return local;
  }
  const date = new Date(Date.UTC(2000, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms));
  // Date.UTC maps years 0-99 to 1900-1999: set the year after.
  date.setUTCFullYear(year, Number(mo) - 1, Number(d));
  if (!sign) return date;
  const offsetSeconds = (Number(oh) * 3600 + Number(om ?? 0) * 60 + Number(os ?? 0)) * (sign === "+" ? 1 : -1);
  return new Date(date.getTime() - offsetSeconds * 1000);
}
