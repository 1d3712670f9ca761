import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { readOffload, storeOffloads } from "@/lib/strategies/offloaded-contents";
import { useRecordedDatabase } from "../helpers/recorded-database";

// Contents auto_context and summary_buffer move out of the prompt, stored per project
// and read back by ref (GET /api/v1/offloaded/{ref}), on a real embedded database.

const rec = useRecordedDatabase();
const { writer } = rec;

describe("offloaded contents", () => {
  it("stores each content under its ref with its tokens; reads one back with an ISO created_at", async () => {
    const sql = writer();
    const a = { ref: randomUUID(), content: "first original", tokens: 12 };
    const b = { ref: randomUUID(), content: '[{"role":"tool"}]', tokens: 7 };
    const before = Date.now();
    await storeOffloads(sql, [a, b]);
    const got = await readOffload(sql, b.ref);
    expect(got).toEqual({ ref: b.ref, content: b.content, tokens: 7, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    expect(Date.parse(got.created_at)).toBeGreaterThanOrEqual(before - 60_000);
    expect(await readOffload(sql, a.ref)).toMatchObject({ ref: a.ref, content: "first original", tokens: 12 });
    const [{ n }] = await rec.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM offloaded_contents WHERE ref = ANY($1::uuid[]) AND project_id = $2`, [
      [a.ref, b.ref],
      DEFAULT_PROJECT_ID,
    ]);
    expect(n).toBe(2);
  });

  it("nothing to store is no query (an empty list is fine)", async () => {
    const seen: string[] = [];
    const spy = projectSql({ ...rec.db.sql, query: async (t: string, p?: unknown[]) => (seen.push(t), rec.db.sql.query(t, p)) } as never, DEFAULT_PROJECT_ID);
    await storeOffloads(spy, []);
    expect(seen).toEqual([]);
  });

  it("an unknown ref, or one of another project, is not found", async () => {
    const sql = writer();
    const ref = randomUUID();
    await storeOffloads(sql, [{ ref, content: "mine", tokens: 1 }]);
    const other = projectSql(rec.db.sql, randomUUID());
    await expect(readOffload(other, ref)).rejects.toMatchObject({ kind: "not_found" });
    const unknown = randomUUID();
    await expect(readOffload(sql, unknown)).rejects.toMatchObject({ kind: "not_found", message: expect.stringContaining(unknown) });
  });
});
