import { describe, expect, it } from "vitest";
import { insertTurns } from "@/lib/messages/insert-turns";
import { ZHistoryQuery, ZTurnInput } from "@/lib/messages/schemas";
import { savePresets } from "@/lib/models/model-settings";
import { cachedHistory } from "@/lib/window/history-cache";
import { getHistory } from "@/lib/window/get-history";
import { useRecordedDatabase } from "../helpers/recorded-database";

// GET /history's cache, against a migrated embedded database with every row the database
// returns recorded: a hit must read no message, and any change that alters the answer
// (a new turn, a saved preset, a deleted conversation) must reach the caller.

const rec = useRecordedDatabase();
const { sql, writer } = rec;
const turn = (i: number) => ZTurnInput.parse({ query: `CQ${i}X`, answer: `CA${i}X`, created_at: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString() });
const q = (extra: Record<string, string> = {}) => ZHistoryQuery.parse({ max_token_limit: "100000", ...extra });

async function conversation(turns: number): Promise<string> {
  const [c] = await rec.db.sql.query<{ id: string }>(`INSERT INTO conversations (id, app_id) VALUES (gen_random_uuid(), 'cache') RETURNING id`);
  await insertTurns(writer(), c.id, Array.from({ length: turns }, (_, i) => turn(i)));
  return c.id;
}

describe("cachedHistory", () => {
  it("answers a repeated request without reading any message, with the same answer getHistory gives", async () => {
    const c = await conversation(5);
    rec.resetReads();
    const first = await cachedHistory(sql, c, q());
    expect(rec.readText()).toMatch(/CQ4X/);
    rec.resetReads();
    const again = await cachedHistory(sql, c, q());
    expect(rec.reads()).toHaveLength(1); // the conversation's state row only
    expect(rec.readText()).not.toMatch(/C[QA]\dX/);
    expect(again).toEqual(first);
    expect(first).toEqual(await getHistory(sql, c, q()));
  });

  it("a new turn changes the answer at once (the turn count is part of the key)", async () => {
    const c = await conversation(3);
    const before = await cachedHistory(sql, c, q());
    expect(before.thread_message_ids).toHaveLength(3);
    await insertTurns(writer(), c, [turn(3)]);
    const after = await cachedHistory(sql, c, q());
    expect(after.thread_message_ids).toHaveLength(4);
    expect("messages" in after && after.messages!.at(-1)!.content).toBe("CA3X");
  });

  it("different queries of one conversation get their own answers", async () => {
    const c = await conversation(4);
    const all = await cachedHistory(sql, c, q());
    const two = await cachedHistory(sql, c, q({ message_limit: "2" }));
    const text = await cachedHistory(sql, c, q({ format: "text" }));
    expect(all.thread_message_ids).toHaveLength(4);
    expect(two.thread_message_ids).toHaveLength(2);
    expect("text" in text && text.text).toMatch(/^Human: CQ0X/);
  });

  it("a preset saved for the model changes the encoding of a cached history", async () => {
    const c = await conversation(2);
    const model = "house-model-cache-test";
    const before = await cachedHistory(sql, c, q({ model }));
    expect(before.encoding).toBe("o200k_base");
    await savePresets(writer(), [{ model, context_window: 16_000, encoding: "cl100k_base", exact: true }]);
    try {
      const after = await cachedHistory(sql, c, q({ model }));
      expect(after.encoding).toBe("cl100k_base");
      expect(after.approximate).toBe(false);
    } finally {
      await savePresets(writer(), []);
    }
  });

  it("a deleted conversation answers 404 though its history was cached", async () => {
    const c = await conversation(2);
    await cachedHistory(sql, c, q());
    await rec.db.sql.query(`UPDATE conversations SET deleted_at = now() WHERE id = $1`, [c]);
    await expect(cachedHistory(sql, c, q())).rejects.toMatchObject({ kind: "not_found" });
  });
});

describe("cachedHistory under concurrent misses", () => {
  it("requests arriving together share one computation", async () => {
    const c = await conversation(6);
    rec.resetReads();
    const answers = await Promise.all(Array.from({ length: 8 }, () => cachedHistory(sql, c, q())));
    // Eight state rows, one history computation: the newest turn's text was read once.
    expect(rec.reads().filter((r) => r.includes("CQ5X"))).toHaveLength(1);
    for (const a of answers) expect(a).toBe(answers[0]);
  });
});
