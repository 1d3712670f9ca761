import { randomUUID } from "node:crypto";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadThreadMessages } from "@/lib/context/load-thread-messages";
import { insertTurns } from "@/lib/messages/insert-turns";
import { ZTurnInput } from "@/lib/messages/schemas";
import { findAnchor, loadThreadIds } from "@/lib/threads/load-thread";
import { getHistory, normalizeMessageLimit } from "@/lib/window/get-history";
import { ZHistoryQuery } from "@/lib/messages/schemas";
import { savePresets } from "@/lib/models/model-settings";
import { countTextTokens } from "@/lib/tokens/count-tokens";
import type { EncodingName } from "@/lib/tokens/registry";
import { useRecordedDatabase } from "../helpers/recorded-database";

// The stored-thread readers against a migrated embedded database, with every row the
// database returns recorded: what a window reads is measured, not inferred from its result.

const rec = useRecordedDatabase();
const { sql, readText } = rec;

async function conversation(): Promise<string> {
  const [c] = await rec.db.sql.query<{ id: string }>(`INSERT INTO conversations (id, app_id) VALUES (gen_random_uuid(), 'reads') RETURNING id`);
  return c.id;
}
const turn = (t: Record<string, unknown>) => ZTurnInput.parse(t);
const at = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();

describe("loadThreadMessages reads only the stored text a window can send", () => {
  // 40 turns, each with a marker word in its question and answer and ~60 words of filler.
  let cid: string;
  const filler = "budget itinerary lisbon tram pastel ".repeat(12);
  beforeAll(async () => {
    cid = await conversation();
    await insertTurns(
      projectSql(rec.db.sql, DEFAULT_PROJECT_ID),
      cid,
      Array.from({ length: 40 }, (_, i) => turn({ query: `QMARK${i}Q ${filler}`, answer: `AMARK${i}A ${filler}`, created_at: at(i) })),
    );
  });
  const markersIn = (text: string) => [...text.matchAll(/[QA]MARK(\d+)[QA]/g)].map((m) => Number(m[1]));

  it("all: every turn's text is read and sent", async () => {
    rec.resetReads();
    const all = await loadThreadMessages(sql, cid, undefined, "o200k_base", { kind: "all" });
    expect(all).toHaveLength(80);
    expect(new Set(markersIn(readText()))).toEqual(new Set(Array.from({ length: 40 }, (_, i) => i)));
  });

  it("newest_messages: the text of the newest turns covering the window, no older text", async () => {
    rec.resetReads();
    const msgs = await loadThreadMessages(sql, cid, undefined, "o200k_base", { kind: "newest_messages", messages: 6 });
    expect(msgs).toHaveLength(80); // every turn is there, with its cached token count
    const read = new Set(markersIn(readText()));
    expect([...read].sort((a, b) => a - b)).toEqual([37, 38, 39]);
    // The turns in reach carry their text; the others none.
    expect(msgs.slice(-6).map((m) => String(m.content).slice(0, 9))).toEqual(["QMARK37Q ", "AMARK37A ", "QMARK38Q ", "AMARK38A ", "QMARK39Q ", "AMARK39A "]);
    expect(msgs.slice(0, 74).every((m) => !String(m.content).includes("MARK"))).toBe(true);
  });

  it("newest_tokens: reads back only as far as the token limit can reach", async () => {
    const all = await loadThreadMessages(projectSql(rec.db.sql, DEFAULT_PROJECT_ID), cid, undefined, "o200k_base", { kind: "all" });
    rec.resetReads();
    // ~70 tokens per message: a 500-token window reaches 4 turns (the one crossing the limit included).
    const msgs = await loadThreadMessages(sql, cid, undefined, "o200k_base", { kind: "newest_tokens", tokens: 500 });
    const read = [...new Set(markersIn(readText()))].sort((a, b) => a - b);
    expect(read.length).toBeGreaterThanOrEqual(3);
    expect(read.length).toBeLessThanOrEqual(5);
    expect(read.at(-1)).toBe(39);
    expect(read).toEqual(Array.from({ length: read.length }, (_, i) => 40 - read.length + i));
    // What was read is exactly the stored text of those turns.
    const kept = msgs.slice(-2 * read.length);
    expect(kept).toEqual(all.slice(-2 * read.length));
  });

  it("a leaf on another branch reads that branch only", async () => {
    const c = await conversation();
    const [root] = await insertTurns(projectSql(rec.db.sql, DEFAULT_PROJECT_ID), c, [turn({ query: "ROOTQ", answer: "ROOTA", parent_message_id: null, created_at: at(0) })]);
    const [left] = await insertTurns(projectSql(rec.db.sql, DEFAULT_PROJECT_ID), c, [turn({ query: "LEFTQ", answer: "LEFTA", parent_message_id: root.id, created_at: at(1) })]);
    await insertTurns(projectSql(rec.db.sql, DEFAULT_PROJECT_ID), c, [turn({ query: "RIGHTQ", answer: "RIGHTA", parent_message_id: root.id, created_at: at(2) })]);
    rec.resetReads();
    const msgs = await loadThreadMessages(sql, c, left.id, "o200k_base", { kind: "newest_messages", messages: 10 });
    expect(msgs.map((m) => m.content)).toEqual(["ROOTQ", "ROOTA", "LEFTQ", "LEFTA"]);
    expect(readText()).not.toContain("RIGHT");
  });
});

