import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePgTimestamp } from "@/lib/db/parse-timestamp";
import { emptyClusterDir } from "../helpers/fresh-data-dir";
import { suiteTempDirs } from "../helpers/temp-dir";

// Years 0001-0099 read as written (issue 37: PGlite's default parser returned 0050-06-01 as
// 1950-06-01 and 0001 as 2001), through PGlite's own text output.

const fresh = suiteTempDirs(afterAll);

describe("PostgreSQL timestamps read field by field", () => {
  // A copy of the folder PGlite's initdb made once, not an initdb of its own in memory.
  let db: PGlite;
  beforeAll(async () => {
    db = await PGlite.create(await emptyClusterDir(fresh("timestamps")), {
      parsers: { 1184: (t: string) => parsePgTimestamp(t, true), 1114: (t: string) => parsePgTimestamp(t, false) },
    });
  });
  afterAll(() => db?.close());

  it("timestamptz of years 1, 50, 99, 1970, 2026 and 9999, with offsets and fractions, as written", async () => {
    const cases = [
      "0001-01-01T00:00:00.000Z",
      "0050-06-01T00:00:00.000Z",
      "0099-12-31T23:59:59.999Z",
      "1970-01-01T00:00:00.000Z",
      "2026-11-29T02:19:52.123Z",
      "9999-12-31T23:59:59.000Z",
    ];
    for (const iso of cases) {
      const [row] = (await db.query<{ t: Date }>("SELECT $1::timestamptz AS t", [iso])).rows;
      expect(row.t.toISOString()).toBe(iso);
    }
    await db.exec("SET TIME ZONE 'Asia/Kolkata'");
    const [k] = (await db.query<{ t: Date; text: string }>("SELECT '0050-06-01T00:00:00Z'::timestamptz AS t, '0050-06-01T00:00:00Z'::timestamptz::text AS text")).rows;
    // Local mean time: an offset with seconds.
    expect(k.text).toBe("0050-06-01 05:53:28+05:53:28");
    expect(k.t.toISOString()).toBe("0050-06-01T00:00:00.000Z");
    await db.exec("SET TIME ZONE 'UTC'");
  });

  it("BC years and infinity", () => {
    expect(parsePgTimestamp("0044-03-15 12:00:00+00 BC", true).getUTCFullYear()).toBe(-43);
    expect(Number.isNaN(parsePgTimestamp("infinity", true).getTime())).toBe(true);
  });
});
