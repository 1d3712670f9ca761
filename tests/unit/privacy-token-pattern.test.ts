import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenPattern } from "@/lib/privacy/scan-columns";
import { emptyClusterDir } from "../helpers/fresh-data-dir";
import { suiteTempDirs } from "../helpers/temp-dir";

// Issue 39: the erasure's probes look for the person's values as whole tokens, in PostgreSQL's
// regular expressions: the id `conv` is not in another person's `conv-trunc-7`.

const fresh = suiteTempDirs(afterAll);
let pg: PGlite;
beforeAll(async () => {
  // A copy of the folder PGlite's initdb made once, not an initdb of its own in memory.
  pg = await PGlite.create(await emptyClusterDir(fresh("token-pattern")));
});
afterAll(async () => {
  await pg?.close();
});

const matches = async (needle: string, text: string) =>
  (await pg.query<{ m: boolean }>(`SELECT $1::text ~ $2 AS m`, [text, tokenPattern(needle)])).rows[0].m;

describe("tokenPattern", () => {
  it.each([
    ["conv", "conv", true],
    ["conv", "Chat about conv today", true],
    ["conv", '{"user_id":"conv"}', true],
    ["conv", "conv.", true],
    ["conv", "conv-trunc-7", false],
    ["conv", "my-conv", false],
    ["conv", "conv_2", false],
    ["conv", "conversation", false],
    ["conv", "ÉTÉconv", false],
    ["a.b+c", "id a.b+c here", true],
    ["a.b+c", "aXb+c", false],
    ["+1 555 0100", "call+1 555 0100", true],
    ["(x)", "f(x)", true],
  ])("%s in %s: %s", async (needle, text, expected) => {
    expect(await matches(needle, text)).toBe(expected);
  });
});