describe("getHistory (Dify's TokenBufferMemory) over stored rows", () => {
  it("reads the text of kept turns only; prunes oldest whole turns; leaves the in-flight placeholder out", async () => {
    const c = await conversation();
    await insertTurns(
      projectSql(rec.db.sql, DEFAULT_PROJECT_ID),
      c,
      [
        ...Array.from({ length: 10 }, (_, i) => turn({ query: `HQ${i}X`, answer: `HA${i}X`, created_at: at(i) })),
        turn({ query: "in flight", answer: "", answer_tokens: 0, created_at: at(10) }),
      ],
    );
    const full = await getHistory(sql, c, ZHistoryQuery.parse({ max_token_limit: "100000", include_turn_tokens: "true" }));
    expect(full.thread_message_ids).toHaveLength(10);
    expect(full.placeholder_message_id).toBeTruthy();
    expect(full.turn_tokens).toHaveLength(10);
    const newestThree = 3 + full.turn_tokens!.slice(0, 3).reduce((s, t) => s + t.tokens, 0);
    rec.resetReads();
    const cut = await getHistory(sql, c, ZHistoryQuery.parse({ max_token_limit: String(newestThree) }));
    expect(cut.total_tokens).toBe(newestThree);
    expect(cut.dropped_message_ids).toEqual(full.thread_message_ids.slice(3));
    expect("messages" in cut && cut.messages!.map((m) => m.content)).toEqual(["HQ7X", "HA7X", "HQ8X", "HA8X", "HQ9X", "HA9X"]);
    expect(readText()).not.toMatch(/H[QA][0-6]X/);
    const less = await getHistory(sql, c, ZHistoryQuery.parse({ max_token_limit: String(newestThree - 1) }));
    expect(less.dropped_message_ids).toEqual(full.thread_message_ids.slice(2));
    const text = await getHistory(sql, c, ZHistoryQuery.parse({ max_token_limit: String(newestThree), format: "text", human_prefix: "U", ai_prefix: "B" }));
    expect("text" in text && text.text).toBe("U: HQ7X\nB: HA7X\nU: HQ8X\nB: HA8X\nU: HQ9X\nB: HA9X");
  });

  it("message_limit: only the newest N rows are walked (every branch counts), capped at 500", async () => {
    const c = await conversation();
    await insertTurns(projectSql(rec.db.sql, DEFAULT_PROJECT_ID), c, Array.from({ length: 6 }, (_, i) => turn({ query: `q${i}`, answer: `a${i}`, created_at: at(i) })));
    const h = await getHistory(sql, c, ZHistoryQuery.parse({ message_limit: "4" }));
    expect(h.thread_message_ids).toHaveLength(4);
    expect(h.message_limit).toBe(4);
    expect(normalizeMessageLimit(0)).toBe(500);
    expect(normalizeMessageLimit(-1)).toBe(500);
    expect(normalizeMessageLimit(null)).toBe(500);
    expect(normalizeMessageLimit(501)).toBe(500);
    expect(normalizeMessageLimit(500)).toBe(500);
    expect(normalizeMessageLimit(499)).toBe(499);
  });

  it("a chosen leaf: the thread up to it; cl100k models count with their own columns", async () => {
    const c = await conversation();
    const [a] = await insertTurns(projectSql(rec.db.sql, DEFAULT_PROJECT_ID), c, [turn({ query: "alpha beta gamma", answer: "delta", parent_message_id: null, created_at: at(0) })]);
    const [b] = await insertTurns(projectSql(rec.db.sql, DEFAULT_PROJECT_ID), c, [turn({ query: "left", answer: "L", parent_message_id: a.id, created_at: at(1) })]);
    await insertTurns(projectSql(rec.db.sql, DEFAULT_PROJECT_ID), c, [turn({ query: "right", answer: "R", parent_message_id: a.id, created_at: at(2) })]);
    const h = await getHistory(sql, c, ZHistoryQuery.parse({ leaf_message_id: b.id }));
    expect(h.thread_message_ids).toEqual([b.id, a.id]);
    const o = await getHistory(sql, c, ZHistoryQuery.parse({ leaf_message_id: b.id, include_turn_tokens: "true" }));
    const cl = await getHistory(sql, c, ZHistoryQuery.parse({ leaf_message_id: b.id, model: "gpt-3.5-turbo", include_turn_tokens: "true" }));
    expect(cl.encoding).toBe("cl100k_base");
    expect(o.encoding).toBe("o200k_base");
    expect(cl.turn_tokens).toHaveLength(2);
    await expect(getHistory(sql, c, ZHistoryQuery.parse({ leaf_message_id: randomUUID() }))).rejects.toMatchObject({
      kind: "not_found",
      details: [{ field: "leaf_message_id" }],
    });
  });
});

