import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { openDatabase, type Database } from "@/lib/db/open-database";
import { insertTurns } from "@/lib/messages/insert-turns";
import { ZHistoryQuery, ZTurnInput } from "@/lib/messages/schemas";
import { savePresets } from "@/lib/models/model-settings";
import { countTextTokens } from "@/lib/tokens/count-tokens";
import type { EncodingName } from "@/lib/tokens/registry";
import { getHistory } from "@/lib/window/get-history";
import { removeDir, tempDir } from "../helpers/temp-dir";

// GET /history's reader (Dify's TokenBufferMemory) on a real embedded database: the
// cached count column per encoding, presets saved in settings, image parts and the
// per-turn sums, compared with the chat formula worked out here: a turn costs
// (3 + 1 + tokens(query) + 85 per user image) + (3 + 1 + tokens(answer) + 85 per assistant image);
// a window 3 more for the reply priming.

let db: Database;
let dir: string;
const sql = () => projectSql(db.sql, DEFAULT_PROJECT_ID);
const turn = (t: Record<string, unknown>) => ZTurnInput.parse(t);
const at = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();
const q = (o: Record<string, string> = {}) => ZHistoryQuery.parse(o);
async function conversation(): Promise<string> {
  const [c] = await db.sql.query<{ id: string }>(`INSERT INTO conversations (id, app_id) VALUES (gen_random_uuid(), 'history') RETURNING id`);
  return c.id;
}
const cost = (query: string, answer: string, enc: EncodingName, images = { user: 0, assistant: 0 }) =>
  4 + countTextTokens(query, enc) + 85 * images.user + 4 + countTextTokens(answer, enc) + 85 * images.assistant;

// Texts whose counts differ between the encodings (checked below).
const QUERY = "Wie viele Straßenbahnlinien fahren durch Lissabons Altstadt? 🚋🚋";
const ANSWER = "Fünf Linien: 12E, 15E, 18E, 24E und 28E — die berühmteste ist die 28E.";

beforeAll(async () => {
  dir = tempDir("get-history");
  db = await openDatabase({ kind: "pglite", dataDir: dir });
}, 120_000);
afterAll(async () => {
  await db?.close();
  if (dir) removeDir(dir);
});

