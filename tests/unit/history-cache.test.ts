import { describe, expect, it } from "vitest";
import { insertTurns } from "@/lib/messages/insert-turns";
import { ZHistoryQuery, ZTurnInput } from "@/lib/messages/schemas";
import { savePresets } from "@/lib/models/model-settings";
import type { ProjectSql } from "@/lib/db/project-sql";
import type { HistoryResponse } from "@/lib/messages/schemas";
import { HISTORY_CACHE_MAX_BYTES, cachedHistory, createHistoryCache, historyBytes } from "@/lib/window/history-cache";
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

  it("a text erasure (turns edited in place, updated_at set) is not served from the cache", async () => {
    const c = await conversation(2);
    const before = await cachedHistory(sql, c, q());
    expect("messages" in before && before.messages!.at(-1)!.content).toBe("CA1X");
    // What lib/privacy/erase-text.ts does to a turn and its conversation (another instance's
    // cache sees only the database).
    await rec.db.sql.query(`UPDATE messages SET answer = '[erased]' WHERE conversation_id = $1 AND answer = 'CA1X'`, [c]);
    await rec.db.sql.query(`UPDATE conversations SET updated_at = now() + interval '1 second' WHERE id = $1`, [c]);
    const after = await cachedHistory(sql, c, q());
    expect("messages" in after && after.messages!.at(-1)!.content).toBe("[erased]");
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

// The bound: answers are kept by their estimated size (historyBytes), at most max_bytes in all.
const answer = (over: Partial<HistoryResponse>): HistoryResponse => ({
  thread_message_ids: [],
  dropped_message_ids: [],
  placeholder_message_id: null,
  total_tokens: 0,
  max_token_limit: 0,
  message_limit: 0,
  model: "m",
  encoding: "o200k_base",
  approximate: false,
  formula: "",
  ...over,
});

describe("historyBytes", () => {
  it("counts 1 KiB, 64 bytes an id (kept or dropped), two bytes a text unit", () => {
    expect(historyBytes(answer({}))).toBe(1024);
    expect(historyBytes(answer({ thread_message_ids: ["a", "b", "c"], dropped_message_ids: ["d"] }))).toBe(1024 + 4 * 64);
    expect(historyBytes(answer({ text: "Human: hi" }))).toBe(1024 + 2 * 9);
  });

  it("counts 256 bytes a message and two bytes a unit of its content as JSON", () => {
    const messages: HistoryResponse["messages"] = [
      { role: "user", content: "hello" },
      { role: "assistant", content: [{ type: "text", text: "ok" }] },
    ];
    const json = JSON.stringify("hello").length + JSON.stringify([{ type: "text", text: "ok" }]).length;
    expect(historyBytes(answer({ messages, thread_message_ids: ["x"] }))).toBe(1024 + 64 + 2 * 256 + 2 * json);
  });
});

describe("the cache's bound", () => {
  it("is 32 MiB for the process's cache", () => {
    expect(HISTORY_CACHE_MAX_BYTES).toBe(32 * 1024 * 1024);
    expect(createHistoryCache().stats().max_bytes).toBe(32 * 1024 * 1024);
  });

  it("accounts each answer at its estimated size plus its key", async () => {
    const c = await conversation(3);
    const cache = createHistoryCache();
    const a = await cache.get(sql, c, q());
    const { entries, bytes } = cache.stats();
    expect(entries).toBe(1);
    // The key (project, conversation, turn count, tokenizer, query as JSON) is a few hundred characters.
    expect(bytes).toBeGreaterThan(historyBytes(a) + 50);
    expect(bytes).toBeLessThan(historyBytes(a) + 1000);
  });

  it("evicts the least recently used answer when the next would pass the bound", async () => {
    const [c1, c2] = [await conversation(3), await conversation(3)];
    const probe = createHistoryCache();
    await probe.get(sql, c1, q());
    const one = probe.stats().bytes;
    // Room for one of these answers, not two.
    const cache = createHistoryCache(Math.floor(one * 1.5));
    await cache.get(sql, c1, q());
    await cache.get(sql, c2, q());
    expect(cache.stats()).toMatchObject({ entries: 1, in_flight: 0 });
    expect(cache.stats().bytes).toBeLessThanOrEqual(cache.stats().max_bytes);
    rec.resetReads();
    await cache.get(sql, c2, q());
    expect(rec.reads()).toHaveLength(1); // still kept: the state row only
    await cache.get(sql, c1, q());
    expect(rec.readText()).toMatch(/CQ2X/); // evicted: read again
  });

  it("keeps no answer bigger than the bound, and recomputes it each time", async () => {
    const c = await conversation(2);
    const cache = createHistoryCache(100);
    const first = await cache.get(sql, c, q());
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0, in_flight: 0 });
    rec.resetReads();
    expect(await cache.get(sql, c, q())).toEqual(first);
    expect(rec.readText()).toMatch(/CQ1X/);
  });
});

describe("a computation that fails", () => {
  it("leaves nothing behind: the next request computes again and succeeds", async () => {
    const c = await conversation(2);
    const cache = createHistoryCache();
    // The same project, whose reads of messages fail (a dropped connection mid-request).
    const failing: ProjectSql = {
      ...sql,
      query: (text, params) => (/FROM messages/.test(text) ? Promise.reject(new Error("connection lost")) : sql.query(text, params)),
    };
    await expect(cache.get(failing, c, q())).rejects.toThrow("connection lost");
    expect(cache.stats()).toMatchObject({ entries: 0, in_flight: 0 });
    const answer = await cache.get(sql, c, q());
    expect(answer.thread_message_ids).toHaveLength(2);
    expect(cache.stats()).toMatchObject({ entries: 1, in_flight: 0 });
  });
});