describe("loadThreadIds walks every row, page by page", () => {
  it("follows the newest row or a chosen leaf; regenerated siblings are skipped; stops at a root", async () => {
    const c = await conversation();
    const [r] = await insertTurns(projectSql(rec.db.sql, DEFAULT_PROJECT_ID), c, [turn({ query: "r", parent_message_id: null, created_at: at(0) })]);
    const [x] = await insertTurns(projectSql(rec.db.sql, DEFAULT_PROJECT_ID), c, [turn({ query: "x", parent_message_id: r.id, created_at: at(1) })]);
    const [y] = await insertTurns(projectSql(rec.db.sql, DEFAULT_PROJECT_ID), c, [turn({ query: "y", parent_message_id: r.id, created_at: at(2) })]);
    const [z] = await insertTurns(projectSql(rec.db.sql, DEFAULT_PROJECT_ID), c, [turn({ query: "z", parent_message_id: y.id, created_at: at(3) })]);
    expect(await loadThreadIds(sql, c)).toEqual([z.id, y.id, r.id]);
    expect(await loadThreadIds(sql, c, x.id)).toEqual([x.id, r.id]);
    expect(await loadThreadIds(sql, c, r.id)).toEqual([r.id]);
    await expect(findAnchor(sql, c, randomUUID(), "current_message_id")).rejects.toMatchObject({ details: [{ field: "current_message_id" }] });
    expect(await loadThreadIds(sql, await conversation())).toEqual([]);
  });

  it("a thread longer than one page (2 000 rows) is followed across pages, each row once", async () => {
    const c = await conversation();
    // A straight chain of 2 100 turns with the same created_at: (created_at, seq) orders them.
    const ids = Array.from({ length: 2100 }, () => randomUUID());
    await insertTurns(
      projectSql(rec.db.sql, DEFAULT_PROJECT_ID),
      c,
      ids.map((id, i) => turn({ id, parent_message_id: i ? ids[i - 1] : null, query: `p${i}`, created_at: at(0) })),
      { minimal: true },
    );
    rec.resetReads();
    const thread = await loadThreadIds(sql, c);
    expect(thread).toEqual([...ids].reverse());
    // Two pages were read (2 000, then 100), not one query per row.
    expect(rec.reads()).toHaveLength(2);
    const mid = await loadThreadIds(sql, c, ids[2050]);
    expect(mid).toEqual(ids.slice(0, 2051).reverse());
  }, 60_000);
});