describe("getHistory: the count column of the model's encoding", () => {
  let cid: string;
  let ids: string[];
  beforeAll(async () => {
    cid = await conversation();
    ids = (
      await insertTurns(sql(), cid, [turn({ query: QUERY, answer: ANSWER, created_at: at(0) }), turn({ query: "and the 28?", answer: "It climbs to Graça.", created_at: at(1) })])
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
      const h = await getHistory(sql(), cid, q({ model, include_turn_tokens: "true", max_token_limit: "100000" }));
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
    const h = await getHistory(sql(), cid, q({ model: "gpt-3.5-turbo", max_token_limit: String(3 + newest) }));
    expect(h.total_tokens).toBe(3 + newest);
    expect(h.dropped_message_ids).toEqual([ids[0]]);
  });

  it("turn_tokens is there only when asked for", async () => {
    expect("turn_tokens" in (await getHistory(sql(), cid, q()))).toBe(false);
    expect("turn_tokens" in (await getHistory(sql(), cid, q({ include_turn_tokens: "false" })))).toBe(false);
  });
});

describe("getHistory: presets saved in settings", () => {
  let cid: string;
  beforeAll(async () => {
    cid = await conversation();
    await insertTurns(sql(), cid, [turn({ query: QUERY, answer: ANSWER, created_at: at(0) })]);
    await savePresets(sql(), [
      { model: "Lisbon-LLM", context_window: 8000, encoding: "cl100k_base", exact: false },
      { model: "gpt-4o-mini", context_window: 128_000, encoding: "cl100k_base", exact: true },
    ]);
  });
  afterAll(async () => savePresets(sql(), []));

  it("a saved model (matched without case or spaces) uses its encoding and is approximate unless exact", async () => {
    const h = await getHistory(sql(), cid, q({ model: " lisbon-llm ", include_turn_tokens: "true" }));
    expect(h).toMatchObject({ model: "lisbon-llm", encoding: "cl100k_base", approximate: true });
    expect(h.turn_tokens![0].tokens).toBe(cost(QUERY, ANSWER, "cl100k_base"));
    // A built-in model overridden in settings: the saved encoding, exact as saved.
    const o = await getHistory(sql(), cid, q({ model: "GPT-4o-mini", include_turn_tokens: "true" }));
    expect(o).toMatchObject({ model: "GPT-4o-mini", encoding: "cl100k_base", approximate: false });
    expect(o.turn_tokens![0].tokens).toBe(cost(QUERY, ANSWER, "cl100k_base"));
  });

  it("a model not saved resolves as usual: gpt-4o stays o200k_base; an unknown model is approximate", async () => {
    expect(await getHistory(sql(), cid, q({ model: "gpt-4o" }))).toMatchObject({ encoding: "o200k_base", approximate: false });
    expect(await getHistory(sql(), cid, q({ model: "lisbon-llm-2" }))).toMatchObject({ approximate: true });
  });
});

describe("getHistory: image parts and per-turn sums", () => {
  it("each image part costs 85 tokens on its side; files go before the text in the messages", async () => {
    const cid = await conversation();
    const img = (url: string, belongs_to = "user") => ({ type: "image", transfer_method: "remote_url", url, belongs_to });
    const [t0, t1, t2] = await insertTurns(sql(), cid, [
      turn({ query: "what is this tram?", answer: "A Remodelado.", files: [img("http://x/1.png"), img("http://x/2.png")], created_at: at(0) }),
      turn({ query: "draw it", answer: "Here it is.", files: [img("http://x/3.png", "assistant")], created_at: at(1) }),
      turn({ query: "thanks", answer: "You're welcome.", created_at: at(2) }),
    ]);
    const h = await getHistory(sql(), cid, q({ include_turn_tokens: "true", max_token_limit: "100000" }));
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
    const [t] = await insertTurns(sql(), cid, [
      turn({ query: "read this", answer: "Done.", files: [{ type: "document", transfer_method: "remote_url", url: "http://x/a.pdf" }], created_at: at(0) }),
    ]);
    const h = await getHistory(sql(), cid, q({ include_turn_tokens: "true" }));
    expect(h.turn_tokens).toEqual([{ id: t.id, tokens: cost("read this", "Done.", "o200k_base") }]);
  });

  it("the in-flight placeholder has no entry in turn_tokens and costs nothing", async () => {
    const cid = await conversation();
    const [t0, t1] = await insertTurns(sql(), cid, [turn({ query: "hello", answer: "hi", created_at: at(0) }), turn({ query: "still typing", answer: "", answer_tokens: 0, created_at: at(1) })]);
    const h = await getHistory(sql(), cid, q({ include_turn_tokens: "true" }));
    expect(h.placeholder_message_id).toBe(t1.id);
    expect(h.turn_tokens).toEqual([{ id: t0.id, tokens: cost("hello", "hi", "o200k_base") }]);
    expect(h.total_tokens).toBe(3 + cost("hello", "hi", "o200k_base"));
  });

  it("a stored word over 256 bytes makes the counts approximate; in text format too", async () => {
    const cid = await conversation();
    await insertTurns(sql(), cid, [turn({ query: "x".repeat(300), answer: "ok", created_at: at(0) })]);
    const h = await getHistory(sql(), cid, q({ format: "text" }));
    expect(h.approximate).toBe(true);
    expect("text" in h && h.text).toBe(`Human: ${"x".repeat(300)}\nAssistant: ok`);
    expect("messages" in h).toBe(false);
    const a = await conversation();
    await insertTurns(sql(), a, [turn({ query: "ok", answer: "y".repeat(300), created_at: at(0) })]);
    expect((await getHistory(sql(), a, q())).approximate).toBe(true);
    // A pruned turn's long word does not count: only the kept text is looked at.
    const b = await conversation();
    await insertTurns(sql(), b, [turn({ query: "z".repeat(300), answer: "ok", created_at: at(0) }), turn({ query: "hello", answer: "hi", created_at: at(1) })]);
    expect((await getHistory(sql(), b, q({ max_token_limit: String(3 + cost("hello", "hi", "o200k_base")) }))).approximate).toBe(false);
  });

  it("an empty conversation: nothing read, nothing kept", async () => {
    const cid = await conversation();
    const h = await getHistory(sql(), cid, q({ include_turn_tokens: "true" }));
    expect(h).toMatchObject({ thread_message_ids: [], dropped_message_ids: [], placeholder_message_id: null, total_tokens: 0, turn_tokens: [] });
    expect("messages" in h && h.messages).toEqual([]);
  });

  it("rows of another project are never read", async () => {
    const cid = await conversation();
    await insertTurns(sql(), cid, [turn({ query: "mine", answer: "yes", created_at: at(0) })]);
    const other = projectSql(db.sql, randomUUID());
    const h = await getHistory(other, cid, q());
    expect(h.thread_message_ids).toEqual([]);
  });
});