// GET /history's reader in more detail: the cached count column per encoding, presets
// saved in settings, image parts and the per-turn sums, compared with the chat formula
// worked out here: a turn costs (3 + 1 + tokens(query) + 85 per user image) +
// (3 + 1 + tokens(answer) + 85 per assistant image); a window 3 more for the reply priming.
const psql = () => projectSql(rec.db.sql, DEFAULT_PROJECT_ID);
const hq = (o: Record<string, string> = {}) => ZHistoryQuery.parse(o);
const cost = (query: string, answer: string, enc: EncodingName, images = { user: 0, assistant: 0 }) =>
  4 + countTextTokens(query, enc) + 85 * images.user + 4 + countTextTokens(answer, enc) + 85 * images.assistant;
// Texts whose counts differ between the encodings (checked below).
const QUERY = "Wie viele Straßenbahnlinien fahren durch Lissabons Altstadt? 🚋🚋";
const ANSWER = "Fünf Linien: 12E, 15E, 18E, 24E und 28E — die berühmteste ist die 28E.";

describe("getHistory: the count column of the model's encoding", () => {
  let cid: string;
  let ids: string[];
  beforeAll(async () => {
    cid = await conversation();
    ids = (
      await insertTurns(psql(), cid, [turn({ query: QUERY, answer: ANSWER, created_at: at(0) }), turn({ query: "and the 28?", answer: "It climbs to Graça.", created_at: at(1) })])
    ).map((t) => t.id);
  });

  it("the test texts count differently in o200k_base and cl100k_base", () => {
    expect(cost(QUERY, ANSWER, "cl100k_base")).not.toBe(cost(QUERY, ANSWER, "o200k_base"));
  });

  it("a cl100k model reads the cl100k counts; an o200k model the o200k counts; totals add 3", async () => {
    for (const [model, enc] of [
      ["gpt-3.5-turbo", "cl100k_base"],
      ["gpt-4o", "o200k_base"],
    ] as const) {
      const h = await getHistory(psql(), cid, hq({ model, include_turn_tokens: "true", max_token_limit: "100000" }));
      expect(h.encoding).toBe(enc);
      expect(h.model).toBe(model);
      expect(h.approximate).toBe(false);
      const turns = [
        { id: ids[1], tokens: cost("and the 28?", "It climbs to Graça.", enc) },
        { id: ids[0], tokens: cost(QUERY, ANSWER, enc) },
      ];
      expect(h.turn_tokens).toEqual(turns);
      expect(h.total_tokens).toBe(3 + turns[0].tokens + turns[1].tokens);
      expect(h.thread_message_ids).toEqual([ids[1], ids[0]]);
      expect(h.dropped_message_ids).toEqual([]);
      expect(h.placeholder_message_id).toBeNull();
      expect(h.max_token_limit).toBe(100000);
      expect(h.message_limit).toBe(500);
      expect("text" in h).toBe(false);
      expect("messages" in h && h.messages).toEqual([
        { role: "user", content: QUERY },
        { role: "assistant", content: ANSWER },
        { role: "user", content: "and the 28?" },
        { role: "assistant", content: "It climbs to Graça." },
      ]);
    }
  });

  it("the cl100k limit cuts where the cl100k counts say", async () => {
    const newest = cost("and the 28?", "It climbs to Graça.", "cl100k_base");
    const h = await getHistory(psql(), cid, hq({ model: "gpt-3.5-turbo", max_token_limit: String(3 + newest) }));
    expect(h.total_tokens).toBe(3 + newest);
    expect(h.dropped_message_ids).toEqual([ids[0]]);
  });

  it("turn_tokens is there only when asked for", async () => {
    expect("turn_tokens" in (await getHistory(psql(), cid, hq()))).toBe(false);
    expect("turn_tokens" in (await getHistory(psql(), cid, hq({ include_turn_tokens: "false" })))).toBe(false);
  });
});

describe("getHistory: presets saved in settings", () => {
  let cid: string;
  beforeAll(async () => {
    cid = await conversation();
    await insertTurns(psql(), cid, [turn({ query: QUERY, answer: ANSWER, created_at: at(0) })]);
    await savePresets(psql(), [
      { model: "Lisbon-LLM", context_window: 8000, encoding: "cl100k_base", exact: false },
      { model: "gpt-4o-mini", context_window: 128_000, encoding: "cl100k_base", exact: true },
    ]);
  });
  afterAll(async () => savePresets(psql(), []));

  it("a saved model (matched without case or spaces) uses its encoding and is approximate unless exact", async () => {
    const h = await getHistory(psql(), cid, hq({ model: " lisbon-llm ", include_turn_tokens: "true" }));
    expect(h).toMatchObject({ model: "lisbon-llm", encoding: "cl100k_base", approximate: true });
    expect(h.turn_tokens![0].tokens).toBe(cost(QUERY, ANSWER, "cl100k_base"));
    // A built-in model overridden in settings: the saved encoding, exact as saved.
    const o = await getHistory(psql(), cid, hq({ model: "GPT-4o-mini", include_turn_tokens: "true" }));
    expect(o).toMatchObject({ model: "GPT-4o-mini", encoding: "cl100k_base", approximate: false });
    expect(o.turn_tokens![0].tokens).toBe(cost(QUERY, ANSWER, "cl100k_base"));
  });

  it("a model not saved resolves as usual: gpt-4o stays o200k_base; an unknown model is approximate", async () => {
    expect(await getHistory(psql(), cid, hq({ model: "gpt-4o" }))).toMatchObject({ encoding: "o200k_base", approximate: false });
    expect(await getHistory(psql(), cid, hq({ model: "lisbon-llm-2" }))).toMatchObject({ approximate: true });
  });
});

describe("getHistory: image parts and per-turn sums", () => {
  it("each image part costs 85 tokens on its side; files go before the text in the messages", async () => {
    const cid = await conversation();
    const img = (url: string, belongs_to = "user") => ({ type: "image", transfer_method: "remote_url", url, belongs_to });
    const [t0, t1, t2] = await insertTurns(psql(), cid, [
      turn({ query: "what is this tram?", answer: "A Remodelado.", files: [img("http://x/1.png"), img("http://x/2.png")], created_at: at(0) }),
      turn({ query: "draw it", answer: "Here it is.", files: [img("http://x/3.png", "assistant")], created_at: at(1) }),
      turn({ query: "thanks", answer: "You're welcome.", created_at: at(2) }),
    ]);
    const h = await getHistory(psql(), cid, hq({ include_turn_tokens: "true", max_token_limit: "100000" }));
    const turns = [
      { id: t2.id, tokens: cost("thanks", "You're welcome.", "o200k_base") },
      { id: t1.id, tokens: cost("draw it", "Here it is.", "o200k_base", { user: 0, assistant: 1 }) },
      { id: t0.id, tokens: cost("what is this tram?", "A Remodelado.", "o200k_base", { user: 2, assistant: 0 }) },
    ];
    expect(h.turn_tokens).toEqual(turns);
    expect(h.total_tokens).toBe(3 + turns.reduce((s, t) => s + t.tokens, 0));
    const part = (url: string) => ({ type: "image", transfer_method: "remote_url", url, upload_file_id: null });
    expect("messages" in h && h.messages!.slice(0, 4)).toEqual([
      { role: "user", content: [part("http://x/1.png"), part("http://x/2.png"), { type: "text", text: "what is this tram?" }] },
      { role: "assistant", content: "A Remodelado." },
      { role: "user", content: "draw it" },
      { role: "assistant", content: [part("http://x/3.png"), { type: "text", text: "Here it is." }] },
    ]);
  });

  it("a document part costs nothing in the count", async () => {
    const cid = await conversation();
    const [t] = await insertTurns(psql(), cid, [
      turn({ query: "read this", answer: "Done.", files: [{ type: "document", transfer_method: "remote_url", url: "http://x/a.pdf" }], created_at: at(0) }),
    ]);
    const h = await getHistory(psql(), cid, hq({ include_turn_tokens: "true" }));
    expect(h.turn_tokens).toEqual([{ id: t.id, tokens: cost("read this", "Done.", "o200k_base") }]);
  });

  it("the in-flight placeholder has no entry in turn_tokens and costs nothing", async () => {
    const cid = await conversation();
    const [t0, t1] = await insertTurns(psql(), cid, [turn({ query: "hello", answer: "hi", created_at: at(0) }), turn({ query: "still typing", answer: "", answer_tokens: 0, created_at: at(1) })]);
    const h = await getHistory(psql(), cid, hq({ include_turn_tokens: "true" }));
    expect(h.placeholder_message_id).toBe(t1.id);
    expect(h.turn_tokens).toEqual([{ id: t0.id, tokens: cost("hello", "hi", "o200k_base") }]);
    expect(h.total_tokens).toBe(3 + cost("hello", "hi", "o200k_base"));
  });

  it("a stored word over 256 bytes makes the counts approximate; in text format too", async () => {
    const cid = await conversation();
    await insertTurns(psql(), cid, [turn({ query: "x".repeat(300), answer: "ok", created_at: at(0) })]);
    const h = await getHistory(psql(), cid, hq({ format: "text" }));
    expect(h.approximate).toBe(true);
    expect("text" in h && h.text).toBe(`Human: ${"x".repeat(300)}\nAssistant: ok`);
    expect("messages" in h).toBe(false);
    const a = await conversation();
    await insertTurns(psql(), a, [turn({ query: "ok", answer: "y".repeat(300), created_at: at(0) })]);
    expect((await getHistory(psql(), a, hq())).approximate).toBe(true);
    // A pruned turn's long word does not count: only the kept text is looked at.
    const b = await conversation();
    await insertTurns(psql(), b, [turn({ query: "z".repeat(300), answer: "ok", created_at: at(0) }), turn({ query: "hello", answer: "hi", created_at: at(1) })]);
    expect((await getHistory(psql(), b, hq({ max_token_limit: String(3 + cost("hello", "hi", "o200k_base")) }))).approximate).toBe(false);
  });

  it("a stored answer with answer_tokens 0 is not the in-flight placeholder: only an empty answer is", async () => {
    const cid = await conversation();
    const [t0, t1] = await insertTurns(psql(), cid, [turn({ query: "hello", answer: "hi", created_at: at(0) }), turn({ query: "again", answer: "ok", answer_tokens: 0, created_at: at(1) })]);
    const h = await getHistory(psql(), cid, hq());
    expect(h.placeholder_message_id).toBeNull();
    expect(h.thread_message_ids).toEqual([t1.id, t0.id]);
  });

  it("one kept turn with a long word is enough to make the counts approximate", async () => {
    const cid = await conversation();
    await insertTurns(psql(), cid, [turn({ query: "w".repeat(300), answer: "ok", created_at: at(0) }), turn({ query: "hello", answer: "hi", created_at: at(1) })]);
    expect((await getHistory(psql(), cid, hq())).approximate).toBe(true);
  });

  it("an empty conversation: nothing read, nothing kept", async () => {
    const cid = await conversation();
    const h = await getHistory(psql(), cid, hq({ include_turn_tokens: "true" }));
    expect(h).toMatchObject({ thread_message_ids: [], dropped_message_ids: [], placeholder_message_id: null, total_tokens: 0, turn_tokens: [] });
    expect("messages" in h && h.messages).toEqual([]);
  });

  it("rows of another project are never read", async () => {
    const cid = await conversation();
    await insertTurns(psql(), cid, [turn({ query: "mine", answer: "yes", created_at: at(0) })]);
    const other = projectSql(rec.db.sql, randomUUID());
    const h = await getHistory(other, cid, hq());
    expect(h.thread_message_ids).toEqual([]);
  });
});

// The active leaf an import recorded (model_config.active_leaf_message_id) is where the
// thread, the window and the context end when the caller names no leaf; the readers still
// make one statement per page (the bound is part of it).
async function recordedLeafTree(modelConfig: unknown) {
  const [c] = await rec.db.sql.query<{ id: string }>(`INSERT INTO conversations (id, app_id, model_config) VALUES (gen_random_uuid(), 'leaf', $1::jsonb) RETURNING id`, [JSON.stringify(modelConfig)]);
  const sql = projectSql(rec.db.sql, DEFAULT_PROJECT_ID);
  const [r] = await insertTurns(sql, c.id, [turn({ query: "root", answer: "r", parent_message_id: null, created_at: at(0) })]);
  const [a] = await insertTurns(sql, c.id, [turn({ query: "active", answer: "a", parent_message_id: r.id, created_at: at(1) })]);
  const [n] = await insertTurns(sql, c.id, [turn({ query: "newest", answer: "n", parent_message_id: r.id, created_at: at(2) })]);
  return { c: c.id, r: r.id, a: a.id, n: n.id };
}

describe("the recorded active leaf is the default leaf", () => {
  it("thread, history and context follow it, in one statement per read; a named leaf still wins", async () => {
    const t0 = await recordedLeafTree({});
    const t = await recordedLeafTree({ source: "chatgpt", active_leaf_message_id: "x" });
    await rec.db.sql.query(`UPDATE conversations SET model_config = jsonb_set(model_config, '{active_leaf_message_id}', to_jsonb($2::text)) WHERE id = $1`, [t.c, t.a]);
    rec.resetReads();
    expect(await loadThreadIds(sql, t.c)).toEqual([t.a, t.r]);
    expect(rec.reads()).toHaveLength(1);
    expect((await getHistory(sql, t.c, ZHistoryQuery.parse({ max_token_limit: "100000" }), [])).thread_message_ids).toEqual([t.a, t.r]);
    expect((await loadThreadMessages(sql, t.c, undefined, "o200k_base")).map((m) => m.content)).toEqual(["root", "r", "active", "a"]);
    expect(await loadThreadIds(sql, t.c, t.n)).toEqual([t.n, t.r]);
    // No pointer, or one that names no turn of the conversation: the newest row, as Dify.
    expect(await loadThreadIds(sql, t0.c)).toEqual([t0.n, t0.r]);
    await rec.db.sql.query(`UPDATE conversations SET model_config = '{"active_leaf_message_id": "not a uuid"}' WHERE id = $1`, [t0.c]);
    expect(await loadThreadIds(sql, t0.c)).toEqual([t0.n, t0.r]);
    await rec.db.sql.query(`UPDATE conversations SET model_config = jsonb_build_object('active_leaf_message_id', $2::text) WHERE id = $1`, [t0.c, t.a]);
    expect((await getHistory(sql, t0.c, ZHistoryQuery.parse({}), [])).thread_message_ids).toEqual([t0.n, t0.r]);
  });
});

describe("a turn written to a conversation with a recorded active leaf becomes it", () => {
  it("one turn or a batch: the pointer moves to the last turn written; without a pointer none is added", async () => {
    const t = await recordedLeafTree({ source: "chatgpt" });
    await rec.db.sql.query(`UPDATE conversations SET model_config = jsonb_set(model_config, '{active_leaf_message_id}', to_jsonb($2::text)) WHERE id = $1`, [t.c, t.a]);
    const [x] = await insertTurns(sql, t.c, [turn({ query: "next", answer: "x", parent_message_id: t.a })]);
    expect(await loadThreadIds(sql, t.c)).toEqual([x.id, t.a, t.r]);
    const [, y] = await insertTurns(sql, t.c, [turn({ query: "y0", answer: "y0" }), turn({ query: "y1", answer: "y1" })], { minimal: true });
    expect((await getHistory(sql, t.c, ZHistoryQuery.parse({ max_token_limit: "100000" }), [])).thread_message_ids[0]).toBe(y.id);
    const t0 = await recordedLeafTree({});
    await insertTurns(sql, t0.c, [turn({ query: "more", answer: "m" })]);
    const [cfg] = await rec.db.sql.query<{ model_config: unknown }>(`SELECT model_config FROM conversations WHERE id = $1`, [t0.c]);
    expect(cfg.model_config).toEqual({});
  });
});
